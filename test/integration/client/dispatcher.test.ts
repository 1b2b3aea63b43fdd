// The transport's connection pools over Node's http client, against loopback
// servers: a DELETE's body arrives whole, repeated headers stay apart, a
// connection that never completes its TLS handshake fails with the connect
// timeout's code, keep-alive reuses a socket, and a retired pool closes its
// sockets as their exchanges end.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Agent as HttpAgent } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT_CODE, Dispatcher } from '../../../src/client/transport/dispatcher.js';

const servers: Array<{ close(): unknown }> = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function listen<T extends Server | ReturnType<typeof createNetServer>>(s: T): Promise<number> {
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
}

const read = async (m: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of m) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
};

function echoServer(): { server: Server; sockets: Set<Socket> } {
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const body = await read(req);
    res.setHeader('warning', ['299 - "one, with a comma"', '299 - "two"']);
    res.end(JSON.stringify({ method: req.method, length: req.headers['content-length'] ?? null, body }));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return { server, sockets };
}

describe('Dispatcher (node:http pools)', () => {
  it('a DELETE carries its body with a Content-Length; repeated headers come back apart', async () => {
    const { server } = echoServer();
    const port = await listen(server);
    const d = new Dispatcher(new URL(`http://127.0.0.1:${port}`), new HttpAgent({ keepAlive: true }));
    const res = await d.request({ path: '/x', method: 'DELETE', headers: { 'content-type': 'application/json' }, body: Buffer.from('{"gracePeriodSeconds":0}'), signal: new AbortController().signal });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(await read(res.body))).toEqual({ method: 'DELETE', length: '24', body: '{"gracePeriodSeconds":0}' });
    expect(res.headersDistinct['warning']).toEqual(['299 - "one, with a comma"', '299 - "two"']);
    d.destroy();
  });

  it('keeps one socket alive across requests; once retired, closes it when its exchange ends', async () => {
    const { server, sockets } = echoServer();
    const port = await listen(server);
    const d = new Dispatcher(new URL(`http://127.0.0.1:${port}`), new HttpAgent({ keepAlive: true, maxSockets: 4 }));
    const get = async (): Promise<string> => read((await d.request({ path: '/', method: 'GET', headers: {}, body: null, signal: new AbortController().signal })).body);
    await get();
    await get();
    expect(sockets.size).toBe(1);
    const pending = d.request({ path: '/', method: 'GET', headers: {}, body: null, signal: new AbortController().signal });
    d.close();
    await read((await pending).body);
    await expect.poll(() => sockets.size, { timeout: 2000 }).toBe(0);
  });

  it('a connection whose TLS handshake never completes fails with the connect timeout code', async () => {
    const accepted: Socket[] = [];
    const silent = createNetServer((s) => void accepted.push(s));
    const port = await listen(silent);
    const { Agent: HttpsAgent } = await import('node:https');
    const d = new Dispatcher(new URL(`https://127.0.0.1:${port}`), new HttpsAgent({ keepAlive: true }), 200);
    const t0 = Date.now();
    await expect(d.request({ path: '/', method: 'GET', headers: {}, body: null, signal: new AbortController().signal })).rejects.toMatchObject({ code: CONNECT_TIMEOUT_CODE });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    d.destroy();
    for (const s of accepted) s.destroy();
  });

  it('an abort through the signal rejects the pending exchange', async () => {
    const hang = createServer(() => {});
    const port = await listen(hang);
    const d = new Dispatcher(new URL(`http://127.0.0.1:${port}`), new HttpAgent({ keepAlive: true }));
    const ac = new AbortController();
    const p = d.request({ path: '/', method: 'GET', headers: {}, body: null, signal: ac.signal });
    setTimeout(() => ac.abort(new Error('caller gone')), 50);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    d.destroy();
    hang.closeAllConnections();
  });
});
