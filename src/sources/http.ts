// The HTTP source (--manifest-url): a Pod or a PodList fetched every
// --http-check-frequency with the --manifest-url-header headers (repeated
// names sent in the order given). An unreachable URL, a status other than 200,
// an empty, oversized or bad body: the last good set stays in force and the
// reason is logged once, until it changes or the URL recovers.
//
// As the kubelet's: a body is read to at most 10 MB (the request is aborted
// past that), and a body identical to the last one is not parsed again. Large
// bodies are parsed off the event loop (parser.ts).
import { createHash } from 'node:crypto';
import type { Pod } from '../api/pod-types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { abortableSleep, isAbortError } from '../lifecycle/abort.js';
import type { AgentLogger } from '../log/index.js';
import { MAX_MANIFEST_BYTES } from './manifest.js';
import type { ManifestParser } from './parser.js';

export interface UrlSourceOptions {
  readonly url: string;
  /** --manifest-url-header: name → values, in the order given. */
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly node: string;
  /** --http-check-frequency. */
  readonly checkFrequencyMs: number;
  readonly log: AgentLogger;
  readonly parser: ManifestParser;
  /** Receives the complete set of the URL's pods after every successful fetch of a new body. Must not throw. */
  readonly onPods: (pods: Pod[]) => void;
  /** Per-request limit; the kubelet's HTTP client gives up after 10 s. */
  readonly requestTimeoutMs?: number;
  /** Body size limit; MAX_MANIFEST_BYTES (the kubelet's 10 MB) by default. */
  readonly maxBytes?: number;
  readonly now?: () => Date;
}

/** The headers as undici's flat [name, value, ...] list, which keeps repeated names and their order. */
export function headerList(headers: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(headers).flatMap(([name, values]) => values.flatMap((v) => [name, v]));
}

/** The body, or why there is none to parse. Reading stops (and the request is aborted) past `max` bytes. */
/** The body's digest, and the body itself joined only on demand: an unchanged body never is. */
type Fetched = { body: () => Buffer; digest: string } | { error: string };

class TooLarge extends Error {}

export function createUrlSource(opts: UrlSourceOptions): Component {
  const now = opts.now ?? (() => new Date());
  const timeout = opts.requestTimeoutMs ?? 10_000;
  const max = opts.maxBytes ?? MAX_MANIFEST_BYTES;
  const limitText = `${max / (1024 * 1024)} MB`;
  let lastError: string | undefined;
  /** The last body parsed and what it gave: the same bytes again need no parse, and its outcome stands. */
  let lastParsed: { digest: string; error: string | undefined } | undefined;

  async function fetchBody(signal: AbortSignal): Promise<Fetched> {
    const { request } = await import('undici');
    // Our own controller: aborting it is how a body past the limit ends the request.
    const ac = new AbortController();
    const res = await request(opts.url, {
      method: 'GET',
      headers: headerList(opts.headers),
      signal: AbortSignal.any([signal, ac.signal, AbortSignal.timeout(timeout)]),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    if (res.statusCode !== 200) {
      await res.body.dump().catch(() => undefined);
      return { error: `HTTP status ${res.statusCode}` };
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      ac.abort(new TooLarge());
      await res.body.dump().catch(() => undefined);
      return { error: `the response body is larger than the ${limitText} limit (Content-Length ${declared}); request aborted` };
    }
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > max) throw new TooLarge();
        hash.update(chunk);
        chunks.push(chunk);
      }
    } catch (e) {
      if (!(e instanceof TooLarge)) throw e;
      ac.abort(e);
      res.body.destroy();
      return { error: `the response body is larger than the ${limitText} limit; request aborted` };
    }
    if (total === 0) return { error: 'zero-length response body' };
    // Joining 9 MB at every poll was a 9 MB allocation and, every few polls, a
    // full garbage collection on the event loop (~30-50 ms, bench/sources.mjs).
    return { body: () => Buffer.concat(chunks, total), digest: hash.digest('hex') };
  }

  async function fetchOnce(signal: AbortSignal): Promise<void> {
    let error: string | undefined;
    try {
      const got = await fetchBody(signal);
      if ('error' in got) error = got.error;
      else if (got.digest === lastParsed?.digest) {
        // The same bytes as last time: the same pods, already handed on, or the same problem.
        error = lastParsed.error;
      } else {
        const parsed = await opts.parser.parse('url', got.body(), { node: opts.node, source: 'http', location: opts.url, now: now() });
        if (signal.aborted) return;
        if (parsed.ok) opts.onPods(parsed.pods);
        else error = parsed.error;
        lastParsed = { digest: got.digest, error };
      }
    } catch (e) {
      if (signal.aborted) return;
      error = isAbortError(e) || (e as Error).name === 'TimeoutError' ? `no answer within ${timeout} ms` : describe(e);
    }
    if (error !== undefined && error !== lastError) opts.log.error('Could not read pods from the manifest URL; keeping the last pods it gave', { url: opts.url, err: error });
    if (error === undefined && lastError !== undefined) opts.log.info('Manifest URL is readable again', { url: opts.url });
    lastError = error;
  }

  return defineComponent('http-source', async (signal, markReady) => {
    await fetchOnce(signal);
    markReady();
    while (!signal.aborted) {
      try {
        await abortableSleep(opts.checkFrequencyMs, signal);
      } catch {
        return;
      }
      await fetchOnce(signal);
    }
  });
}

function describe(e: unknown): string {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.cause?.code ?? err.code;
  const message = err.cause?.message ?? err.message ?? String(e);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
