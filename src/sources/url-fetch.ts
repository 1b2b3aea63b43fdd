// Where the URL source (http.ts) polls: url-poll.ts's GET, bounded read, hash
// and parse of a new body. The poll runs in a worker thread of its own, kept
// while the source runs. On the event loop, reading a 9 MB body every 2 s (chunks, the hash, the
// join for the parse) left ~9 MB of garbage per poll, and its collections
// were the agent's longest stalls: 20-60 ms every 2 s, /healthz's p99
// (bench/sources.mjs). A worker started per poll cost more than it saved (a
// start per 1 s poll: ~30 % of a core), so it stays. Without the worker
// script (an unbuilt checkout) the poll runs inline, with the shared parser.
import { onAbort } from '../lifecycle/abort.js';
import { PARSE_TIMEOUT_MS, WORKER_HEAP_MB, type ManifestParser } from './parser.js';
import { fetchAndParse, type UrlFetchJob, type UrlFetchOutcome } from './url-poll.js';
import { createWorkerLane, findScript } from './worker-lane.js';

export type { UrlFetchJob, UrlFetchOutcome } from './url-poll.js';

export interface UrlFetcher {
  /** Never rejects; aborting `signal` ends the poll at once (its outcome is then of no use). */
  fetch(job: UrlFetchJob, signal: AbortSignal): Promise<UrlFetchOutcome>;
  /** Ends the worker. Idempotent. */
  close(): Promise<void>;
}

/** The worker's script: next to the bundle, next to tsc's output, or tsc's output when run from src/. */
export function urlWorkerScript(): URL | undefined {
  return findScript([new URL('./url-worker.cjs', import.meta.url), new URL('./url-worker.js', import.meta.url), new URL('../../dist/sources/url-worker.js', import.meta.url)]);
}

export interface UrlFetcherOptions {
  /** Parses bodies when the poll runs inline (no worker script). */
  readonly parser: ManifestParser;
  /** undefined: found next to this module; null: poll inline. */
  readonly workerScript?: URL | null;
}

export function createUrlFetcher(opts: UrlFetcherOptions): UrlFetcher {
  const script = opts.workerScript === undefined ? urlWorkerScript() : (opts.workerScript ?? undefined);
  if (script === undefined) {
    return {
      fetch: (job, signal) => fetchAndParse(job, signal, (body) => opts.parser.parse('url', body, { node: job.node, source: 'http', location: job.url, now: new Date(job.nowMs), sidecars: job.sidecars === true })).catch((e: unknown) => ({ error: String(e) })),
      close: () => Promise.resolve(),
    };
  }
  const lane = createWorkerLane<UrlFetchJob, UrlFetchOutcome>({ script, heapMb: WORKER_HEAP_MB, idleMs: Infinity });
  return {
    async fetch(job, signal) {
      // The source stops: end the poll with the worker (close() follows).
      let off = (): void => {};
      const stop = new Promise<UrlFetchOutcome>((resolve) => (off = onAbort(signal, () => resolve({ error: 'the agent is stopping' }))));
      const r = await Promise.race([lane.run(job, { deadlineMs: job.timeoutMs + PARSE_TIMEOUT_MS }), stop]).finally(off);
      if ('error' in r || 'digest' in r) return r;
      if ('out' in r) return r.out;
      switch (r.failed.reason) {
        case 'deadline':
          return { error: `no answer and parse within ${Math.round((job.timeoutMs + PARSE_TIMEOUT_MS) / 1000)} s` };
        case 'memory':
          return { error: `the body could not be parsed: parsing it needs more than ${WORKER_HEAP_MB} MB of memory` };
        case 'crashed':
          return { error: `the URL poll failed: ${r.failed.detail ?? 'unknown error'}` };
        default:
          return { error: 'the agent is stopping' };
      }
    },
    close: () => lane.close(),
  };
}
