// A private etcd for tests: Debian's /usr/bin/etcd (package etcd-server,
// installed by packaging/local-runtime/install-deps.sh) on 127.0.0.1 with
// free client and peer ports and a temporary data directory. Started in a
// beforeAll, stopped (and its directory removed) in the afterAll; waited for
// by etcd's "ready to serve client requests" log line, then a bounded health
// check. Outside CI a machine without etcd skips the tests that need it
// (etcdUnavailable() says why); under CI=true they fail instead.

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './net.js';

export const ETCD_BINARY = process.env['ETCD_BINARY'] ?? '/usr/bin/etcd';

/** Why etcd cannot run here, or undefined when it can. */
export function etcdUnavailable(): string | undefined {
  try {
    accessSync(ETCD_BINARY, constants.X_OK);
    return undefined;
  } catch {
    return `${ETCD_BINARY} is not installed (Debian package etcd-server; .ci/run installs it)`;
  }
}

/** Whether a file's etcd tests skip themselves: only outside CI, and says so once. */
export function skipWithoutEtcd(what: string): boolean {
  const unavailable = etcdUnavailable();
  const skip = unavailable !== undefined && !process.env['CI'];
  if (skip) console.warn(`${what} tests skipped: ${unavailable}`);
  return skip;
}

export interface TestEtcd {
  /** http://127.0.0.1:<client port> */
  readonly endpoint: string;
  readonly dataDir: string;
  /** Stops the process (SIGTERM, then SIGKILL after 5 s), keeping the data: for outage tests. */
  kill(): Promise<void>;
  /** Starts it again after kill(), on the same ports and data. */
  restart(): Promise<void>;
  /** Stops etcd and removes its data directory. Idempotent. */
  stop(): Promise<void>;
}


const READY_LINE = 'ready to serve client requests';
const START_TIMEOUT_MS = 20_000;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function healthy(endpoint: string, deadline: number): Promise<void> {
  // Bounded: one request per ~100 ms until the deadline.
  for (let i = 0; Date.now() < deadline && i < 200; i++) {
    try {
      const r = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1_000) });
      const body = (await r.json()) as { health?: string };
      if (r.ok && body.health === 'true') return;
    } catch {
      // not up yet
    }
    await new Promise<void>((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`etcd at ${endpoint} did not become healthy`);
}

/** Starts one etcd member; rejects (after cleaning up) if it does not come up within 20 s. Tries fresh ports up to 3 times. */
export async function startEtcd(): Promise<TestEtcd> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce();
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

async function startOnce(): Promise<TestEtcd> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const dataDir = mkdtempSync(join(tmpdir(), 'etcd-test-'));
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name=test',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=test=${peer}`,
    '--initial-cluster-state=new',
  ];
  let child: ChildProcess | undefined;
  let removed = false;
  const kill = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (c === undefined) return;
    const done = exited(c);
    c.kill('SIGTERM');
    const timer = setTimeout(() => c.kill('SIGKILL'), 5_000);
    await done;
    clearTimeout(timer);
    c.stderr?.destroy();
  };
  const stop = async (): Promise<void> => {
    await kill();
    if (removed) return;
    removed = true;
    rmSync(dataDir, { recursive: true, force: true });
  };
  const launch = async (): Promise<void> => {
    const c = spawn(ETCD_BINARY, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = c;
    await ready(c, endpoint);
  };
  try {
    await launch();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    endpoint,
    dataDir,
    kill,
    restart: async () => {
      if (child !== undefined) throw new Error('etcd is running');
      try {
        await launch();
      } catch (err) {
        await kill();
        throw err;
      }
    },
    stop,
  };
}

/** Waits for etcd's ready line on stderr, then its health endpoint; rejects when it exits first or after START_TIMEOUT_MS. */
async function ready(child: ChildProcess, endpoint: string): Promise<void> {
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`etcd did not start within ${START_TIMEOUT_MS} ms:\n${log.slice(-2000)}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      log += chunk.toString();
      if (log.includes(READY_LINE)) finish();
    };
    const onExit = (code: number | null): void => finish(new Error(`etcd exited (${code}) before it was ready:\n${log.slice(-2000)}`));
    const onError = (err: Error): void => finish(err);
    function finish(err?: Error): void {
      clearTimeout(timer);
      child.stderr?.removeListener('data', onData);
      child.removeListener('exit', onExit);
      child.removeListener('error', onError);
      if (err) reject(err);
      else resolve();
    }
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
  // Keep draining etcd's log so it never blocks on a full pipe.
  child.stderr?.on('data', () => {});
  await healthy(endpoint, Date.now() + START_TIMEOUT_MS);
}
