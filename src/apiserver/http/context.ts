// One request as the filters of the pipeline see it, and how filters chain.
// A filter is `(ctx, next) => Promise<void>`: it may answer itself (throw an
// ApiError, which the recovery filter writes as a Status) or call next() once.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentLogger } from '../../log/index.js';
import type { RequestInfo, UserInfo } from '../types.js';

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Random id, sent back as the `Audit-Id` header and logged. */
  readonly id: string;
  readonly url: URL;
  readonly info: RequestInfo;
  /** Set by the authentication filter. */
  user: UserInfo | undefined;
  /**
   * Aborted when the client goes away, the request times out or the server
   * stops; its signal is the handler's `ApiRequest.signal` (a watch ends on it).
   */
  readonly abort: AbortController;
  /** Reads the body once (the body-limit filter bounds it). */
  body: () => Promise<Buffer>;
  readonly log: AgentLogger;
  /** Monotonic start, for the latency in the request log line. */
  readonly startedNs: bigint;
}

export type Next = () => Promise<void>;
export type Filter = (ctx: RequestContext, next: Next) => Promise<void>;
export type Endpoint = (ctx: RequestContext) => Promise<void>;

/** `filters[0]` runs first and wraps all the others; `endpoint` runs last. */
export function compose(filters: readonly Filter[], endpoint: Endpoint): Endpoint {
  return filters.reduceRight<Endpoint>((inner, filter) => (ctx) => filter(ctx, () => inner(ctx)), endpoint);
}

/** The request URL; a path that starts with `//` stays a path (it is not read as a host). */
export function requestUrl(req: IncomingMessage): URL {
  const raw = req.url ?? '/';
  return new URL(`https://apiserver${raw.startsWith('/') ? raw : `/${raw}`}`);
}
