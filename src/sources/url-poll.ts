// One poll of the URL source, as its worker thread (url-worker.ts) or, without
// it, the event loop runs it (see url-fetch.ts): GET the manifest URL, read the
// body to at most 10 MB (the request is aborted past it), hash it, and parse
// it unless it is the body parsed last time.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { sendHttp } from '../util/http-send.js';
import type { ManifestResult } from './manifest.js';

/** One poll, as the worker gets it. */
export interface UrlFetchJob {
  readonly url: string;
  /** A flat [name, value, ...] list (Node's raw header form), which keeps repeated names and their order. */
  readonly headers: readonly string[];
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** The digest of the body parsed last: the same bytes again are not parsed. */
  readonly lastDigest: string | undefined;
  readonly node: string;
  readonly nowMs: number;
  /** The SidecarContainers gate, for validation. */
  readonly sidecars?: boolean;
}

/** What one poll gave: why there is no body, the same body as last time, or a new body's parse. */
export type UrlFetchOutcome = { readonly error: string } | { readonly digest: string; readonly unchanged: true } | { readonly digest: string; readonly result: ManifestResult; readonly bytes: number };

class TooLarge extends Error {
  override name = 'TooLarge';
}

/**
 * The poll itself (in the worker, or inline): `parse` turns a new body into pods.
 * Errors become the outcome's `error`; an abort through `signal` rejects.
 */
export async function fetchAndParse(job: UrlFetchJob, signal: AbortSignal, parse: (body: Buffer) => Promise<ManifestResult> | ManifestResult): Promise<UrlFetchOutcome> {
  const limitText = `${job.maxBytes / (1024 * 1024)} MB`;
  // Our own controller: aborting it is how a body past the limit ends the request.
  // The timeout covers the whole poll, answer and body.
  const ac = new AbortController();
  let res: IncomingMessage;
  try {
    res = await get(job, AbortSignal.any([signal, ac.signal, AbortSignal.timeout(job.timeoutMs)]));
  } catch (e) {
    return failure(e, job, signal);
  }
  if (res.statusCode !== 200) {
    res.destroy();
    return { error: `HTTP status ${res.statusCode}` };
  }
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > job.maxBytes) {
    ac.abort(new TooLarge());
    res.destroy();
    return { error: `the response body is larger than the ${limitText} limit (Content-Length ${declared}); request aborted` };
  }
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > job.maxBytes) throw new TooLarge();
      hash.update(chunk);
      chunks.push(chunk);
    }
  } catch (e) {
    if (!(e instanceof TooLarge)) return failure(e, job, signal);
    ac.abort(e);
    res.destroy();
    return { error: `the response body is larger than the ${limitText} limit; request aborted` };
  }
  if (total === 0) return { error: 'zero-length response body' };
  const digest = hash.digest('hex');
  // The same bytes as last time: the same pods, already handed on, or the same problem.
  if (digest === job.lastDigest) return { digest, unchanged: true };
  return { digest, result: await parse(Buffer.concat(chunks, total)), bytes: total };
}

/** The GET, through Node's global agent (keep-alive), resolving at the answer's head. */
function get(job: UrlFetchJob, signal: AbortSignal): Promise<IncomingMessage> {
  const url = new URL(job.url);
  // Given its headers as a list, Node adds no Host of its own.
  const hasHost = job.headers.some((h, i) => i % 2 === 0 && h.toLowerCase() === 'host');
  const headers = hasHost ? [...job.headers] : ['Host', url.host, ...job.headers];
  return sendHttp(url, { method: 'GET', headers, signal });
}

function failure(e: unknown, job: UrlFetchJob, signal: AbortSignal): { error: string } {
  if (signal.aborted) throw e;
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return { error: `no answer within ${job.timeoutMs} ms` };
  const code = err.cause?.code ?? err.code;
  const message = err.cause?.message ?? err.message ?? String(e);
  return { error: code && !message.includes(code) ? `${code}: ${message}` : message };
}

