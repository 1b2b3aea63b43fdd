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
import type { LivenessRegistry, LivenessResult } from '../lifecycle/liveness.js';

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

/** The check the platform's handler reports when nothing else is installed. */
const PING = 'ping';

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
      await listen(s, opts.port, isUnspecified(opts.address) ? undefined : opts.address);
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
    address: () => {
      const a = server?.address();
      return a === null || a === undefined || typeof a === 'string' ? undefined : a;
    },
  };
}

function handle(req: IncomingMessage, res: ServerResponse, opts: HealthzServerOptions): void {
  const url = new URL(req.url ?? '/', 'http://healthz.invalid');
  const path = url.pathname;
  if (path !== '/healthz' && !path.startsWith('/healthz/')) {
    reply(res, 404, '404 page not found\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    reply(res, 405, 'method not allowed\n');
    return;
  }
  if (path === '/healthz') {
    serveAll(url, res, opts);
    return;
  }
  let name: string;
  try {
    name = decodeURIComponent(path.slice('/healthz/'.length));
  } catch {
    reply(res, 404, '404 page not found\n');
    return;
  }
  const result = checkByName(opts.liveness, name);
  if (result === undefined) reply(res, 404, '404 page not found\n');
  else if (result.ok) reply(res, 200, 'ok');
  else reply(res, 500, `internal server error: ${result.reason ?? ''}\n`);
}

function serveAll(url: URL, res: ServerResponse, opts: HealthzServerOptions): void {
  const excluded = new Set(url.searchParams.getAll('exclude'));
  const names = opts.liveness.names();
  const lines: string[] = [];
  const failures: string[] = [];
  for (const name of names.length === 0 ? [PING] : names) {
    if (excluded.delete(name)) {
      lines.push(`[+]${name} excluded: ok`);
      continue;
    }
    const result = checkByName(opts.liveness, name);
    // A check unregistered between names() and now is simply gone.
    if (result === undefined) continue;
    if (result.ok) {
      lines.push(`[+]${name} ok`);
    } else {
      lines.push(`[-]${name} failed: reason withheld`);
      failures.push(`${name}: ${result.reason ?? ''}`);
    }
  }
  if (excluded.size > 0) {
    const quoted = [...excluded].sort().map((n) => JSON.stringify(n)).join(',');
    lines.push(`warn: some health checks cannot be excluded: no matches for ${quoted}`);
  }
  if (failures.length > 0) {
    opts.log.info('healthz check failed', { failures });
    reply(res, 500, `${lines.join('\n')}\nhealthz check failed\n`);
    return;
  }
  if (!url.searchParams.has('verbose')) reply(res, 200, 'ok');
  else reply(res, 200, `${lines.join('\n')}\nhealthz check passed\n`);
}

function checkByName(liveness: LivenessRegistry, name: string): LivenessResult | undefined {
  if (name === PING && liveness.names().length === 0) return { name, ok: true };
  return liveness.checkOne(name);
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  // node drops the body itself for HEAD.
  res.end(body);
}

function isUnspecified(address: string): boolean {
  return address === '' || address === '0.0.0.0' || address === '::';
}

function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port, host });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // close() only stops accepting; idle keep-alive sockets would hold it open for up to keepAliveTimeout.
    server.closeAllConnections();
  });
}
