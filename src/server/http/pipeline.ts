// The request pipeline of one node server: target check → route match →
// authentication → authorization → the route. Called by server.ts for every
// request and every Upgrade; never throws (each failure is a status code), and
// reports each request to the observer exactly once, when its connection or
// response is done.
import { setTimeout as delay } from 'node:timers/promises';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { AgentLogger } from '../../log/index.js';
import type { AuthnRequest, Authenticator, AuthzDecision, HttpObserver, Route, UserInfo } from '../types.js';
import type { LoadGovernor } from './governor.js';
import type { ServerLimits } from './limits.js';
import { certificatePresented, checkBody, matchRoute, parseTarget, upgradeKind } from './match.js';

export type ServerLog = Pick<AgentLogger, 'info' | 'error' | 'v'>;

export interface NodeAuth {
  readonly authenticator: Authenticator;
  authorize(r: { user: UserInfo; method: string; path: string }, signal: AbortSignal): Promise<AuthzDecision>;
}

export interface PipelineDeps {
  readonly server: 'main' | 'readOnly';
  /** Already filtered by visibleRoutes. */
  readonly routes: readonly Route[];
  readonly auth: NodeAuth | undefined;
  readonly limits: ServerLimits;
  readonly observer: HttpObserver | undefined;
  /** Holds requests while the agent's thread is saturated (governor.ts); undefined: never held. */
  readonly governor?: LoadGovernor | undefined;
  readonly log: ServerLog;
}

type Failure = { readonly status: number; readonly body: string; readonly headers?: Record<string, string> };
type Admitted = { readonly route: Route; readonly url: URL; readonly user: UserInfo | undefined };

/** What both plain requests and upgrades go through before their route; `path` is the observer's label. */
async function admit(
  d: PipelineDeps,
  req: IncomingMessage,
  signal: AbortSignal,
  label: { path: string },
): Promise<Admitted | Failure> {
  const target = parseTarget(req.url);
  if (!target.ok) return { status: 400, body: `${target.message}\n` };
  const method = req.method ?? 'GET';
  const m = matchRoute(d.routes, target.url.pathname, method);
  if (m.kind === 'notFound') return { status: 404, body: '404 page not found\n' };
  if (m.kind === 'methodNotAllowed') {
    label.path = m.path;
    return { status: 405, body: `method ${method} not allowed on ${m.path}\n`, headers: { Allow: m.allow.join(', ') } };
  }
  label.path = m.route.path;
  const body = checkBody(req.headers, d.limits.maxBodyBytes);
  // The unread body would otherwise be drained to keep the connection: close it instead.
  if (!body.ok) return { status: body.status, body: `${body.message}\n`, headers: { Connection: 'close' } };
  if (d.auth === undefined) return { route: m.route, url: target.url, user: undefined };
  let user: UserInfo;
  try {
    const r = await d.auth.authenticator.authenticate(authnRequest(req), signal);
    if (r.kind === 'unauthorized') {
      d.log.v(2)?.info('request not authenticated', { path: target.url.pathname, reason: r.reason });
      return { status: 401, body: 'Unauthorized\n' };
    }
    user = r.user;
  } catch (err) {
    d.log.error('authenticator failed', { path: target.url.pathname, error: (err as Error).message });
    return { status: 401, body: 'Unauthorized\n' };
  }
  try {
    const z = await d.auth.authorize({ user, method, path: target.url.pathname }, signal);
    if (!z.allowed) return { status: 403, body: `${z.reason}\n` };
  } catch (err) {
    d.log.error('authorizer failed', { path: target.url.pathname, user: user.name, error: (err as Error).message });
    return { status: 500, body: `Authorization error (user=${user.name}, path=${target.url.pathname})\n` };
  }
  return { route: m.route, url: target.url, user };
}

function authnRequest(req: IncomingMessage): AuthnRequest {
  const tls = req.socket as Partial<TLSSocket>;
  const header = req.headers.authorization;
  if (typeof tls.getPeerCertificate !== 'function') return { clientCertificate: undefined, clientCertificateError: undefined, authorization: header };
  const cert = tls.getPeerCertificate();
  if (!certificatePresented(cert)) return { clientCertificate: undefined, clientCertificateError: undefined, authorization: header };
  if (tls.authorized === true) return { clientCertificate: cert, clientCertificateError: undefined, authorization: header };
  const why = tls.authorizationError;
  return { clientCertificate: undefined, clientCertificateError: why === undefined ? 'certificate not verified' : String(why), authorization: header };
}

/** One plain request. Resolves when the route is done; the observer hears of it when the response closes. */
export async function serveRequest(d: PipelineDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = process.hrtime.bigint();
  const label = { path: 'other' };
  // Stop destroys every connection, so the close below is also how a stop reaches the route
  // (one listener per request on a shared stop signal would trip Node's listener-leak warning).
  const ac = new AbortController();
  // Once the route has returned nobody listens to the signal: aborting it then
  // would only build an AbortError (a DOMException with a stack trace) per
  // request, a measurable cost under a scrape flood.
  let settled = false;
  const hold = d.governor?.enter() ?? 0;
  res.once('close', () => {
    d.governor?.leave();
    if (!settled) ac.abort();
    observe(d, { method: req.method ?? 'GET', path: label.path, code: res.statusCode, started, upgrade: '' });
  });
  if (hold > 0) {
    try {
      await delay(hold, undefined, { signal: ac.signal });
    } catch {
      return; // the client left or the server stopped while the request was held
    }
  }
  const a = await admit(d, req, ac.signal, label);
  if ('status' in a) {
    settled = true;
    reply(res, a);
    return;
  }
  try {
    await a.route.handle({ req, res, url: a.url, user: a.user, signal: ac.signal });
    settled = true;
    if (!res.writableEnded && !res.destroyed) res.end();
  } catch (err) {
    // A route that fails because its client left or the server stopped is not an error worth a line.
    if (!ac.signal.aborted) d.log.error('request handler failed', { path: a.url.pathname, route: a.route.path, error: (err as Error).message });
    if (res.headersSent || res.destroyed) res.destroy();
    else reply(res, { status: 500, body: `Internal Error: ${(err as Error).message}\n` });
  }
}

/** One Upgrade request (SPDY, WebSocket). The observer hears of it when the socket closes. */
export async function serveUpgrade(d: PipelineDeps, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const started = process.hrtime.bigint();
  const label = { path: 'other' };
  const state = { code: 101 };
  const ac = new AbortController();
  const kind = upgradeKind(req.headers.upgrade);
  socket.once('close', () => {
    ac.abort();
    observe(d, { method: req.method ?? 'GET', path: label.path, code: state.code, started, upgrade: kind });
  });
  socket.on('error', () => socket.destroy());
  const a = await admit(d, req, ac.signal, label);
  const refuse = (f: Failure): void => {
    state.code = f.status;
    rawReply(socket, f);
  };
  if ('status' in a) return refuse(a);
  if (a.route.upgrade === undefined) return refuse({ status: 400, body: `${a.route.path} does not take an upgraded connection\n` });
  try {
    await a.route.upgrade({ req, socket, head, url: a.url, user: a.user, signal: ac.signal });
  } catch (err) {
    state.code = 500;
    if (!ac.signal.aborted) d.log.error('upgrade handler failed', { path: a.url.pathname, route: a.route.path, error: (err as Error).message });
    socket.destroy();
  }
}

function observe(d: PipelineDeps, r: { method: string; path: string; code: number; started: bigint; upgrade: string }): void {
  if (d.observer === undefined) return;
  const seconds = Number(process.hrtime.bigint() - r.started) / 1e9;
  try {
    d.observer.observe({ server: d.server, method: r.method, path: r.path, code: r.code, seconds, upgrade: r.upgrade });
  } catch (err) {
    d.log.error('http observer failed', { error: (err as Error).message });
  }
}

function reply(res: ServerResponse, f: Failure): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(f.status, {
    ...f.headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(f.body),
  });
  res.end(f.body);
}

function rawReply(socket: Duplex, f: Failure): void {
  if (socket.destroyed) return;
  const extra = Object.entries(f.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.end(
    `HTTP/1.1 ${f.status} ${STATUS_CODES[f.status] ?? ''}\r\n${extra}Content-Type: text/plain; charset=utf-8\r\n` +
      `X-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(f.body)}\r\nConnection: close\r\n\r\n${f.body}`,
  );
  // Node's HTTP sockets allow half-open: a client that never closes its side would keep this one until stop.
  const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}

/** How long a refused upgrade waits for the client to close after the answer. */
const REFUSED_LINGER_MS = 1000;
