// Where manifests are parsed. A small manifest (every real one: a few KB) is
// parsed inline, which costs well under a millisecond. A large one goes to a
// worker thread: the yaml package needs ~2 s and hundreds of MB for a 1 MB
// malformed file, and on the event loop that stalls /healthz and every pod
// worker. The worker has a heap cap and a deadline, so a manifest built to
// exhaust either fails on its own; it is ended when idle, so the memory a
// large parse took goes back to the system.
//
// Callers: the file and URL sources, one call per changed file or body. Jobs
// run one at a time in arrival order; parse() never rejects.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AgentLogger } from '../log/index.js';
import { parseManifest, type ManifestContext, type ManifestKind, type ManifestResult } from './manifest.js';

/** Inputs up to this size are parsed inline: ~16 KB of YAML parse in ~10 ms. */
export const INLINE_MAX_BYTES = 16 * 1024;
/** A parse still running after this is ended and its manifest refused. */
export const PARSE_TIMEOUT_MS = 30_000;
/** The worker is ended after this long without work. */
export const WORKER_IDLE_MS = 1_000;
/** The worker's old-generation heap: a manifest that needs more is refused. */
export const WORKER_HEAP_MB = 512;

export interface WorkerJob {
  readonly id: number;
  readonly kind: ManifestKind;
  readonly bytes: Uint8Array;
  readonly ctx: Omit<ManifestContext, 'now'> & { readonly nowMs: number };
}

export interface WorkerReply {
  readonly id: number;
  readonly result: ManifestResult;
}

export interface ManifestParser {
  /** The manifest's pods, or why not; never rejects. `bytes` (and the memory under it) may be transferred to the worker: do not reuse it. */
  parse(kind: ManifestKind, bytes: Buffer, ctx: ManifestContext): Promise<ManifestResult>;
  /** Whether a manifest of this size is parsed in the worker (and may take a while), not inline. */
  offThread(byteLength: number): boolean;
  /** Ends the worker; parses still queued resolve with an error. Idempotent. */
  close(): Promise<void>;
}

export interface ManifestParserOptions {
  readonly log: AgentLogger;
  /** The worker's script; undefined: found next to this module (see workerScript()); null: parse everything inline. */
  readonly workerScript?: URL | null;
  readonly inlineMaxBytes?: number;
  readonly timeoutMs?: number;
  readonly idleMs?: number;
  readonly heapMb?: number;
}

/**
 * The worker's script: next to the bundle (dist/bundle/manifest-worker.cjs),
 * next to tsc's output (dist/sources/parse-worker.js), or, when this module
 * runs from src/ (vitest), tsc's output in dist/.
 */
export function workerScript(): URL | undefined {
  const candidates = [new URL('./manifest-worker.cjs', import.meta.url), new URL('./parse-worker.js', import.meta.url), new URL('../../dist/sources/parse-worker.js', import.meta.url)];
  return candidates.find((u) => u.protocol === 'file:' && existsSync(fileURLToPath(u)));
}

interface Pending {
  readonly job: WorkerJob;
  readonly transfer: ArrayBuffer[];
  readonly resolve: (r: ManifestResult) => void;
}

const failed = (error: string): ManifestResult => ({ ok: false, error });

export function createManifestParser(opts: ManifestParserOptions): ManifestParser {
  const inlineMax = opts.inlineMaxBytes ?? INLINE_MAX_BYTES;
  const timeoutMs = opts.timeoutMs ?? PARSE_TIMEOUT_MS;
  const idleMs = opts.idleMs ?? WORKER_IDLE_MS;
  const heapMb = opts.heapMb ?? WORKER_HEAP_MB;
  const script = opts.workerScript === undefined ? workerScript() : (opts.workerScript ?? undefined);
  if (script === undefined && opts.workerScript !== null) {
    opts.log.warn('The manifest parser worker script is missing (run `npm run build`); large manifests are parsed on the main thread');
  }
  const queue: Pending[] = [];
  let worker: Worker | undefined;
  let current: { pending: Pending; timer: NodeJS.Timeout } | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let nextId = 1;
  let closed = false;

  function finish(result: ManifestResult): void {
    if (!current) return;
    clearTimeout(current.timer);
    const { resolve } = current.pending;
    current = undefined;
    resolve(result);
    pump();
  }

  /** Ends the worker (it is recreated for the next job). */
  function stopWorker(): void {
    const w = worker;
    worker = undefined;
    clearTimeout(idleTimer);
    idleTimer = undefined;
    if (w) void w.terminate();
  }

  function startWorker(url: URL): Worker {
    const w = new Worker(url, {
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      // The agent's own flags (--max-opt, --expose-gc) are not the worker's business.
      execArgv: [],
      stdout: false,
      stderr: false,
    });
    // An idle worker must not keep the process alive; the agent's own loop does.
    w.unref();
    w.on('message', (reply: WorkerReply) => {
      if (current?.pending.job.id === reply.id) finish(reply.result);
    });
    w.on('error', (e: Error & { code?: string }) => {
      if (worker === w) worker = undefined;
      const why = e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `parsing it needs more than ${heapMb} MB of memory` : `the parser failed: ${e.message}`;
      finish(failed(`the manifest could not be parsed: ${why}`));
    });
    w.on('exit', () => {
      if (worker === w) worker = undefined;
      // An exit with a job in flight and no error event (killed from outside): fail the job, not the caller.
      if (current && worker === undefined) finish(failed('the manifest could not be parsed: the parser thread exited'));
    });
    return w;
  }

  function pump(): void {
    if (current || closed) return;
    const pending = queue.shift();
    if (!pending) {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(stopWorker, idleMs);
      idleTimer.unref();
      return;
    }
    clearTimeout(idleTimer);
    worker ??= startWorker(script!);
    const timer = setTimeout(() => {
      stopWorker();
      finish(failed(`the manifest could not be parsed within ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    timer.unref();
    current = { pending, timer };
    worker.postMessage(pending.job, pending.transfer);
  }

  const offThread = (byteLength: number): boolean => byteLength > inlineMax && script !== undefined;
  return {
    offThread,
    parse(kind, bytes, ctx) {
      if (closed) return Promise.resolve(failed('the agent is stopping'));
      if (!offThread(bytes.byteLength)) return Promise.resolve(parseManifest(kind, bytes.toString('utf8'), ctx));
      // Hand the bytes over without a copy unless they sit in Node's shared pool of
      // small buffers (its slabs are Buffer.poolSize bytes; larger buffers get memory of
      // their own, which the caller gives up by the contract above).
      const own = bytes.buffer instanceof ArrayBuffer && bytes.buffer.byteLength > Buffer.poolSize;
      const view = own ? bytes : Buffer.from(bytes);
      const job: WorkerJob = { id: nextId++, kind, bytes: view, ctx: { node: ctx.node, source: ctx.source, location: ctx.location, nowMs: ctx.now.getTime() } };
      return new Promise<ManifestResult>((resolve) => {
        queue.push({ job, transfer: [view.buffer as ArrayBuffer], resolve });
        pump();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const p of queue.splice(0)) p.resolve(failed('the agent is stopping'));
      if (current) finish(failed('the agent is stopping'));
      const w = worker;
      worker = undefined;
      clearTimeout(idleTimer);
      if (w) await w.terminate();
    },
  };
}
