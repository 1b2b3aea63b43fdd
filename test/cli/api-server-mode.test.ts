// --platformconfig selects API-server mode. A connection file the agent cannot
// use is a start-up error naming the file (as the kubelet's "invalid
// kubeconfig"), never a silent standalone run; a usable one whose server is
// down still lets the agent start and run (it retries the server meanwhile).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/agent-process.js';
import { killAllDaemons, startAgent } from '../helpers/agent-daemon.js';
import { freePort } from '../helpers/net.js';

const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  await killAllDaemons();
  for (const c of cleanups.splice(0).reverse()) await c();
});

function workDir(): string {
  const t = tempDir('agent-edges-');
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('--platformconfig (API-server mode)', () => {
  it('an unusable platformconfig stops the start, naming the file', async () => {
    const dir = workDir();
    const conf = join(dir, 'agent.conf');
    writeFileSync(conf, '');
    const agent = startAgent([`--root-dir=${join(dir, 'root')}`, `--platformconfig=${conf}`, '--healthz-port=0']);
    const exit = await agent.waitForExit(20_000);
    expect(exit.code, agent.stderr).toBe(1);
    expect(agent.stderr).toContain(conf);
    expect(agent.stderr).not.toMatch(/all components ready/);
  });

  it('with the API server down the agent still starts, and stops cleanly', async () => {
    const dir = workDir();
    const conf = join(dir, 'agent.conf');
    const port = await freePort();
    writeFileSync(
      conf,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: c\n  cluster:\n    server: https://127.0.0.1:${port}\n    insecure-skip-tls-verify: true`,
        'users:',
        '- name: u\n  user:\n    token: t',
        'contexts:',
        '- name: x\n  context:\n    cluster: c\n    user: u',
        'current-context: x',
        '',
      ].join('\n'),
    );
    const agent = startAgent([`--root-dir=${join(dir, 'root')}`, `--platformconfig=${conf}`, '--healthz-port=0', '--container-runtime-endpoint=unix:///nonexistent/containerd.sock']);
    await agent.waitForLine(/Starting agent .*mode="api-server"/, { timeoutMs: 10_000 });
    expect(agent.kill('SIGTERM')).toBe(true);
    expect(await agent.waitForExit(15_000)).toEqual({ code: 0, signal: null });
    expect(agent.stderr).not.toMatch(/not implemented/);
  });
});
