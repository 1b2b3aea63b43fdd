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
import type { AgentLogger } from '../log/index.js';
import { readAndParse, type FileParse } from './file-parse.js';
import { parseManifest, type ManifestContext, type ManifestKind, type ManifestResult } from './manifest.js';
import { createWorkerLane, findScript, type LaneFailure, type WorkerLane } from './worker-lane.js';

/** Inputs up to this size are parsed inline: ~16 KB of YAML parse in ~10 ms. */
const INLINE_MAX_BYTES = 16 * 1024;
/** A parse still running after this is ended and its manifest refused. */
export const PARSE_TIMEOUT_MS = 30_000;
/** The worker is ended after this long without work. */
const WORKER_IDLE_MS = 1_000;
/** The worker's old-generation heap: a manifest that needs more is refused. */
export const WORKER_HEAP_MB = 512;

type JobContext = Omit<ManifestContext, 'now'> & { readonly nowMs: number };

/** One parse, as the worker gets it: bytes, or a file it reads itself (to at most `maxBytes`). */
export type ParseJob = { readonly kind: ManifestKind; readonly bytes: Uint8Array; readonly ctx: JobContext } | { readonly file: string; readonly maxBytes: number; readonly ctx: JobContext };

export interface ManifestParser {
  /** The manifest's pods, or why not; never rejects. `bytes` (and the memory under it) may be transferred to the worker: do not reuse it. */
  parse(kind: ManifestKind, bytes: Buffer, ctx: ManifestContext): Promise<ManifestResult>;
  /**
   * Reads and parses a manifest file in the worker (inline without one): a
   * large file's bytes never reach the event loop. Never rejects.
   */
  parseFile(path: string, maxBytes: number, ctx: ManifestContext): Promise<FileParse>;
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
  return findScript([new URL('./manifest-worker.cjs', import.meta.url), new URL('./parse-worker.js', import.meta.url), new URL('../../dist/sources/parse-worker.js', import.meta.url)]);
}

const failed = (error: string): ManifestResult => ({ ok: false, error });
const jobContext = (ctx: ManifestContext): JobContext => ({ node: ctx.node, source: ctx.source, location: ctx.location, nowMs: ctx.now.getTime(), ...(ctx.sidecars ? { sidecars: true } : {}) });

export function createManifestParser(opts: ManifestParserOptions): ManifestParser {
  const inlineMax = opts.inlineMaxBytes ?? INLINE_MAX_BYTES;
  const timeoutMs = opts.timeoutMs ?? PARSE_TIMEOUT_MS;
  const idleMs = opts.idleMs ?? WORKER_IDLE_MS;
  const heapMb = opts.heapMb ?? WORKER_HEAP_MB;
  const script = opts.workerScript === undefined ? workerScript() : (opts.workerScript ?? undefined);
  if (script === undefined && opts.workerScript !== null) {
    opts.log.warn('The manifest parser worker script is missing (run `npm run build`); large manifests are parsed on the main thread');
  }
  let lane: WorkerLane<ParseJob, ManifestResult | FileParse> | undefined;
  let closed = false;
  const why = (f: LaneFailure): string => {
    switch (f.reason) {
      case 'deadline':
        return `the manifest could not be parsed within ${Math.round(timeoutMs / 1000)} s`;
      case 'memory':
        return `the manifest could not be parsed: parsing it needs more than ${heapMb} MB of memory`;
      case 'crashed':
        return `the manifest could not be parsed: the parser failed: ${f.detail ?? 'unknown error'}`;
      default:
        return 'the agent is stopping';
    }
  };

  const run = (job: ParseJob, transfer: ArrayBuffer[]) => {
    lane ??= createWorkerLane<ParseJob, ManifestResult | FileParse>({ script: script!, heapMb, idleMs });
    return lane.run(job, { transfer, deadlineMs: timeoutMs });
  };

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
      const job: ParseJob = { kind, bytes: view, ctx: jobContext(ctx) };
      return run(job, [view.buffer as ArrayBuffer]).then((r) => ('out' in r ? (r.out as ManifestResult) : failed(why(r.failed))));
    },
    parseFile(path, maxBytes, ctx) {
      if (closed) return Promise.resolve({ problem: 'the agent is stopping' });
      if (script === undefined) return Promise.resolve(readAndParse(path, maxBytes, ctx));
      const job: ParseJob = { file: path, maxBytes, ctx: jobContext(ctx) };
      // A failed parse is kept by the stamp it would have had: unknown here, so
      // the caller keeps it by its own (the listing's); the file is read again when that changes.
      return run(job, []).then((r) => ('out' in r ? (r.out as FileParse) : { problem: why(r.failed) }));
    },
    async close() {
      closed = true;
      await lane?.close();
    },
  };
}
