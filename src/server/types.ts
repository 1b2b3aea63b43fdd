// Contracts of the node's HTTP surface (ports 10250 and 10255; 10248 is
// healthz.ts): who is asking (authentication), may they (authorization), and
// the routes that answer. The HTTP core (src/server/http/) owns listeners,
// limits and the request pipeline; each endpoint family is a set of Routes
// built by its own folder from the agent's state it reads; the composition
// root hands them all to the core. Nothing here does I/O.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PeerCertificate } from 'node:tls';

/** An authenticated subject, as the platform's user.Info. */
export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** What authentication sees of a request. */
export interface AuthnRequest {
  /** The verified client certificate (the TLS layer checked it against --client-ca-file); undefined when none was presented. */
  readonly clientCertificate: PeerCertificate | undefined;
  /** The TLS layer's verdict when a certificate was presented and did not verify (e.g. another CA): such a request is 401. */
  readonly clientCertificateError: string | undefined;
  /** The `Authorization` header as sent. */
  readonly authorization: string | undefined;
}

export type AuthnResult =
  | { readonly kind: 'user'; readonly user: UserInfo; readonly via: 'x509' | 'token' | 'anonymous' }
  /** 401: a presented credential was refused, or none was presented and anonymous access is off. `reason` goes to the log only. */
  | { readonly kind: 'unauthorized'; readonly reason: string };

/**
 * Decides who sent a request (x509 client certificate, then bearer token via
 * the token-review API, then anonymous), caching review answers. Never
 * throws: a review that fails (API down) is `unauthorized` with the reason.
 */
export interface Authenticator {
  authenticate(req: AuthnRequest, signal: AbortSignal): Promise<AuthnResult>;
}

/** The kubelet's authorization attributes of a request: the node as the resource. */
export interface RequestAttributes {
  readonly user: UserInfo;
  /** From the method: get, create, update, patch, delete (HEAD and OPTIONS: get). */
  readonly verb: string;
  readonly apiGroup: '';
  readonly apiVersion: 'v1';
  readonly resource: 'nodes';
  /** stats, metrics, log, spec, proxy, configz, pods, healthz (whole path segments). */
  readonly subresource: string;
  /** The node's name. */
  readonly name: string;
  /** The request path, for the log and the denial message. */
  readonly path: string;
}

export type AuthzDecision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/** AlwaysAllow, or Webhook (a SubjectAccessReview per distinct attributes, answers cached by verdict). Never throws: a failed review denies. */
export interface Authorizer {
  authorize(attrs: RequestAttributes, signal: AbortSignal): Promise<AuthzDecision>;
}

/** One request as a route handler sees it, after authentication and authorization passed. */
export interface RouteContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Parsed from req.url (percent-decoding already checked: a bad escape never reaches a route). */
  readonly url: URL;
  /** undefined on the read-only port (no authentication there). */
  readonly user: UserInfo | undefined;
  /** Aborted when the client goes away or the server stops. */
  readonly signal: AbortSignal;
}

/** An HTTP Upgrade (SPDY or WebSocket) for a route that streams: the socket is the route's once called. */
export interface UpgradeContext {
  readonly req: IncomingMessage;
  readonly socket: Duplex;
  readonly head: Buffer;
  readonly url: URL;
  readonly user: UserInfo | undefined;
  readonly signal: AbortSignal;
}

export interface Route {
  /** `/pods`, `/stats/`, `/containerLogs/`: matched on whole path segments (a prefix ending in `/` matches everything under it). */
  readonly path: string;
  /** Served on the read-only port too (healthz, pods, stats, metrics, spec). */
  readonly readOnly: boolean;
  /** Needs --enable-debugging-handlers (exec, attach, portForward, run, containerLogs, runningpods, logs, configz, cri). */
  readonly debugging: boolean;
  /** Methods answered (others: 405); HEAD is answered wherever GET is. */
  readonly methods: readonly string[];
  /** Writes the whole response; may stream (follow) until ctx.signal aborts. A throw becomes a 500 (logged once). */
  handle(ctx: RouteContext): Promise<void>;
  /** Streaming routes: takes over the upgraded connection. */
  upgrade?(ctx: UpgradeContext): Promise<void>;
}

/** One answered request, for the request metrics (the HTTP core calls it once per request, after the response ended or the upgrade closed). */
export interface HttpRequestRecord {
  readonly server: 'main' | 'readOnly';
  readonly method: string;
  /** The matched route's `path` (bounded cardinality), or 'other' for a 404. */
  readonly path: string;
  readonly code: number;
  readonly seconds: number;
  /** 'websocket' | 'spdy' for an upgraded request, '' otherwise. */
  readonly upgrade: string;
}

export interface HttpObserver {
  /** Must not throw or block. */
  observe(r: HttpRequestRecord): void;
}
