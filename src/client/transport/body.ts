// Response bodies: whole (requests) or as a stream of chunks (watches),
// gunzipped when the server compressed them (§4.7). A stream is owned by its
// caller from the moment stream() resolves: iterating it to the end, breaking
// out of the iteration, or close() each release the socket and the links to
// the caller's and the transport's signals.
import { pipeline, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createGunzip, gunzip } from 'node:zlib';
import { ClientConnectionError, ClientProtocolError, type RequestRef } from '../errors.js';
import type { TransportStream } from '../types.js';

const gunzipAsync = promisify(gunzip);

type Headers = Readonly<Record<string, string | string[] | undefined>>;

export const isGzip = (headers: Headers): boolean => {
  const v = headers['content-encoding'];
  return (Array.isArray(v) ? v.join(',') : (v ?? '')).toLowerCase().includes('gzip');
};

/** The body as it came off the wire; rejects as the socket does. */
export async function readRaw(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** The body gunzipped if need be; a broken gzip stream is a ClientProtocolError on `body`. */
export async function decodeBody(request: RequestRef, headers: Headers, raw: Buffer): Promise<Buffer> {
  if (!isGzip(headers) || raw.length === 0) return raw;
  try {
    return await gunzipAsync(raw);
  } catch (e) {
    throw new ClientProtocolError(request, 'body', `the gzip-encoded body does not decode: ${(e as Error).message}`, e);
  }
}

export interface StreamParts {
  readonly request: RequestRef;
  readonly status: number;
  readonly headers: Headers;
  readonly body: Readable;
  /** Aborts the HTTP exchange (ends the socket). */
  readonly abort: () => void;
  /** Detaches from the caller's and the transport's signals. */
  readonly unlink: () => void;
  /** What a failure of the body means when it was not our close(): the caller's abort reason, the transport's closing, or undefined for a reset. */
  readonly failureReason: () => unknown;
}

export function openStream(p: StreamParts): TransportStream {
  let closedByUs = false;
  let released = false;
  const source: Readable = isGzip(p.headers) ? pipeline(p.body, createGunzip(), () => {}) : p.body;
  const release = (): void => {
    if (released) return;
    released = true;
    p.unlink();
    p.abort();
    source.destroy();
    p.body.destroy();
  };
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of source) yield chunk as Buffer;
    } catch (e) {
      if (closedByUs) return;
      const reason = p.failureReason();
      if (reason !== undefined) throw reason;
      throw new ClientConnectionError(p.request, `the stream broke: ${(e as Error).message}`, e);
    } finally {
      release();
    }
  }
  return {
    status: p.status,
    headers: p.headers,
    body: chunks(),
    close: () => {
      closedByUs = true;
      release();
    },
  };
}
