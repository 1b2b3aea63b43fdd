// The built agent started on a manifest directory that already holds bad
// files, against the fake CRI runtime over real gRPC: it starts, serves
// /healthz, runs the good pods and names each bad file (on the code before
// issue 13 one such file made the first scan fail: "Agent failed", no health
// server, and a process that never exited).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/agent-process.js';
import { freePort, killAllDaemons, pollHttp, startAgent } from '../helpers/agent-daemon.js';
import { FakeRuntime } from '../../src/cri/fake-runtime.js';
import { FakeCriServer } from '../helpers/fake-cri-server.js';

const manifest = (name: string) => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  hostNetwork: true\n  containers:\n  - name: c\n    image: localhost/busybox:1\n    imagePullPolicy: IfNotPresent\n`;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await killAllDaemons();
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('agent start with bad manifests present', () => {
  it('runs the good pods, serves /healthz and names every bad file once', async () => {
    const cri = await FakeCriServer.start({ runtime: new FakeRuntime({ images: ['localhost/busybox:1'] }) });
    cleanups.push(() => cri.dispose());
    const t = tempDir();
    cleanups.push(() => t.cleanup());
    const dir = join(t.dir, 'manifests');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a-good.yaml'), manifest('good'));
    const bad = {
      'b-comment.yaml': '# only a comment\n',
      'c-alias.yaml': 'a: *undefined\n',
      'd-bomb.yaml': `${manifest('bomb')}x:\n  a: &a [x,x,x,x,x,x,x,x,x]\n  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n`,
    };
    for (const [name, text] of Object.entries(bad)) writeFileSync(join(dir, name), text);
    symlinkSync(join(dir, 'e-loop.yaml'), join(dir, 'e-loop.yaml'));
    writeFileSync(join(dir, 'z-last.yaml'), manifest('last'));
    const port = await freePort();
    const agent = startAgent([
      `--pod-manifest-path=${dir}`,
      `--container-runtime-endpoint=${cri.endpoint}`,
      `--root-dir=${join(t.dir, 'root')}`,
      `--healthz-port=${port}`,
      '--read-only-port=0',
      '--hostname-override=node-a',
      '--node-ip=127.0.0.1',
      '--logging-format=json',
    ]);
    const health = await pollHttp(`http://127.0.0.1:${port}/healthz`, { timeoutMs: 20_000, daemon: agent });
    expect(health.status).toBe(200);
    // Both good pods reach the runtime: the one sorting before the bad files and the one after.
    const deadline = Date.now() + 20_000;
    const names = async () => (await cri.runtime.listPodSandbox()).map((s) => s.metadata.name).join(',');
    while (!/good-node-a.*last-node-a|last-node-a.*good-node-a/.test(await names()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await names()).toContain('good-node-a');
    expect(await names()).toContain('last-node-a');
    const reported = (file: string) => agent.lines('stderr').concat(agent.lines('stdout')).filter((l) => l.includes('Could not process manifest file') && l.includes(file));
    for (const file of [...Object.keys(bad), 'e-loop.yaml']) {
      const until = Date.now() + 10_000;
      while (reported(file).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(reported(file), file).toHaveLength(1);
    }
    expect(agent.running).toBe(true);
    expect(agent.stdout + agent.stderr).not.toMatch(/Agent failed|component failed/);
  });
});
