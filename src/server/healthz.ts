// The local health endpoint (--healthz-bind-address / --healthz-port): the
// answers are healthz-http.ts's. It runs on a worker thread of its own
// (healthz-worker.ts) so that probes and the sync loop never wait for each
// other; the checks still run here, on the agent's thread, whenever the
// worker's copy of their verdicts is older than `maxVerdictAgeMs`. Where the
// worker's script is missing (a partial install) it serves on this thread.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { AgentError } from '../errors.js';
import { waitForAbort } from '../lifecycle/abort.js';
import { defineComponent, type Component, type LifecycleLog } from '../lifecycle/component.js';
import type { LivenessRegistry } from '../lifecycle/liveness.js';
import { findScript } from '../util/worker-script.js';
import { handleHealthz } from './healthz-http.js';
import type { FromHealthzWorker, HealthzWorkerData, ToHealthzWorker } from './healthz-protocol.js';
import { hostPort, listen, listeningAddress } from './http/listen.js';

/** The checks are time thresholds of minutes: a verdict this old answers a probe as well as a fresh one. */
export const DEFAULT_MAX_VERDICT_AGE_MS = 50;
/** How long a stop waits for the worker to close its connections before ending it. */
const WORKER_CLOSE_MS = 2_000;

export interface HealthzServerOptions {
  /** `0.0.0.0`, `::` or empty bind every interface and address family. */
  address: string;
  /** 0 disables the server (the component then only waits for its stop signal). */
  port: number;
  liveness: LivenessRegistry;
  log: LifecycleLog;
  /** How old the worker's verdicts may be (default DEFAULT_MAX_VERDICT_AGE_MS; 0: every request asks). */
  maxVerdictAgeMs?: number;
  /** Serve on the agent's thread even when the worker's script exists. */
  inThread?: boolean;
}

export interface HealthzServer extends Component {
  /** Where it listens, once ready; undefined when disabled or stopped. */
  address(): AddressInfo | undefined;
}

/** The worker's script: next to the bundle, next to tsc's output, or tsc's output when running from src/. */
export function healthzWorkerScript(): URL | undefined {
  return findScript([new URL('./healthz-worker.cjs', import.meta.url), new URL('./healthz-worker.js', import.meta.url), new URL('../../dist/server/healthz-worker.js', import.meta.url)]);
}

/**
 * Creates the healthz component. `ready` resolves once listening (at once when
 * the port is 0); a failed bind (e.g. EADDRINUSE) rejects `ready` and `run()`
 * with an ESTARTUP AgentError naming address:port. On abort the listener and
 * every connection, keep-alive ones included, are closed (and the worker has
 * ended) before run() resolves.
 */
export function createHealthzServer(opts: HealthzServerOptions): HealthzServer {
  let where: AddressInfo | undefined;
  const component = defineComponent('healthz', async (signal, markReady) => {
    if (opts.port === 0) {
      markReady();
      await waitForAbort(signal);
      return;
    }
    const script = opts.inThread === true ? undefined : healthzWorkerScript();
    const listening = (a: AddressInfo | undefined): void => {
      where = a;
      opts.log.info('healthz server listening', { address: hostPort(opts.address, opts.port), thread: script === undefined ? 'agent' : 'worker' });
      markReady();
    };
    try {
      if (script === undefined) await serveInThread(opts, listening, signal);
      else await serveInWorker(opts, script, listening, signal);
    } finally {
      where = undefined;
    }
  });
  return {
    name: component.name,
    ready: component.ready,
    run: (signal) => component.run(signal),
    address: () => where,
  };
}

function startupError(opts: HealthzServerOptions, message: string, cause?: unknown): AgentError {
  return new AgentError('ESTARTUP', `healthz server cannot listen on ${hostPort(opts.address, opts.port)}: ${message}`, cause === undefined ? {} : { cause });
}

async function serveInThread(opts: HealthzServerOptions, listening: (a: AddressInfo | undefined) => void, signal: AbortSignal): Promise<void> {
  const s: Server = createServer((req, res) => handleHealthz(req, res, opts.liveness, opts.log));
  try {
    await listen(s, opts.address, opts.port);
  } catch (err) {
    throw startupError(opts, (err as Error).message, err);
  }
  s.on('error', (err) => opts.log.error('healthz server error', { address: hostPort(opts.address, opts.port), error: err.message }));
  listening(listeningAddress(s));
  try {
    await waitForAbort(signal);
  } finally {
    await new Promise<void>((resolve) => {
      s.close(() => resolve());
      // close() only stops accepting; idle keep-alive sockets would hold it open for up to keepAliveTimeout.
      s.closeAllConnections();
    });
  }
}

async function serveInWorker(opts: HealthzServerOptions, script: URL, listening: (a: AddressInfo | undefined) => void, signal: AbortSignal): Promise<void> {
  const data: HealthzWorkerData = { address: opts.address, port: opts.port, maxVerdictAgeMs: opts.maxVerdictAgeMs ?? DEFAULT_MAX_VERDICT_AGE_MS };
  const w = new Worker(script, {
    workerData: data,
    // The agent's own flags are not the worker's; its young generation is sized for a flood of
    // tiny requests (a 1 MB semi-space, the agent's, would collect every few hundred answers).
    execArgv: [],
    resourceLimits: { maxYoungGenerationSizeMb: 12, maxOldGenerationSizeMb: 32, stackSizeMb: 1 },
    stdout: false,
    stderr: false,
  });
  const post = (m: ToHealthzWorker): void => w.postMessage(m);
  const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
  let started = false;
  await new Promise<void>((resolve, reject) => {
    const stop = (): void => post({ kind: 'close' });
    w.on('message', (m: FromHealthzWorker) => {
      switch (m.kind) {
        case 'refresh':
          return post({ kind: 'verdicts', results: opts.liveness.check().results });
        case 'log':
          return opts.log.info(m.msg, m.fields);
        case 'listening':
          started = true;
          listening(m.address);
          if (signal.aborted) stop();
          else signal.addEventListener('abort', stop, { once: true });
          return;
        case 'listen-failed':
          return reject(startupError(opts, m.message));
        case 'closed':
          return resolve();
      }
    });
    w.on('error', (err) => reject(started ? new AgentError('EINTERNAL', `healthz worker failed: ${err.message}`, { cause: err }) : startupError(opts, err.message, err)));
    void exited.then(() => {
      if (!started) reject(startupError(opts, 'the worker ended before listening'));
      else if (signal.aborted) resolve();
      else reject(new AgentError('EINTERNAL', 'the healthz worker ended while the agent runs'));
    });
  }).finally(async () => {
    const timer = setTimeout(() => void w.terminate(), WORKER_CLOSE_MS);
    await exited;
    clearTimeout(timer);
  });
}
