// The connections to one server: two pools of Node's own HTTP client over the
// same TLS settings. `requests` (keep-alive, at most REQUEST_CONNECTIONS
// sockets) carries every non-stream request; `streams` (unbounded, a socket
// per exchange) carries watches, each on its own socket for as long as it
// lasts. A long watch therefore never occupies a socket that requests queue
// for, however many watches are open, and requests never wait behind a stream
// (HTTP/1.1 has one exchange per socket at a time).
//
// Node's http client rather than undici: the same requests at a steady 110
// pods cost the agent ~2.5 MiB less RSS (undici's JS, and the WebAssembly
// HTTP parser it compiles and instantiates), and Node's parser is native.
import { Agent as HttpAgent, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import { sendHttp } from '../../util/http-send.js';
import { builtVersion } from '../../version.js';
import type { ConnectionConfig } from '../types.js';

/** Sockets for requests (client-go's transport keeps 25 idle per host). */
export const REQUEST_CONNECTIONS = 32;
/**
 * How long an idle request socket is kept (client-go's IdleConnTimeout, 90 s):
 * a node renews its lease every 10 s, and a new TLS connection for each
 * renewal costs both sides a handshake and most of the bytes. A server
 * announcing a shorter timeout (Keep-Alive: timeout=N) wins.
 */
export const IDLE_CONNECTION_MS = 90_000;
/** How long a new connection may take to be established, TLS handshake included (client-go's dialer: 30 s; undici's: 10 s). */
export const CONNECT_TIMEOUT_MS = 10_000;
/** The code of a connection not established within CONNECT_TIMEOUT_MS: nothing was sent (connection-errors.ts). */
export const CONNECT_TIMEOUT_CODE = 'ERR_CONNECT_TIMEOUT';

export interface DispatchRequest {
  readonly path: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | string | null;
  readonly signal: AbortSignal;
}

export interface DispatchResponse {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  /** Every value of each header, repeated ones apart (Warning). */
  readonly headersDistinct: Readonly<Record<string, string[] | undefined>>;
  readonly body: IncomingMessage;
}

/** One pool of connections to the server. */
export class Dispatcher {
  private retiring = false;

  constructor(
    private readonly url: URL,
    private readonly agent: HttpAgent,
    private readonly connectTimeoutMs = CONNECT_TIMEOUT_MS,
  ) {
    // A retired pool closes each socket as its exchange ends instead of keeping it.
    agent.on('free', (socket: Socket) => {
      if (this.retiring) socket.destroy();
    });
  }

  /** One exchange; resolves at the response head, its body to be read or destroyed by the caller. */
  async request(r: DispatchRequest): Promise<DispatchResponse> {
    const connected = this.url.protocol === 'https:' ? 'secureConnect' : 'connect';
    const ms = this.connectTimeoutMs;
    const options = {
      path: r.path,
      method: r.method,
      // Node sends a DELETE's body (DeleteOptions) with neither a length nor chunking unless told its length.
      headers: r.body === null ? r.headers : { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) },
      agent: this.agent,
      signal: r.signal,
    };
    const res = await sendHttp(this.url, options, r.body ?? undefined, (req) =>
      req.once('socket', (socket: Socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no connection within ${ms} ms`), { code: CONNECT_TIMEOUT_CODE })), ms);
        const done = (): void => clearTimeout(timer);
        socket.once(connected, done);
        socket.once('close', done);
      }),
    );
    return { statusCode: res.statusCode ?? 0, headers: res.headers, headersDistinct: res.headersDistinct, body: res };
  }

  /** No more kept connections: idle ones close now, busy ones when their exchange ends. */
  close(): void {
    this.retiring = true;
    for (const list of Object.values(this.agent.freeSockets)) for (const s of list ?? []) s.destroy();
  }

  /** Every connection closes now, busy ones included. */
  destroy(): void {
    this.retiring = true;
    this.agent.destroy();
  }
}

export interface Pools {
  readonly origin: string;
  /** The server URL's path ('' usually), put before every request path. */
  readonly prefix: string;
  readonly requests: Dispatcher;
  readonly streams: Dispatcher;
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
  const agent = (o: { keepAlive: boolean; maxSockets?: number; timeout?: number }): HttpAgent => (url.protocol === 'https:' ? new HttpsAgent({ ...tlsOptions(conn), ...o }) : new HttpAgent(o));
  return {
    origin: url.origin,
    prefix: url.pathname.replace(/\/+$/, ''),
    requests: new Dispatcher(url, agent({ keepAlive: true, maxSockets: REQUEST_CONNECTIONS, timeout: IDLE_CONNECTION_MS })),
    // Watches end when the server ends them (timeoutSeconds) or the caller closes them: no timeout, no reuse.
    streams: new Dispatcher(url, agent({ keepAlive: false })),
  };
}

const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' };

/** `agent/v0.1.0 (linux/amd64)`: the kubelet's `kubelet/<version> (<os>/<arch>)` shape, so the server's default field manager is `agent`. */
export function defaultUserAgent(): string {
  return `agent/${builtVersion()} (${process.platform}/${GO_ARCH[process.arch] ?? process.arch})`;
}
