// --request-timeout for everything but long-running requests (watches,
// proxy, exec, attach, port-forward, logs), shortened by a `timeout` query
// parameter as upstream allows. When it passes the request's signal aborts
// (the handler stops) and the client gets 504 Timeout if nothing was sent yet.
// The timer is cleared when the request ends, whichever comes first.
import { ApiError, apiErrors } from '../../../api/errors.js';
import { parseDuration } from '../../../config/values/duration.js';
import type { RequestInfo } from '../../types.js';
import type { Filter } from '../context.js';
import { writeStatus } from '../status.js';

const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunning(info: RequestInfo): boolean {
  return LONG_RUNNING_VERBS.has(info.verb) || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}

/** The deadline of one request: the `timeout` parameter when shorter than the server's. Throws 400 for a bad parameter. */
export function requestDeadlineMs(query: URLSearchParams, serverTimeoutMs: number): number {
  const given = query.get('timeout');
  if (given === null || given === '') return serverTimeoutMs;
  let ms: number;
  try {
    ms = parseDuration(given);
  } catch (e) {
    throw apiErrors.badRequest(`invalid timeout specified in the request URL: ${(e as Error).message}`);
  }
  if (ms <= 0) throw apiErrors.badRequest(`invalid timeout specified in the request URL: the timeout must be a positive value: ${given}`);
  return Math.min(ms, serverTimeoutMs);
}

export const timeoutError = (): ApiError => new ApiError(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout', { details: {} });

export function withTimeout(serverTimeoutMs: number): Filter {
  return async (ctx, next) => {
    if (isLongRunning(ctx.info)) return next();
    const ms = requestDeadlineMs(ctx.url.searchParams, serverTimeoutMs);
    const timer = setTimeout(() => {
      const err = timeoutError();
      ctx.abort.abort(err);
      writeStatus(ctx.res, err);
    }, ms);
    try {
      await next();
    } finally {
      clearTimeout(timer);
    }
  };
}
