// Writing an error as a Status body. Every error the front produces before a
// handler runs (401, 403, 413, 500, 504) goes through writeStatus, so the
// integrator can route them through content negotiation in one place later.
import type { ServerResponse } from 'node:http';
import { ApiError, apiErrors, isApiError } from '../../api/errors.js';

/** Any thrown value as the ApiError to send: ApiErrors as they are, anything else as a 500 InternalError. */
export function toApiError(err: unknown): ApiError {
  return isApiError(err) ? err : apiErrors.internal(err);
}

/**
 * Sends `err` as a JSON Status with its code and headers. When the response
 * has already started (a watch stream) a Status can no longer be sent: the
 * response is cut off instead, so the client sees a broken stream and not a
 * truncated success. Never throws.
 */
export function writeStatus(res: ServerResponse, err: ApiError): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.destroy();
    return;
  }
  const body = JSON.stringify(err.status());
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.writeHead(err.code);
  res.end(body);
}
