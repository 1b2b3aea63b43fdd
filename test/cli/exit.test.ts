// After "Agent failed" the process exits with status 1 even when a handle was
// left open (on the landed code a pod source that failed while starting left
// its file watcher open, and the failed agent never exited: no health server,
// its lock released, and systemd never restarting it). bin/agent.js enforces
// the exit a short, named grace after the agent has stopped.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/agent-process.js';
import { closeServer, freePort, killAllDaemons, listenOn, startAgent } from '../helpers/agent-daemon.js';
import { FakeCriServer } from '../helpers/fake-cri-server.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  await killAllDaemons();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An agent with a file pod source on the fake runtime whose /healthz port is already taken: it fails at start. */
async function failingStart(opts: { leak: boolean }) {
  const t = tempDir('agent-exit-');
  cleanups.push(t.cleanup);
  const runtime = await FakeCriServer.start();
  cleanups.push(() => runtime.dispose());
  const busy = await listenOn(0);
  cleanups.push(() => closeServer(busy));
  // A handle the agent does not know about, as a leaked watcher would be: preloaded into its process.
  const leak = t.write('leak.cjs', 'setInterval(() => {}, 1 << 30);\n');
  const agent = startAgent(
    [
      `--root-dir=${join(t.dir, 'root')}`,
      `--pod-manifest-path=${join(t.dir, 'manifests')}`,
      `--container-runtime-endpoint=${runtime.endpoint}`,
      '--node-ip=127.0.0.1',
      `--port=${await freePort()}`,
      '--read-only-port=0',
      '--healthz-bind-address=127.0.0.1',
      `--healthz-port=${(busy.address() as { port: number }).port}`,
    ],
    opts.leak ? { env: { NODE_OPTIONS: `--require=${leak}` } } : {},
  );
  return agent;
}

describe('the process ends after the agent failed', () => {
  it('with a leaked handle: exit 1 within seconds, saying what was left open', async () => {
    const agent = await failingStart({ leak: true });
    expect(await agent.waitForExit(15_000)).toEqual({ code: 1, signal: null });
    expect(agent.lines().some((l) => l.startsWith('E') && l.includes('] Agent failed'))).toBe(true);
    expect(agent.stderr).toMatch(/^agent: still running 2000 ms after stopping \(left open: .+\); exiting with status 1$/m);
  });

  it('without one: exit 1 as soon as it has stopped, without the grace message', async () => {
    const agent = await failingStart({ leak: false });
    expect(await agent.waitForExit(15_000)).toEqual({ code: 1, signal: null });
    expect(agent.stderr).toMatch(/\] Agent failed/);
    expect(agent.stderr).not.toMatch(/still running/);
  });
});
