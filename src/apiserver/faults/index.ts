// Test-only fault injection for platform-apiserver (issue 16, item 8): drop
// every open watch, compact the history now, delay responses, fail the next N
// requests with a given status. It exists only when the process starts with
// PLATFORM_APISERVER_TEST_FAULTS=1 in its environment — no flag, no config
// field, nothing in --help — so a normal start cannot reach it. Requests go
// through authentication and authorization like any other (system:masters).
//
//   POST /debug/faults/drop-watches              every watch stream ends now
//   POST /debug/faults/compact                   history up to the current revision is gone
//   POST /debug/faults/delay   {"ms":N,"count":K} the next K API requests (default all) wait N ms
//   POST /debug/faults/fail    {"code":C,"count":K,"retryAfterSeconds":S} the next K requests fail
//   POST /debug/faults/reset                     no delay, no failures
//   POST /debug/faults/heap                      process.memoryUsage() after a full GC (with --expose-gc), for bench/
import type { ServerResponse } from 'node:http';
import { ApiError, apiErrors } from '../../api/errors.js';
import { forgetHistory } from '../registry/watch-cache.js';
import type { Storage } from '../storage/interface.js';
import type { ApiRequest } from '../types.js';

export const FAULTS_ENV = 'PLATFORM_APISERVER_TEST_FAULTS';
export const FAULTS_PREFIX = '/debug/faults/';

export interface Faults {
  /** Answers a request under /debug/faults/; false for any other path. */
  route(req: ApiRequest, res: ServerResponse): Promise<boolean>;
  /** Before each other API request: waits an injected delay, throws an injected failure. */
  before(signal: AbortSignal): Promise<void>;
  /** Aborts when the watches are dropped; a fresh signal after each drop. */
  watchSignal(): AbortSignal;
}

export function faultsEnabled(env: NodeJS.ProcessEnv): boolean {
  return env[FAULTS_ENV] === '1';
}

const REASONS: Readonly<Record<number, string>> = { 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout', 409: 'Conflict', 410: 'Expired' };

export function createFaults(storage: Storage): Faults {
  let dropWatches = new AbortController();
  let delay = { ms: 0, count: Infinity };
  let fail: { code: number; count: number; retryAfterSeconds: number | undefined } | undefined;
  const ok = (res: ServerResponse, body: object): void => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  return {
    async route(req, res) {
      const path = req.info.path;
      if (!path.startsWith(FAULTS_PREFIX)) return false;
      if (req.method !== 'POST') throw apiErrors.methodNotSupported({ group: '', resource: 'faults' }, req.method.toLowerCase());
      const action = path.slice(FAULTS_PREFIX.length);
      const body = await jsonBody(req);
      switch (action) {
        case 'drop-watches':
          dropWatches.abort(new Error('watches dropped by fault injection'));
          dropWatches = new AbortController();
          ok(res, { dropped: true });
          return true;
        case 'compact': {
          const revision = await storage.currentRevision();
          await storage.compact(revision);
          // The shared watches' own bounded history goes too: a watch from before `revision` gets storage's 410.
          forgetHistory(storage, revision);
          ok(res, { compacted: revision });
          return true;
        }
        case 'delay':
          delay = { ms: num(body.ms, 'ms'), count: body.count === undefined ? Infinity : num(body.count, 'count') };
          ok(res, delay);
          return true;
        case 'fail':
          fail = { code: num(body.code, 'code'), count: body.count === undefined ? 1 : num(body.count, 'count'), retryAfterSeconds: body.retryAfterSeconds === undefined ? undefined : num(body.retryAfterSeconds, 'retryAfterSeconds') };
          ok(res, fail);
          return true;
        case 'heap': {
          const gc = (globalThis as { gc?: () => void }).gc;
          gc?.();
          ok(res, { ...process.memoryUsage(), gc: gc !== undefined });
          return true;
        }
        case 'reset':
          delay = { ms: 0, count: Infinity };
          fail = undefined;
          ok(res, { reset: true });
          return true;
        default:
          throw new ApiError(404, 'NotFound', `no fault ${JSON.stringify(action)}: drop-watches, compact, delay, fail, reset, heap`);
      }
    },
    async before(signal) {
      if (delay.ms > 0 && delay.count > 0) {
        delay.count--;
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, delay.ms);
          function done(): void {
            clearTimeout(t);
            signal.removeEventListener('abort', done);
            resolve();
          }
          signal.addEventListener('abort', done, { once: true });
        });
      }
      if (fail !== undefined && fail.count > 0) {
        fail.count--;
        const { code, retryAfterSeconds } = fail;
        if (fail.count === 0) fail = undefined;
        throw new ApiError(code, REASONS[code] ?? 'InternalError', `injected failure ${code}`, {
          ...(retryAfterSeconds === undefined ? {} : { details: { retryAfterSeconds }, headers: { 'retry-after': String(retryAfterSeconds) } }),
        });
      }
    },
    watchSignal: () => dropWatches.signal,
  };
}

async function jsonBody(req: ApiRequest): Promise<Record<string, unknown>> {
  const bytes = await req.body();
  if (bytes.length === 0) return {};
  try {
    const v: unknown = JSON.parse(bytes.toString('utf8'));
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through to the 400 below
  }
  throw apiErrors.badRequest('fault injection: the body must be a JSON object');
}

function num(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw apiErrors.badRequest(`fault injection: ${field} must be a non-negative number`);
  return v;
}
