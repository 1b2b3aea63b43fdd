// The HTTP source (--manifest-url): a Pod or a PodList fetched every
// --http-check-frequency with the --manifest-url-header headers (repeated
// names sent in the order given). An unreachable URL, a status other than 200,
// an empty or bad body: the last good set stays in force and the reason is
// logged once, until it changes or the URL recovers.
import type { Pod } from '../api/pod-types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { abortableSleep, isAbortError } from '../lifecycle/abort.js';
import type { AgentLogger } from '../log/index.js';
import { podsFromUrlBody } from './manifest.js';

export interface UrlSourceOptions {
  readonly url: string;
  /** --manifest-url-header: name → values, in the order given. */
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly node: string;
  /** --http-check-frequency. */
  readonly checkFrequencyMs: number;
  readonly log: AgentLogger;
  /** Receives the complete set of the URL's pods after every successful fetch. Must not throw. */
  readonly onPods: (pods: Pod[]) => void;
  /** Per-request limit; the kubelet's HTTP client gives up after 10 s. */
  readonly requestTimeoutMs?: number;
  readonly now?: () => Date;
}

/** The headers as undici's flat [name, value, ...] list, which keeps repeated names and their order. */
export function headerList(headers: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(headers).flatMap(([name, values]) => values.flatMap((v) => [name, v]));
}

export function createUrlSource(opts: UrlSourceOptions): Component {
  const now = opts.now ?? (() => new Date());
  const timeout = opts.requestTimeoutMs ?? 10_000;
  let lastError: string | undefined;

  async function fetchOnce(signal: AbortSignal): Promise<void> {
    const { request } = await import('undici');
    let error: string | undefined;
    try {
      const res = await request(opts.url, {
        method: 'GET',
        headers: headerList(opts.headers),
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeout)]),
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      const body = await res.body.text();
      if (res.statusCode !== 200) error = `HTTP status ${res.statusCode}`;
      else if (body.length === 0) error = 'zero-length response body';
      else {
        const parsed = podsFromUrlBody(body, { node: opts.node, source: 'http', location: opts.url, now: now() });
        if (parsed.ok) {
          if (!signal.aborted) opts.onPods(parsed.pods);
        } else error = parsed.error;
      }
    } catch (e) {
      if (signal.aborted) return;
      error = isAbortError(e) ? `no answer within ${timeout} ms` : describe(e);
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
