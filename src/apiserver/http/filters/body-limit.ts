// The request body limit (--max-resource-write-bytes, 3 MiB by default):
// a declared Content-Length over it is refused before anything is read; a
// body that grows past it while streaming fails `ctx.body()` with the same
// 413 RequestEntityTooLarge. `ctx.body()` reads at most once (later calls
// return the same promise) and stops when the request's signal aborts.
// A refused body is read to its end (up to a cap) BEFORE the 413 is sent:
// a client that asked for `Connection: close` would otherwise have its
// socket closed under it while still sending, and see EPIPE, not the 413.
import type { IncomingMessage } from 'node:http';
import { apiErrors } from '../../../api/errors.js';
import type { Filter } from '../context.js';

/** Reads the whole body, up to `limit` bytes (0: no limit). */
export function readBody(req: IncomingMessage, limit: number, signal: AbortSignal): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (limit > 0 && size > limit) {
        cleanup();
        void drain(req).then(() => reject(apiErrors.requestEntityTooLarge(limit)));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onAbort = (): void => {
      cleanup();
      reject(signal.reason);
    };
    if (signal.aborted) return reject(signal.reason);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** How much of a refused body is read and thrown away so the client, still sending, can read the 413. */
const DRAIN_CAP_BYTES = 32 << 20;

/**
 * Discards the rest of a refused body; resolves when it has all arrived (or
 * the request is gone). Past DRAIN_CAP_BYTES the connection is cut instead.
 * Never rejects.
 */
export function drain(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) {
    req.resume();
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    let seen = 0;
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_CAP_BYTES) req.destroy();
    });
    req.once('end', () => resolve());
    req.once('close', () => resolve());
    req.resume();
  });
}

export function withBodyLimit(limit: number): Filter {
  return async (ctx, next) => {
    const declared = Number(ctx.req.headers['content-length'] ?? '0');
    if (limit > 0 && Number.isFinite(declared) && declared > limit) {
      await drain(ctx.req);
      throw apiErrors.requestEntityTooLarge(limit);
    }
    let read: Promise<Buffer> | undefined;
    ctx.body = () => (read ??= readBody(ctx.req, limit, ctx.abort.signal));
    return next();
  };
}
