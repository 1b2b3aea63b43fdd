// The running agent as an operator sees it: the built bin/agent.js started as
// a long-running process (standalone, no --config), probed over /healthz on
// 127.0.0.1, stopped with signals, sharing a --lock-file with a second agent.
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/agent-process.js';
import {
  closeServer,
  freePort,
  httpGet,
  killAllDaemons,
  listenOn,
  pollHttp,
  startAgent,
  type AgentDaemon,
} from '../helpers/agent-daemon.js';

const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  await killAllDaemons();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const READY = /\] all components ready /;
const STOPPED = /\] Agent stopped$/;

function workDir(): string {
  const t = tempDir('agent-lifecycle-');
  cleanups.push(t.cleanup);
  return t.dir;
}

interface Launch {
  agent: AgentDaemon;
  dir: string;
  /** The --port value (nothing serves it yet; it must only be a valid, unused port). */
  servingPort: number;
  healthzPort: number;
  healthz: string;
}

/** Starts a standalone agent with its own root dir and ports; `healthzPort` 0 disables /healthz. */
async function launch(extra: readonly string[] = [], opts: { healthzPort?: number; dir?: string } = {}): Promise<Launch> {
  const dir = opts.dir ?? workDir();
  const servingPort = await freePort();
  const healthzPort = opts.healthzPort ?? (await freePort());
  const agent = startAgent([
    `--root-dir=${dir}`,
    `--port=${servingPort}`,
    '--read-only-port=0',
    '--healthz-bind-address=127.0.0.1',
    `--healthz-port=${healthzPort}`,
    ...extra,
  ]);
  return { agent, dir, servingPort, healthzPort, healthz: `http://127.0.0.1:${healthzPort}/healthz` };
}

/** Occupies a port on 127.0.0.1 for the rest of the test. */
async function occupyPort(): Promise<number> {
  const server = await listenOn(0);
  cleanups.push(() => closeServer(server));
  return (server.address() as { port: number }).port;
}

/** Absence of an exit cannot be awaited: watch the process for `ms` and require it to stay up. */
async function expectStillRunning(agent: AgentDaemon, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    agent.exited.then((exit) => exit),
    new Promise<'running'>((resolve) => {
      timer = setTimeout(() => resolve('running'), ms);
    }),
  ]);
  clearTimeout(timer);
  expect(outcome, `the agent exited on its own:\n${agent.stderr}`).toBe('running');
}

async function stopGracefully(agent: AgentDaemon, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  expect(agent.kill(signal), 'the agent was still running when signalled').toBe(true);
  expect(await agent.waitForExit(10_000)).toEqual({ code: 0, signal: null });
}

describe('/healthz', () => {
  it('answers 200 "ok" while the agent runs', async () => {
    const { agent, healthz, healthzPort } = await launch();
    const res = await pollHttp(healthz, { daemon: agent });
    expect(res).toEqual({ status: 200, body: 'ok' });
    await agent.waitForLine(new RegExp(`healthz server listening address="127\\.0\\.0\\.1:${healthzPort}"`));
    expect(agent.listeningPorts()).toContain(healthzPort);
    // Still healthy on a second look, and other paths are not served.
    expect(await httpGet(healthz)).toEqual({ status: 200, body: 'ok' });
    expect(await httpGet(`http://127.0.0.1:${healthzPort}/`)).toMatchObject({ status: 404 });
    await stopGracefully(agent);
  });

  it('--healthz-port=0 disables it: nothing listens, and the agent runs until SIGTERM', async () => {
    const { agent, servingPort } = await launch([], { healthzPort: 0 });
    await agent.waitForLine(READY);
    await expectStillRunning(agent, 300);
    // No socket of the agent listens (the --port server does not exist yet; allow it once it does).
    expect(agent.listeningPorts().filter((p) => p !== servingPort)).toEqual([]);
    expect(agent.stderr).not.toMatch(/healthz server listening/);
    await stopGracefully(agent);
    expect(agent.stderr).toMatch(/shutting down/);
  });

  it('a port already in use makes the agent exit 1 naming address:port', async () => {
    const busy = await occupyPort();
    const { agent } = await launch([], { healthzPort: busy });
    const exit = await agent.waitForExit(10_000);
    expect(exit).toEqual({ code: 1, signal: null });
    const errors = agent.lines().filter((l) => l.startsWith('E'));
    expect(errors.join('\n')).toContain(`127.0.0.1:${busy}`);
    expect(errors.join('\n')).toMatch(/EADDRINUSE|address already in use/);
  });
});

describe('signals', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s shuts down gracefully: exit 0, health port closed, shutdown logged', async (signal) => {
    const { agent, healthz } = await launch();
    await pollHttp(healthz, { daemon: agent });
    const started = Date.now();
    await stopGracefully(agent, signal);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(agent.stderr).toMatch(new RegExp(`\\] shutting down; send the signal again to exit immediately signal="${signal}"`));
    expect(agent.stderr).toMatch(/\] component stopped child="healthz"/);
    // The last record says the agent stopped; no error on the way out.
    expect(agent.lines().at(-1)).toMatch(STOPPED);
    expect(agent.lines().filter((l) => l.startsWith('E'))).toEqual([]);
    expect(await httpGet(healthz)).toEqual({ error: 'ECONNREFUSED' });
  });
  // A second signal during shutdown (exit at once) is not tested here: with only
  // the healthz server to stop, shutdown takes about a millisecond, too short to
  // deliver a second signal into reliably.
});

describe('modes', () => {
  it('without --platformconfig the agent runs standalone', async () => {
    const { agent } = await launch([], { healthzPort: 0 });
    await agent.waitForLine(/\] Starting agent .*mode="standalone"/);
    await agent.waitForLine(READY);
    await stopGracefully(agent);
  });

  it('--platformconfig naming a missing file without a bootstrap file: exit 1 naming the file', async () => {
    const dir = workDir();
    const missing = join(dir, 'agent.conf');
    const { agent } = await launch([`--platformconfig=${missing}`], { dir, healthzPort: 0 });
    expect(await agent.waitForExit(10_000)).toEqual({ code: 1, signal: null });
    const errors = agent.lines().filter((l) => l.startsWith('E'));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toContain(missing);
    expect(agent.stderr).not.toMatch(READY);
  });

  it('--platformconfig naming an existing file selects API server mode', async () => {
    const dir = workDir();
    const conf = join(dir, 'agent.conf');
    writeFileSync(conf, '');
    const { agent } = await launch([`--platformconfig=${conf}`], { dir, healthzPort: 0 });
    await agent.waitForLine(/\] Starting agent .*mode="api-server"/);
    agent.kill('SIGTERM');
    // Whether an empty connection file is later rejected is the API client's business; it must not hang.
    await agent.waitForExit(10_000);
  });
});

describe('--lock-file', () => {
  it('a second agent waits without serving, and takes over once the first stops', async () => {
    const dir = workDir();
    const lock = join(dir, 'agent.lock');
    const a = await launch([`--lock-file=${lock}`], { dir });
    await a.agent.waitForLine(/\] Acquired the lock file /);
    await pollHttp(a.healthz, { daemon: a.agent });
    expect(statSync(lock).mode & 0o777).toBe(0o600);

    const b = await launch([`--lock-file=${lock}`], { dir });
    await b.agent.waitForLine(/\] Waiting for the lock file, held by another process /);
    // Absence cannot be awaited: watch B's port for a while instead.
    const until = Date.now() + 500;
    while (Date.now() < until) {
      expect(await httpGet(b.healthz)).toEqual({ error: 'ECONNREFUSED' });
      expect(b.agent.listeningPorts()).toEqual([]);
      await expectStillRunning(b.agent, 50);
    }
    expect(b.agent.stderr).not.toMatch(/Acquired the lock file/);
    expect(await httpGet(a.healthz)).toEqual({ status: 200, body: 'ok' });

    await stopGracefully(a.agent);
    await b.agent.waitForLine(/\] Acquired the lock file /, { timeoutMs: 5_000 });
    expect(await pollHttp(b.healthz, { daemon: b.agent })).toEqual({ status: 200, body: 'ok' });
    await stopGracefully(b.agent);
  });

  it('with --exit-on-lock-contention the holder exits 0 when another agent contends, and that one takes over', async () => {
    const dir = workDir();
    const lock = join(dir, 'agent.lock');
    const a = await launch([`--lock-file=${lock}`, '--exit-on-lock-contention'], { dir });
    await pollHttp(a.healthz, { daemon: a.agent });

    const b = await launch([`--lock-file=${lock}`], { dir });
    expect(await a.agent.waitForExit(10_000)).toEqual({ code: 0, signal: null });
    expect(a.agent.stderr).toMatch(/\] Lock contention detected, exiting /);
    expect(a.agent.lines().at(-1)).toMatch(STOPPED);
    await b.agent.waitForLine(/\] Acquired the lock file /);
    expect(await pollHttp(b.healthz, { daemon: b.agent })).toEqual({ status: 200, body: 'ok' });
    await stopGracefully(b.agent);
  });

  it('SIGKILL of the holder releases the lock to the waiting agent', async () => {
    const dir = workDir();
    const lock = join(dir, 'agent.lock');
    const a = await launch([`--lock-file=${lock}`], { dir });
    await pollHttp(a.healthz, { daemon: a.agent });
    const b = await launch([`--lock-file=${lock}`], { dir });
    await b.agent.waitForLine(/\] Waiting for the lock file/);

    a.agent.kill('SIGKILL');
    expect(await a.agent.waitForExit(5_000)).toEqual({ code: null, signal: 'SIGKILL' });
    await b.agent.waitForLine(/\] Acquired the lock file /);
    expect(await pollHttp(b.healthz, { daemon: b.agent })).toEqual({ status: 200, body: 'ok' });
    await stopGracefully(b.agent);
  });

  it('losing the lock (its helper process killed) stops the holder with exit 1, so two agents never run at once', async () => {
    const dir = workDir();
    const lock = join(dir, 'agent.lock');
    const a = await launch([`--lock-file=${lock}`], { dir });
    await pollHttp(a.healthz, { daemon: a.agent });
    const b = await launch([`--lock-file=${lock}`], { dir });
    await b.agent.waitForLine(/\] Waiting for the lock file/);

    // The agent holds the flock(2) through a flock(1) helper in its own process group.
    const helpers = a.agent.children().filter((c) => c.comm === 'flock');
    expect(helpers).toHaveLength(1);
    process.kill(-helpers[0]!.pid, 'SIGKILL');

    expect(await a.agent.waitForExit(10_000)).toEqual({ code: 1, signal: null });
    expect(a.agent.lines().filter((l) => l.startsWith('E')).join('\n')).toMatch(new RegExp(`Lost the lock file.* path="${lock}"`));
    await b.agent.waitForLine(/\] Acquired the lock file /);
    expect(await pollHttp(b.healthz, { daemon: b.agent })).toEqual({ status: 200, body: 'ok' });
    await stopGracefully(b.agent);
  });

  it('SIGTERM while waiting for the lock stops the waiting agent cleanly', async () => {
    const dir = workDir();
    const lock = join(dir, 'agent.lock');
    const a = await launch([`--lock-file=${lock}`], { dir });
    await pollHttp(a.healthz, { daemon: a.agent });
    const b = await launch([`--lock-file=${lock}`], { dir });
    await b.agent.waitForLine(/\] Waiting for the lock file/);
    await stopGracefully(b.agent);
    expect(b.agent.stderr).not.toMatch(/Acquired the lock file/);
    // The holder is unaffected.
    expect(await httpGet(a.healthz)).toEqual({ status: 200, body: 'ok' });
    await stopGracefully(a.agent);
  });

  it('--exit-on-lock-contention without --lock-file: exit 1 naming both options', async () => {
    const { agent } = await launch(['--exit-on-lock-contention']);
    expect(await agent.waitForExit(10_000)).toEqual({ code: 1, signal: null });
    expect(agent.stderr).toContain('Error: invalid agent configuration: --exit-on-lock-contention: needs a lock file (--lock-file)');
    expect(agent.stderr).not.toMatch(READY);
  });

  it('a lock file in a missing directory: exit 1 with an error naming the path', async () => {
    const dir = workDir();
    const lock = join(dir, 'no-such-dir', 'agent.lock');
    const { agent, healthz } = await launch([`--lock-file=${lock}`], { dir });
    expect(await agent.waitForExit(10_000)).toEqual({ code: 1, signal: null });
    const errors = agent.lines().filter((l) => l.startsWith('E')).join('\n');
    expect(errors).toContain(lock);
    expect(errors).toMatch(/does not exist/);
    expect(agent.stderr).not.toMatch(/healthz server listening/);
    expect(await httpGet(healthz)).toEqual({ error: 'ECONNREFUSED' });
  });
});

describe('--runonce', () => {
  it('exits 0 without opening the health port', async () => {
    // If the agent tried to serve /healthz it would fail on this occupied port and exit 1.
    const busy = await occupyPort();
    const { agent } = await launch(['--runonce'], { healthzPort: busy });
    expect(await agent.waitForExit(10_000)).toEqual({ code: 0, signal: null });
    expect(agent.stderr).not.toMatch(/starting component|healthz server listening/);
    expect(agent.lines().filter((l) => l.startsWith('E'))).toEqual([]);
  });

  it('--runonce with --enable-server=true: exit 1 naming both options', async () => {
    const { agent } = await launch(['--runonce', '--enable-server=true'], { healthzPort: 0 });
    expect(await agent.waitForExit(10_000)).toEqual({ code: 1, signal: null });
    expect(agent.stderr).toMatch(/^Error: .*--runonce.*--enable-server/m);
    expect(agent.stderr).not.toMatch(/Starting agent/);
  });
});
