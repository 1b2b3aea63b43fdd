// The connections to one server: two undici pools over the same TLS settings.
// `requests` (keep-alive, at most REQUEST_CONNECTIONS sockets) carries every
// non-stream request; `streams` (unbounded, no body timeout) carries watches,
// each on its own socket for as long as it lasts. A long watch therefore
// never occupies a socket that requests queue for, however many watches are
// open, and requests never wait behind a stream (HTTP/1.1 has one exchange
// per socket at a time).
import { Pool } from 'undici';
import { builtVersion } from '../../version.js';
import type { ConnectionConfig } from '../types.js';

/** Sockets for requests (client-go's transport keeps 25 idle per host). */
export const REQUEST_CONNECTIONS = 32;
/**
 * How long an idle request socket is kept (client-go's IdleConnTimeout, 90 s;
 * undici's default is 4 s): a node renews its lease every 10 s, and a new TLS
 * connection for each renewal costs both sides a handshake and most of the
 * bytes. A server announcing a shorter timeout (Keep-Alive: timeout=N) wins.
 */
export const IDLE_CONNECTION_MS = 90_000;

export interface Pools {
  readonly origin: string;
  /** The server URL's path ('' usually), put before every request path. */
  readonly prefix: string;
  readonly requests: Pool;
  readonly streams: Pool;
}

/** The TLS options of a connection: its CA (else the system's roots), verification, SNI name, client certificate. */
export function tlsOptions(conn: ConnectionConfig): Record<string, unknown> {
  return {
    ...(conn.ca === undefined ? {} : { ca: conn.ca }),
    rejectUnauthorized: !conn.insecureSkipTlsVerify,
    ...(conn.tlsServerName === undefined ? {} : { servername: conn.tlsServerName }),
    ...(conn.clientCert === undefined ? {} : { cert: conn.clientCert.cert, key: conn.clientCert.key }),
  };
}

export function createPools(conn: ConnectionConfig): Pools {
  const url = new URL(conn.server);
  const connect = tlsOptions(conn);
  return {
    origin: url.origin,
    prefix: url.pathname.replace(/\/+$/, ''),
    requests: new Pool(url.origin, { connections: REQUEST_CONNECTIONS, connect, pipelining: 1, keepAliveTimeout: IDLE_CONNECTION_MS }),
    // Watches end when the server ends them (timeoutSeconds) or the caller closes them: no body timeout.
    streams: new Pool(url.origin, { connections: null, connect, pipelining: 1, bodyTimeout: 0 }),
  };
}

const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' };

/** `agent/v0.1.0 (linux/amd64)`: the kubelet's `kubelet/<version> (<os>/<arch>)` shape, so the server's default field manager is `agent`. */
export function defaultUserAgent(): string {
  return `agent/${builtVersion()} (${process.platform}/${GO_ARCH[process.arch] ?? process.arch})`;
}
