// `agent --runonce` with pods, against the fake CRI runtime over real gRPC:
// one line per pod on exit, exit 0 only when every pod runs or succeeded (a
// pod that fails, or one refused at admission, makes it 1). The pods keep
// running after the agent exits, as with the kubelet.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgentProcess, tempDir } from '../helpers/agent-process.js';
import { FakeRuntime } from '../../src/cri/fake-runtime.js';
import { FakeCriServer } from '../helpers/fake-cri-server.js';

const manifest = (name: string, restartPolicy = 'Always') =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  hostNetwork: true\n  restartPolicy: ${restartPolicy}\n  containers:\n  - name: main\n    image: localhost/busybox:1\n    imagePullPolicy: IfNotPresent\n`;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function runOnce(pods: Record<string, string>, extra: string[] = []): Promise<{ code: number | null; lines: string[]; cri: FakeCriServer }> {
  // A container whose pod name starts with "fail" exits 1 at once; the others run until stopped.
  const runtime = new FakeRuntime({ images: ['localhost/busybox:1'], onStart: (config) => (config.labels['io.platform.pod.name']?.startsWith('fail') ? { exitAfterMs: 0, exitCode: 1 } : undefined) });
  const cri = await FakeCriServer.start({ runtime });
  cleanups.push(() => cri.dispose());
  const t = tempDir();
  cleanups.push(() => t.cleanup());
  const dir = join(t.dir, 'manifests');
  mkdirSync(dir);
  for (const [name, text] of Object.entries(pods)) writeFileSync(join(dir, `${name}.yaml`), text);
  const run = await runAgentProcess(
    [`--pod-manifest-path=${dir}`, `--container-runtime-endpoint=${cri.endpoint}`, `--root-dir=${join(t.dir, 'root')}`, '--hostname-override=node-a', '--node-ip=127.0.0.1', '--logging-format=json', '--runonce', ...extra],
    { timeoutMs: 60_000 },
  );
  const lines = (run.stdout + run.stderr).split('\n').filter((l) => l.includes('"Run once'));
  return { code: run.code, lines, cri };
}

const result = (lines: string[], pod: string) => lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r['msg'] === 'Run once pod result' && r['pod'] === pod);

describe('--runonce with pods', () => {
  it('exits 0 when every pod runs or succeeded, one line per pod, and leaves the pods running', async () => {
    const { code, lines, cri } = await runOnce({ a: manifest('a'), b: manifest('b') });
    expect(code).toBe(0);
    expect(result(lines, 'default/a-node-a')).toMatchObject({ result: 'running', detail: '1 running' });
    expect(result(lines, 'default/b-node-a')).toMatchObject({ result: 'running' });
    expect(lines.at(-1)).toMatch(/"Run once finished: pods are running"/);
    expect((await cri.runtime.listContainers({ state: 'RUNNING' })).length).toBe(2);
  }, 60_000);

  it('exits 1 when a pod fails, naming it and its exit code', async () => {
    const { code, lines } = await runOnce({ a: manifest('a'), fail: manifest('fail', 'Never') });
    expect(code).toBe(1);
    expect(result(lines, 'default/a-node-a')).toMatchObject({ result: 'running' });
    expect(result(lines, 'default/fail-node-a')).toMatchObject({ result: 'failed', detail: 'main exited 1' });
    expect(lines.at(-1)).toMatch(/"Run once finished: some pods did not run".*"failed":1/);
  }, 60_000);

  it('exits 1 when a pod is refused at admission, with the reason', async () => {
    const { code, lines } = await runOnce({ a: manifest('a'), b: manifest('b') }, ['--max-pods=1']);
    expect(code).toBe(1);
    const results = ['default/a-node-a', 'default/b-node-a'].map((p) => result(lines, p)?.['result']).sort();
    expect(results).toEqual(['rejected', 'running']);
    expect(lines.join('\n')).toMatch(/"detail":"OutOfpods: Node didn't have enough resource: pods/);
  }, 60_000);
});
