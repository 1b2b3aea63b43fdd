// The HTTPS listener and its lifecycle. serveHttps resolves once listening;
// aborting `signal` stops it: no new connections, every in-flight request's
// signal aborts (a watch ends its stream), they get `shutdownGraceMs` to
// finish, then every connection is closed and `stopped` resolves. Nothing runs
// after that; the grace timer is cleared.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { AgentError } from '../../errors.js';
import type { AgentLogger } from '../../log/index.js';
import type { RequestInfo } from '../types.js';
import { requestUrl, type Endpoint, type RequestContext } from './context.js';
import { requestInfoFor } from './request-info.js';
import { toApiError, writeStatus } from './status.js';

export interface TlsMaterial {
  certPem: string;
  keyPem: string;
  /** PEM of the CAs client certificates are verified against; absent: no client certificates are requested. */
  clientCaPem?: string;
}

export interface ServeOptions {
  bindAddress: string;
  /** 0 picks a free port. */
  port: number;
  tls: TlsMaterial;
  pipeline: Endpoint;
  log: AgentLogger;
  /** How long in-flight requests get to finish after the stop; default 10 s. */
  shutdownGraceMs?: number;
}

export interface Serving {
  /** The bound address and port (the real port when 0 was asked). */
  readonly address: string;
  readonly port: number;
  /** Resolves when the server has stopped after the abort (never rejects). */
  readonly stopped: Promise<void>;
}

/** Why a request's signal aborted when the server stops. */
export class ServerStopping extends Error {
  constructor() {
    super('the server is shutting down');
    this.name = 'ServerStopping';
  }
}

class ClientGone extends Error {
  constructor() {
    super('the client closed the connection');
    this.name = 'ClientGone';
  }
}

const DEFAULT_GRACE_MS = 10_000;

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(new AgentError('ESTARTUP', `cannot listen on ${host}:${port}: ${err.message}`, { flag: '--secure-port', cause: err }));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** How long an idle keep-alive connection is kept (kube-apiserver's IdleTimeout, 90 s). */
export const IDLE_TIMEOUT_MS = 90_000;

export async function serveHttps(opts: ServeOptions, signal: AbortSignal): Promise<Serving> {
  const inFlight = new Set<RequestContext>();
  let drained: (() => void) | undefined;
  const server = createServer({
    cert: opts.tls.certPem,
    key: opts.tls.keyPem,
    minVersion: 'TLSv1.2',
    ALPNProtocols: ['http/1.1'],
    ...(opts.tls.clientCaPem === undefined ? {} : { ca: opts.tls.clientCaPem, requestCert: true, rejectUnauthorized: false }),
  });
  // kube-apiserver's idle timeout: a node's requests come every 10 s (lease) and must not pay a TLS
  // handshake each time, as they would under node's 5 s default.
  server.keepAliveTimeout = IDLE_TIMEOUT_MS;
  server.on('tlsClientError', (err) => opts.log.v(2)?.info('TLS handshake failed', { err: err.message }));

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    // A write after the timeout filter answered must not crash the process.
    res.on('error', (err) => opts.log.v(4)?.info('response write failed', { err: err.message }));
    let url: URL;
    let info: RequestInfo;
    try {
      url = requestUrl(req);
      info = requestInfoFor(req.method ?? 'GET', url);
    } catch (err) {
      writeStatus(res, toApiError(err));
      return;
    }
    const ctx: RequestContext = {
      req, res, url, info,
      id: randomUUID(),
      user: undefined,
      abort: new AbortController(),
      body: () => Promise.resolve(Buffer.alloc(0)),
      log: opts.log,
      startedNs: process.hrtime.bigint(),
    };
    res.on('close', () => {
      if (!res.writableFinished) ctx.abort.abort(new ClientGone());
    });
    if (signal.aborted) ctx.abort.abort(new ServerStopping());
    inFlight.add(ctx);
    opts.pipeline(ctx)
      .catch((err: unknown) => writeStatus(res, toApiError(err)))
      .finally(() => {
        inFlight.delete(ctx);
        if (inFlight.size === 0) drained?.();
      });
  };
  server.on('request', onRequest);

  const host = opts.bindAddress === '' ? '::' : opts.bindAddress;
  await listen(server, opts.port, host);
  const addr = server.address() as AddressInfo;
  opts.log.info('Serving securely', { address: `${addr.address}:${addr.port}` });

  const stopped = new Promise<void>((resolve) => {
    const stop = async (): Promise<void> => {
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      if (inFlight.size > 0) {
        opts.log.info('Stopping: ending in-flight requests', { count: inFlight.size });
        const allDone = new Promise<void>((r) => (drained = r));
        for (const ctx of inFlight) ctx.abort.abort(new ServerStopping());
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<void>((r) => (timer = setTimeout(r, opts.shutdownGraceMs ?? DEFAULT_GRACE_MS)));
        await Promise.race([allDone, deadline]);
        clearTimeout(timer);
        if (inFlight.size > 0) opts.log.info('Stopping: requests still running after the grace period are cut off', { count: inFlight.size });
      }
      server.closeAllConnections();
      await closed;
      opts.log.info('Stopped serving', { address: `${addr.address}:${addr.port}` });
    };
    if (signal.aborted) void stop().then(resolve);
    else signal.addEventListener('abort', () => void stop().then(resolve), { once: true });
  });
  return { address: addr.address, port: addr.port, stopped };
}
