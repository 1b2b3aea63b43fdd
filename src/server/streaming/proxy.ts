// Byte-transparent upgrade proxy, as the kubelet's UpgradeAwareHandler: the
// client's request goes to the runtime's streaming URL (its path and query,
// the client's own Upgrade, Connection, Sec-WebSocket-* and
// X-Stream-Protocol-Version headers), then bytes flow both ways unread, so
// SPDY/3.1 and WebSocket clients both work and whatever the runtime answers
// (101, or an error response) reaches the client as it sent it.
import type { IncomingMessage } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import type { LifecycleLog } from '../../lifecycle/component.js';

/** Headers never forwarded: the node's own credentials stay here; Host and X-Forwarded-For are set anew. */
const DROPPED = new Set(['host', 'authorization', 'proxy-authorization', 'x-forwarded-for']);

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  416: 'Requested Range Not Satisfiable',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
};

/** Answers a not-yet-upgraded connection with a plain-text HTTP response and closes it. Idempotent on a closed socket. */
export function writeRawResponse(socket: Duplex, status: number, message: string): void {
  if (socket.destroyed || !socket.writable) return;
  const body = Buffer.from(`${message}\n`, 'utf8');
  const head =
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
    'Content-Type: text/plain; charset=utf-8\r\n' +
    'X-Content-Type-Options: nosniff\r\n' +
    `Content-Length: ${body.length}\r\n` +
    'Connection: close\r\n\r\n';
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}

/** The request head sent to the runtime: the client's method and headers, the target's path and query. */
export function backendRequestHead(req: Pick<IncomingMessage, 'method' | 'rawHeaders' | 'headers'>, target: URL, remoteAddress: string | undefined): string {
  const lines = [`${req.method ?? 'GET'} ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (DROPPED.has(name.toLowerCase()) || /[\r\n]/.test(raw[i + 1] ?? '')) continue;
    lines.push(`${name}: ${raw[i + 1] ?? ''}`);
  }
  const prior = req.headers['x-forwarded-for'];
  const chain = [typeof prior === 'string' && prior !== '' ? prior : undefined, remoteAddress].filter((s) => s !== undefined);
  if (chain.length > 0) lines.push(`X-Forwarded-For: ${chain.join(', ')}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export interface ProxyOptions {
  readonly req: IncomingMessage;
  readonly socket: Duplex;
  readonly head: Buffer;
  /** The runtime's streaming URL (http or https). */
  readonly target: URL;
  /** Closes the stream once no byte moved either way for this long; 0: never. */
  readonly idleTimeoutMs: number;
  /** Aborting closes both connections. */
  readonly signal: AbortSignal;
  readonly log: LifecycleLog;
}

export interface ProxyOutcome {
  /** The runtime's answer status (101 once upgraded); 502 when it could not be reached or said nothing. */
  readonly status: number;
  /** Why the stream ended: 'closed' (either side), 'idle', 'aborted', 'dial' (runtime unreachable). */
  readonly ended: 'closed' | 'idle' | 'aborted' | 'dial';
}

/**
 * Proxies one upgraded request to `target` and resolves when both
 * connections are closed (never rejects). Nothing runs after it resolves.
 */
export function proxyUpgrade(o: ProxyOptions): Promise<ProxyOutcome> {
  return new Promise<ProxyOutcome>((resolve) => {
    const client = o.socket;
    const port = Number(o.target.port || (o.target.protocol === 'https:' ? 443 : 80));
    const host = o.target.hostname.replace(/^\[(.*)\]$/, '$1');
    const backend: Socket =
      o.target.protocol === 'https:' ? tlsConnect({ host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host }) : netConnect({ host, port });
    let status = 0;
    let connected = false;
    let ended: ProxyOutcome['ended'] = 'closed';
    let last = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let open = 2;

    const finish = (): void => {
      if (--open > 0) return;
      if (timer !== undefined) clearTimeout(timer);
      o.signal.removeEventListener('abort', onAbort);
      resolve({ status: status === 0 ? 502 : status, ended });
    };
    const closeBoth = (why: ProxyOutcome['ended']): void => {
      if (ended === 'closed') ended = why;
      client.destroy();
      backend.destroy();
    };
    const onAbort = (): void => closeBoth('aborted');
    const touch = (): void => {
      last = Date.now();
    };
    const armIdle = (ms: number): void => {
      timer = setTimeout(() => {
        const left = o.idleTimeoutMs - (Date.now() - last);
        if (left > 0) return armIdle(left);
        o.log.info('Closing an idle stream', { target: `${o.target.origin}${o.target.pathname}`, idleTimeoutMs: o.idleTimeoutMs });
        closeBoth('idle');
      }, ms);
    };

    client.on('error', () => undefined);
    backend.on('error', (err) => {
      if (connected) return;
      ended = 'dial';
      status = 502;
      o.log.error('Cannot reach the runtime streaming server', { target: o.target.origin, err: err.message });
      writeRawResponse(client, 500, `error dialing backend: ${err.message}`);
    });
    backend.once('close', () => {
      // Flush what the runtime sent, then close the client (upstream closes both once either direction ends).
      if (!client.destroyed) client.end(() => client.destroy());
      finish();
    });
    client.once('close', () => {
      backend.destroy();
      finish();
    });
    if (o.signal.aborted) return onAbort();
    o.signal.addEventListener('abort', onAbort, { once: true });

    backend.once(o.target.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      connected = true;
      const remote = (client as Partial<Socket>).remoteAddress;
      backend.write(backendRequestHead(o.req, o.target, remote));
      if (o.head.length > 0) backend.write(o.head);
      backend.on('data', (chunk: Buffer) => {
        touch();
        if (status === 0) status = sniffStatus(chunk);
      });
      client.on('data', touch);
      backend.pipe(client);
      client.pipe(backend);
      if (o.idleTimeoutMs > 0) armIdle(o.idleTimeoutMs);
    });
  });
}

/** The status code of an HTTP response's first bytes; 502 when they are not one. */
export function sniffStatus(chunk: Buffer): number {
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(chunk.subarray(0, 16).toString('latin1'));
  return m === null ? 502 : Number(m[1]);
}
