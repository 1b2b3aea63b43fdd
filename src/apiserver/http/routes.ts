// The end of the pipeline: the health paths and /version are answered here;
// every other path goes to the injected handler (the registry's), with the
// request as an ApiRequest.
import type { ServerResponse } from 'node:http';
import { ApiError } from '../../api/errors.js';
import type { ApiRequest } from '../types.js';
import type { Endpoint, RequestContext } from './context.js';
import { serverVersion, type ServerVersion } from './version.js';

/**
 * Serves one authenticated, authorized request. Resolves when the response is
 * complete (a watch: when it ended, normally because `req.signal` aborted).
 * Throwing an ApiError before writing anything sends it as a Status.
 */
export type ApiHandler = (req: ApiRequest, res: ServerResponse) => Promise<void>;

/** The handler until the registry is wired in: every resource and discovery path is unknown. */
export const notFoundHandler: ApiHandler = () => Promise.reject(new ApiError(404, 'NotFound', 'the server could not find the requested resource', { details: {} }));

const HEALTH = new Set(['/healthz', '/livez', '/readyz']);

function sendText(res: ServerResponse, code: number, text: string, type = 'text/plain; charset=utf-8'): void {
  res.setHeader('Content-Type', type);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.writeHead(code);
  res.end(text);
}

export function toApiRequest(ctx: RequestContext): ApiRequest {
  if (ctx.user === undefined) throw new ApiError(500, 'InternalError', 'Internal error occurred: no user on an authorized request');
  return { info: ctx.info, user: ctx.user, method: ctx.req.method ?? 'GET', url: ctx.url, headers: ctx.req.headers, body: ctx.body, signal: ctx.abort.signal };
}

export function routes(handle: ApiHandler, version: ServerVersion = serverVersion()): Endpoint {
  const versionJson = JSON.stringify(version, null, 2);
  return async (ctx) => {
    const path = ctx.url.pathname;
    const method = ctx.req.method ?? 'GET';
    if (HEALTH.has(path) && (method === 'GET' || method === 'HEAD')) return sendText(ctx.res, 200, 'ok');
    if (path === '/version' && (method === 'GET' || method === 'HEAD')) return sendText(ctx.res, 200, versionJson, 'application/json');
    await handle(toApiRequest(ctx), ctx.res);
  };
}
