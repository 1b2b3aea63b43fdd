// The local health endpoint (--healthz-bind-address / --healthz-port), served
// the way the platform's healthz handler answers so existing probes and
// scripts read it unchanged:
//
//   GET /healthz            200 "ok", or 500 with one "[+]name ok" /
//                           "[-]name failed: reason withheld" line per check and
//                           "healthz check failed" (reasons go to the log only:
//                           the endpoint is unauthenticated)
//   GET /healthz?verbose    the per-check lines on success too
//   GET /healthz?exclude=x  skips check x ("[+]x excluded: ok")
//   GET /healthz/<name>     one check: 200 "ok" or 500 "internal server error: <reason>"

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentError } from '../errors.js';
import { waitForAbort } from '../lifecycle/abort.js';
import { defineComponent, type Component, type LifecycleLog } from '../lifecycle/component.js';
import type { LivenessRegistry } from '../lifecycle/liveness.js';
import { hostPort, listen, listeningAddress } from './http/listen.js';
import { healthzReply } from './routes/healthz-check.js';

export interface HealthzServerOptions {
  /** `0.0.0.0`, `::` or empty bind every interface and address family. */
  address: string;
  /** 0 disables the server (the component then only waits for its stop signal). */
  port: number;
  liveness: LivenessRegistry;
  log: LifecycleLog;
}

export interface HealthzServer extends Component {
  /** Where it listens, once ready; undefined when disabled or stopped. */
  address(): AddressInfo | undefined;
}

/**
 * Creates the healthz component. `ready` resolves once listening (at once when
 * the port is 0); a failed bind (e.g. EADDRINUSE) rejects `ready` and `run()`
 * with an ESTARTUP AgentError naming address:port. On abort the listener and
 * every connection, keep-alive ones included, are closed before run() resolves.
 */
export function createHealthzServer(opts: HealthzServerOptions): HealthzServer {
  let server: Server | undefined;
  const component = defineComponent('healthz', async (signal, markReady) => {
    if (opts.port === 0) {
      markReady();
      await waitForAbort(signal);
      return;
    }
    const where = hostPort(opts.address, opts.port);
    const s = createServer((req, res) => handle(req, res, opts));
    try {
      await listen(s, opts.address, opts.port);
    } catch (err) {
      throw new AgentError('ESTARTUP', `healthz server cannot listen on ${where}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    s.on('error', (err) => opts.log.error('healthz server error', { address: where, error: err.message }));
    server = s;
    opts.log.info('healthz server listening', { address: where });
    markReady();
    try {
      await waitForAbort(signal);
    } finally {
      server = undefined;
      await close(s);
    }
  });
  return {
    name: component.name,
    ready: component.ready,
    run: (signal) => component.run(signal),
    address: () => listeningAddress(server),
  };
}

/** Never mutated: the plain `/healthz` of a supervisor's probe needs no URL parse. */
const NO_PARAMS = new URLSearchParams();

function handle(req: IncomingMessage, res: ServerResponse, opts: HealthzServerOptions): void {
  const raw = req.url ?? '/';
  const url = raw === '/healthz' ? undefined : new URL(raw, 'http://healthz.invalid');
  const path = url?.pathname ?? '/healthz';
  if (path !== '/healthz' && !path.startsWith('/healthz/')) {
    reply(res, 404, '404 page not found\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    reply(res, 405, 'method not allowed\n');
    return;
  }
  const r = healthzReply(opts.liveness, path.slice('/healthz/'.length), url?.searchParams ?? NO_PARAMS, opts.log);
  if (r.status === 200 && r.body === 'ok') {
    // A supervisor's probe, many times a second under a flood: one prepared head and body.
    res.writeHead(200, OK_HEAD);
    res.end(OK_BODY);
    return;
  }
  reply(res, r.status, r.body);
}

const OK_BODY = Buffer.from('ok');
const OK_HEAD = ['Content-Type', 'text/plain; charset=utf-8', 'X-Content-Type-Options', 'nosniff', 'Content-Length', '2'];

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  // node drops the body itself for HEAD.
  res.end(body);
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // close() only stops accepting; idle keep-alive sockets would hold it open for up to keepAliveTimeout.
    server.closeAllConnections();
  });
}
