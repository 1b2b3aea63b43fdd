// A stand-in for the HTTP core while it is built elsewhere: a loopback
// node:http server that matches a Route's path on whole segments and calls
// `handle` with a RouteContext whose signal aborts when the client goes.
// Also a small client that reads a response as it streams.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Route } from '../../../src/server/types.js';

export interface Harness {
  readonly port: number;
  close(): Promise<void>;
}

const matches = (route: string, path: string): boolean => (route.endsWith('/') ? path.startsWith(route) : path === route || path.startsWith(`${route}/`));

export async function serveRoutes(routes: readonly Route[]): Promise<Harness> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = routes.find((r) => matches(r.path, url.pathname));
    if (!route) {
      res.writeHead(404).end('404 page not found\n');
      return;
    }
    const ac = new AbortController();
    res.on('close', () => ac.abort(new Error('client went away')));
    route.handle({ req, res, url, user: undefined, signal: ac.signal }).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** GET a path; resolves when the response ends (not for follow: see openStream). Raw path: no normalisation by a URL parser. */
export function get(port: number, path: string, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A streaming GET: the text so far, a wait for a condition on it, and the end. */
export interface Stream {
  readonly status: number;
  text(): string;
  /** Resolves when the received text satisfies `ok`; rejects after `ms` with what arrived. */
  until(ok: (text: string) => boolean, ms: number): Promise<string>;
  ended: Promise<string>;
  close(): void;
}

export function openStream(port: number, path: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let text = '';
      const waiters = new Set<() => void>();
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
        for (const w of [...waiters]) w();
      });
      const ended = new Promise<string>((r) => {
        res.on('end', () => r(text));
        res.on('close', () => r(text));
      });
      resolve({
        status: res.statusCode ?? 0,
        text: () => text,
        until: (ok, ms) =>
          new Promise<string>((r, j) => {
            const check = (): void => {
              if (!ok(text)) return;
              clearTimeout(timer);
              waiters.delete(check);
              r(text);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              j(new Error(`timed out after ${ms} ms; received:\n${text}`));
            }, ms);
            waiters.add(check);
            check();
          }),
        ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
