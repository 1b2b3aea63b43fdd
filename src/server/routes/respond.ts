// Response writers for the basic routes: one place for the headers every
// answer carries. Callers own `res` and call one of these once.
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  sendJsonBody(res, status, JSON.stringify(value));
}

/** For answers serialized once and sent many times (a Buffer is written without re-encoding). */
export function sendJsonBody(res: ServerResponse, status: number, body: string | Buffer): void {
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

export function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

export const notFound = (res: ServerResponse): void => sendText(res, 404, '404 page not found\n');

/** For routes registered as `/x/` that answer only `/x` and `/x/` (as the kubelet's go-restful web services do). */
export const isRoot = (pathname: string, prefix: string): boolean => pathname === prefix || pathname === `${prefix}/`;
