// The main (10250, HTTPS, authenticated) and read-only (10255, plain HTTP)
// node servers as lifecycle Components. The composition root creates one per
// port and runs it under the supervisor; everything a request meets between
// the socket and its route lives here and in pipeline.ts.
import { createServer as createHttpServer, type Server as HttpServer, type ServerOptions } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createSecureContext, type SecureContextOptions, type TlsOptions } from 'node:tls';
import { AgentError } from '../../errors.js';
import { waitForAbort } from '../../lifecycle/abort.js';
import { defineComponent, type Component } from '../../lifecycle/component.js';
import type { HttpObserver, Route } from '../types.js';
import { ConnectionTracker } from './connections.js';
import type { LoadGovernor } from './governor.js';
import { resolveLimits, type ServerLimits } from './limits.js';
import { hostPort, listen, listeningAddress } from './listen.js';
import { visibleRoutes } from './match.js';
import { serveRequest, serveUpgrade, type NodeAuth, type PipelineDeps, type ServerLog } from './pipeline.js';

export interface NodeServerOptions {
  server: 'main' | 'readOnly';
  /** `0.0.0.0`, `::` or empty bind every interface and both families. */
  address: string;
  /** 0: disabled, the component only waits for its stop signal. */
  port: number;
  /** The serving material and client-CA verification (requestCert, rejectUnauthorized false); required on main, ignored on readOnly. */
  tls: TlsOptions | undefined;
  routes: readonly Route[];
  /** Required on main; undefined on readOnly (no authentication there). */
  auth: NodeAuth | undefined;
  enableDebuggingHandlers: boolean;
  limits?: Partial<ServerLimits>;
  observer?: HttpObserver;
  /** Shared by the node servers of one agent: holds requests while its thread is saturated. */
  governor?: LoadGovernor;
  log: ServerLog;
}

export interface NodeServer extends Component {
  /** Where it listens, once ready; undefined when disabled or stopped. */
  address(): AddressInfo | undefined;
  /**
   * Main only (ignored on readOnly): serves `pair` to every connection
   * handshaking from now on, without a restart (--rotate-server-certificates);
   * open connections keep the certificate they met. Before listening, the
   * server starts with it. Synchronous; throws when node:tls refuses the pair.
   */
  setServingCertificate(pair: { readonly cert: string; readonly key: string }): void;
}

/**
 * Creates the server component. Throws (TypeError) at once on a wiring error:
 * main without tls or auth. `ready` resolves once listening (at once when the
 * port is 0); a failed bind rejects `ready` and `run()` with an ESTARTUP
 * AgentError naming address:port. On abort: stops listening, aborts every
 * request's signal, closes every connection (upgraded ones included), and
 * only then resolves run().
 */
export function createNodeServer(o: NodeServerOptions): NodeServer {
  if (o.server === 'main' && (o.tls === undefined || o.auth === undefined)) {
    throw new TypeError('createNodeServer: the main server needs tls and auth');
  }
  const limits = resolveLimits(o.limits);
  const routes = visibleRoutes(o.routes, o.server, o.enableDebuggingHandlers);
  const name = o.server === 'main' ? 'server' : 'read-only-server';
  let server: HttpServer | undefined;
  let tls = o.tls;
  let live: { setSecureContext(options: SecureContextOptions): void } | undefined;
  const component = defineComponent(name, async (signal, markReady) => {
    if (o.port === 0) {
      markReady();
      await waitForAbort(signal);
      return;
    }
    const where = hostPort(o.address, o.port);
    const deps: PipelineDeps = { server: o.server, routes, auth: o.server === 'main' ? o.auth : undefined, limits, observer: o.observer, governor: o.governor, log: o.log };
    const tracker = new ConnectionTracker(limits.maxConnectionAgeMs);
    const s = build(o.server === 'main' ? tls : undefined, limits);
    if (o.server === 'main') live = s as unknown as NonNullable<typeof live>;
    wire(s, deps, tracker, o.server === 'main');
    try {
      await listen(s, o.address, o.port);
    } catch (err) {
      throw new AgentError('ESTARTUP', `${name} cannot listen on ${where}: ${(err as Error).message}`, { cause: err });
    }
    s.on('error', (err) => o.log.error(`${name} error`, { address: where, error: err.message }));
    const sweep = setInterval(() => tracker.sweep(), Math.min(limits.checkIntervalMs, limits.maxConnectionAgeMs));
    sweep.unref();
    server = s;
    o.log.info(`${name} listening`, { address: where, tls: o.server === 'main', debuggingHandlers: o.enableDebuggingHandlers });
    markReady();
    try {
      await waitForAbort(signal);
    } finally {
      clearInterval(sweep);
      server = undefined;
      live = undefined;
      await close(s, tracker);
    }
  });
  return {
    name: component.name,
    ready: component.ready,
    run: (signal) => component.run(signal),
    address: () => listeningAddress(server),
    setServingCertificate(pair) {
      if (o.server !== 'main' || tls === undefined) return;
      const next: TlsOptions = { ...tls, cert: pair.cert, key: pair.key };
      // Not listening yet: checked now all the same, so a refused pair throws here rather than failing the start.
      if (live === undefined) createSecureContext(next);
      else live.setSecureContext(next);
      tls = next;
    },
  };
}

function build(tls: TlsOptions | undefined, l: ServerLimits): HttpServer {
  const http: ServerOptions = {
    maxHeaderSize: l.maxHeaderBytes,
    headersTimeout: l.headersTimeoutMs,
    requestTimeout: l.requestTimeoutMs,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    connectionsCheckingInterval: l.checkIntervalMs,
    // TCP keep-alive probes find peers that vanished mid-stream (a follow or exec with no traffic).
    keepAlive: true,
    keepAliveInitialDelay: 60_000,
  };
  const s = tls === undefined ? createHttpServer(http) : createHttpsServer({ ...tls, ...http, handshakeTimeout: l.headersTimeoutMs });
  s.maxConnections = l.maxConnections;
  return s;
}

function wire(s: HttpServer, deps: PipelineDeps, tracker: ConnectionTracker, tls: boolean): void {
  s.on('connection', (sock: Socket) => (tls ? tracker.addCarrier(sock) : tracker.add(sock)));
  if (tls) s.on('secureConnection', (sock: Socket) => tracker.add(sock));
  s.on('request', (req, res) => {
    tracker.request(req.socket, res);
    serveRequest(deps, req, res).catch((err: unknown) => failed(deps, 'request', err, () => res.destroy()));
  });
  s.on('upgrade', (req, socket, head: Buffer) => {
    tracker.upgraded(socket);
    serveUpgrade(deps, req, socket, head).catch((err: unknown) => failed(deps, 'upgrade', err, () => socket.destroy()));
  });
  s.on('drop', (data?: { remoteAddress?: string }) => {
    deps.log.v(2)?.info('connection refused: too many connections', { server: deps.server, remote: data?.remoteAddress, max: deps.limits.maxConnections });
  });
  s.on('tlsClientError', (err: Error, sock: Socket) => {
    deps.log.v(4)?.info('TLS handshake failed', { remote: sock.remoteAddress, error: err.message });
    sock.destroy();
  });
}

/** The pipeline answers every failure itself; reaching here is a bug, kept to one request instead of the process. */
function failed(deps: PipelineDeps, what: string, err: unknown, drop: () => void): void {
  deps.log.error(`${what} pipeline failed`, { server: deps.server, error: err instanceof Error ? err.message : String(err) });
  drop();
}

function close(s: HttpServer, tracker: ConnectionTracker): Promise<void> {
  return new Promise((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections();
    tracker.destroyAll();
  });
}
