// The HTTP source (--manifest-url): a Pod or a PodList fetched every
// --http-check-frequency with the --manifest-url-header headers (repeated
// names sent in the order given). An unreachable URL, a status other than 200,
// an empty, oversized or bad body: the last good set stays in force and the
// reason is logged once, until it changes or the URL recovers.
//
// As the kubelet's: a body is read to at most 10 MB (the request is aborted
// past that), and a body identical to the last one is not parsed again. Each
// poll runs off the event loop (url-fetch.ts).
import type { Pod } from '../pod-model/pod-types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { abortableSleep } from '../lifecycle/abort.js';
import type { AgentLogger } from '../log/index.js';
import { MAX_MANIFEST_BYTES } from './manifest.js';
import type { ManifestParser } from './parser.js';
import { createUrlFetcher, type UrlFetcher } from './url-fetch.js';

export interface UrlSourceOptions {
  readonly url: string;
  /** The URL as the log may show it (credentials redacted: config/redact.ts); `url` when not given. */
  readonly shownUrl?: string;
  /** --manifest-url-header: name → values, in the order given. */
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly node: string;
  /** The SidecarContainers gate (validation refuses sidecars without it). */
  readonly sidecars?: boolean;
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
  /** Makes the poller (the source closes it when it stops); by default a worker thread, or inline with `parser`. */
  readonly createFetcher?: () => UrlFetcher;
}

/** The headers as Node's flat [name, value, ...] raw list, which keeps repeated names and their order. */
function headerList(headers: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(headers).flatMap(([name, values]) => values.flatMap((v) => [name, v]));
}

export function createUrlSource(opts: UrlSourceOptions): Component {
  const now = opts.now ?? (() => new Date());
  const timeout = opts.requestTimeoutMs ?? 10_000;
  const max = opts.maxBytes ?? MAX_MANIFEST_BYTES;
  let lastError: string | undefined;
  /** The last body parsed and what it gave: the same bytes again need no parse, and its outcome stands. */
  let lastParsed: { digest: string; error: string | undefined } | undefined;
  const headers = headerList(opts.headers);
  const shown = opts.shownUrl ?? opts.url;

  async function fetchOnce(fetcher: UrlFetcher, signal: AbortSignal): Promise<void> {
    const got = await fetcher.fetch({ url: opts.url, headers, timeoutMs: timeout, maxBytes: max, lastDigest: lastParsed?.digest, node: opts.node, nowMs: now().getTime(), sidecars: opts.sidecars === true }, signal);
    if (signal.aborted) return;
    let error: string | undefined;
    if ('error' in got) error = got.error;
    else if ('unchanged' in got) error = lastParsed?.error;
    else {
      if (got.result.ok) opts.onPods(got.result.pods);
      else error = got.result.error;
      lastParsed = { digest: got.digest, error };
    }
    if (error !== undefined && error !== lastError) opts.log.error('Could not read pods from the manifest URL; keeping the last pods it gave', { url: shown, err: error });
    if (error === undefined && lastError !== undefined) opts.log.info('Manifest URL is readable again', { url: shown });
    lastError = error;
  }

  return defineComponent('http-source', async (signal, markReady) => {
    const fetcher = opts.createFetcher?.() ?? createUrlFetcher({ parser: opts.parser });
    try {
      await fetchOnce(fetcher, signal);
      markReady();
      while (!signal.aborted) {
        try {
          await abortableSleep(opts.checkFrequencyMs, signal);
        } catch {
          return;
        }
        await fetchOnce(fetcher, signal);
      }
    } finally {
      await fetcher.close();
    }
  });
}
