// One agent per --root-dir, as an operator sees it: a second agent managing
// pods on a root directory another agent uses is refused at start (exit 1,
// naming the directory and the holder's pid), whatever its --lock-file; the
// first one runs on undisturbed. Agents without pod sources take no lock.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT_DIR_LOCK_FILE } from '../../src/lifecycle/root-dir-lock.js';
import { tempDir } from '../helpers/agent-process.js';
import { freePort, httpGet, killAllDaemons, pollHttp, startAgent, type AgentDaemon } from '../helpers/agent-daemon.js';
import { FakeCriServer } from '../helpers/fake-cri-server.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  await killAllDaemons();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const READY = /\] all components ready /;

function workDir(): string {
  const t = tempDir('agent-root-dir-');
  cleanups.push(t.cleanup);
  return t.dir;
}

async function cri(): Promise<FakeCriServer> {
  const s = await FakeCriServer.start();
  cleanups.push(() => s.dispose());
  return s;
}

/** A standalone agent on `root` with its own ports and the extra flags. */
async function launch(root: string, extra: readonly string[]): Promise<{ agent: AgentDaemon; healthz: string }> {
  const healthzPort = await freePort();
  const agent = startAgent([
    `--root-dir=${root}`,
    `--port=${await freePort()}`,
    '--read-only-port=0',
    '--healthz-bind-address=127.0.0.1',
    `--healthz-port=${healthzPort}`,
    '--node-ip=127.0.0.1',
    ...extra,
  ]);
  return { agent, healthz: `http://127.0.0.1:${healthzPort}/healthz` };
}

describe('one agent per --root-dir', () => {
  it('a second agent with pod sources on the same root dir (another --lock-file) exits 1 naming the dir and the first one\'s pid', async () => {
    const dir = workDir();
    const root = join(dir, 'root'); // missing: created, as the kubelet creates its root dir
    const runtime = await cri();
    const pods = [`--pod-manifest-path=${join(dir, 'manifests')}`, `--container-runtime-endpoint=${runtime.endpoint}`];
    const a = await launch(root, [...pods, `--lock-file=${join(dir, 'a.lock')}`]);
    await a.agent.waitForLine(READY, { timeoutMs: 15_000 });
    expect(existsSync(join(root, ROOT_DIR_LOCK_FILE))).toBe(true);

    const b = await launch(root, [...pods, `--lock-file=${join(dir, 'b.lock')}`]);
    expect(await b.agent.waitForExit(15_000)).toEqual({ code: 1, signal: null });
    const errors = b.agent.lines().filter((l) => l.startsWith('E')).join('\n');
    expect(errors).toContain(`another agent (pid ${a.agent.pid}) is already using --root-dir ${root}; each agent needs its own root directory`);
    expect(b.agent.stderr).not.toMatch(/starting component/);
    expect(await httpGet(b.healthz)).toEqual({ error: 'ECONNREFUSED' });

    // --runonce starts pods too (which the first agent would tear down as orphans): refused the same way.
    const once = await launch(root, [...pods, '--runonce']);
    expect(await once.agent.waitForExit(15_000)).toEqual({ code: 1, signal: null });
    expect(once.agent.stderr).toContain(`another agent (pid ${a.agent.pid}) is already using --root-dir ${root}`);

    // The first agent is undisturbed; once it stops, the root dir is free for another.
    expect(await httpGet(a.healthz)).toEqual({ status: 200, body: 'ok' });
    expect(a.agent.kill('SIGTERM')).toBe(true);
    expect(await a.agent.waitForExit(15_000)).toEqual({ code: 0, signal: null });
    const c = await launch(root, pods);
    await c.agent.waitForLine(READY, { timeoutMs: 15_000 });
    expect(await pollHttp(c.healthz, { daemon: c.agent })).toEqual({ status: 200, body: 'ok' });
  });

  it('a handover through one --lock-file with --exit-on-lock-contention is not refused: the root dir is freed before the lock file', async () => {
    const dir = workDir();
    const root = join(dir, 'root');
    const runtime = await cri();
    const pods = [`--pod-manifest-path=${join(dir, 'manifests')}`, `--container-runtime-endpoint=${runtime.endpoint}`, `--lock-file=${join(dir, 'agent.lock')}`];
    const a = await launch(root, [...pods, '--exit-on-lock-contention']);
    await a.agent.waitForLine(READY, { timeoutMs: 15_000 });
    const b = await launch(root, pods);
    expect(await a.agent.waitForExit(15_000)).toEqual({ code: 0, signal: null });
    await b.agent.waitForLine(READY, { timeoutMs: 15_000 });
    expect(b.agent.stderr).not.toMatch(/already using --root-dir/);
  });

  it('agents without pod sources take no lock: two on one root dir both run', async () => {
    const root = workDir();
    const a = await launch(root, []);
    const b = await launch(root, []);
    await a.agent.waitForLine(READY, { timeoutMs: 15_000 });
    await b.agent.waitForLine(READY, { timeoutMs: 15_000 });
    expect(existsSync(join(root, ROOT_DIR_LOCK_FILE))).toBe(false);
  });
});
