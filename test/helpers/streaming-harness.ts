// Test harnesses of the streaming routes (issue 18 D), until the HTTP core
// serves them: a plain node:http server on loopback that picks a Route by
// path prefix and calls its handle/upgrade with a RouteContext, and a small
// streaming "runtime" server whose upgrades the tests script.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Route } from '../../src/server/types.js';

export interface Harness {
  readonly port: number;
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves `routes` on 127.0.0.1 (no authentication). close() aborts every route's signal and every connection. */
export async function serveRoutes(routes: readonly Route[]): Promise<Harness> {
  const ac = new AbortController();
  const sockets = new Set<Duplex>();
  const pick = (url: URL): Route | undefined => routes.find((r) => url.pathname.startsWith(r.path) || url.pathname === r.path.replace(/\/$/, ''));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://node');
    const route = pick(url);
    if (route === undefined) return void res.writeHead(404).end('404 page not found\n');
    if (!route.methods.includes(req.method ?? '')) return void res.writeHead(405).end('405 method not allowed\n');
    route.handle({ req, res, url, user: undefined, signal: ac.signal }).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://node');
    const route = pick(url);
    if (route?.upgrade === undefined) return void socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    void route.upgrade({ req, socket, head, url, user: undefined, signal: ac.signal });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () => {
      ac.abort();
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface RawResponse {
  /** The response head as received (status line and headers). */
  readonly head: string;
  readonly status: number;
  readonly socket: Socket;
  /** Bytes that came after the head in the same reads. */
  readonly rest: Buffer;
}

/** Sends a raw HTTP request on a new loopback connection and resolves once the response head arrived. */
export function rawRequest(port: number, request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer): void => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.off('error', reject);
      socket.pause();
      const head = buf.subarray(0, end).toString('latin1');
      resolve({ head, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), socket, rest: buf.subarray(end + 4) });
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(request);
  });
}

/** Reads from a paused socket until `n` bytes (counting `first`) arrived or it closed; resolves what arrived. */
export function readBytes(socket: Socket, n: number, first: Buffer = Buffer.alloc(0)): Promise<Buffer> {
  return new Promise((resolve) => {
    let buf = first;
    const done = (): void => {
      socket.off('data', onData);
      socket.off('close', done);
      socket.pause();
      resolve(buf);
    };
    const onData = (d: Buffer): void => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= n) done();
    };
    if (buf.length >= n) return done();
    socket.on('data', onData);
    socket.once('close', done);
    socket.resume();
  });
}

/** Resolves when the socket closed (immediately when it already has). */
export function closed(socket: Socket): Promise<void> {
  return new Promise((r) => (socket.closed ? r() : socket.once('close', () => r())));
}

export interface EchoRuntime {
  readonly origin: string;
  /** Every upgrade request the server took: its path with query and headers. */
  readonly seen: Array<{ url: string; headers: IncomingMessage['headers'] }>;
  close(): Promise<void>;
}

/**
 * A stand-in runtime streaming server: answers an upgrade with 101 (echoing
 * the client's Upgrade header and X-Stream-Protocol-Version), then echoes
 * every byte back; /refuse/* answers 403 with a body instead.
 */
export async function echoRuntime(): Promise<EchoRuntime> {
  const seen: EchoRuntime['seen'] = [];
  const sockets = new Set<Duplex>();
  const server = createServer((_req, res) => res.writeHead(400).end('not an upgrade\n'));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    seen.push({ url: req.url ?? '', headers: req.headers });
    if ((req.url ?? '').startsWith('/refuse/')) return void socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 8\r\nConnection: close\r\n\r\nrefused\n');
    const proto = req.headers['x-stream-protocol-version'];
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n' +
        `Upgrade: ${req.headers.upgrade ?? ''}\r\n` +
        (typeof proto === 'string' ? `X-Stream-Protocol-Version: ${proto.split(',')[0]?.trim() ?? ''}\r\n` : '') +
        '\r\n',
    );
    if (head.length > 0) socket.write(head);
    socket.pipe(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
