// The node servers' HTTP core over real TLS and plain HTTP on loopback:
// routing, read-only and debugging visibility, 401/403/405/400, limits,
// upgrades, the observer and a clean stop.
import { once } from 'node:events';
import { connect as netConnect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { createNodeServer } from '../../../src/server/http/index.js';
import type { AuthnRequest, Route, UserInfo } from '../../../src/server/types.js';
import { testLogger } from '../../helpers/test-logger.js';
import { ask, makePki, startNodeServer, stubAuthenticator, stubAuthorize, type AuthzCall, type Pki } from './http-harness.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

let pki: Pki;
beforeAll(() => {
  pki = makePki();
});

const text = (body: string): Route['handle'] => async ({ res }) => {
  res.end(body);
};
const who = (user: UserInfo | undefined): string => user?.name ?? '-';

interface Seen {
  upgrades: Array<{ user: string; path: string; head: number }>;
}

function routes(seen: Seen = { upgrades: [] }): Route[] {
  return [
    { path: '/pods', readOnly: true, debugging: false, methods: ['GET'], handle: async ({ res, user }) => void res.end(`pods for ${who(user)}`) },
    { path: '/stats/', readOnly: true, debugging: false, methods: ['GET'], handle: async ({ res, url }) => void res.end(`stats ${url.pathname}`) },
    { path: '/configz', readOnly: false, debugging: true, methods: ['GET'], handle: text('configz') },
    { path: '/run/', readOnly: false, debugging: true, methods: ['POST'], handle: text('run') },
    { path: '/containerLogs/', readOnly: false, debugging: true, methods: ['GET'], handle: text('logs') },
    { path: '/logs/', readOnly: false, debugging: true, methods: ['GET'], handle: text('node logs') },
    {
      path: '/exec/',
      readOnly: false,
      debugging: true,
      methods: ['GET', 'POST'],
      handle: text('exec'),
      upgrade: async ({ socket, user, url, head }) => {
        seen.upgrades.push({ user: who(user), path: url.pathname, head: head.length });
        socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: SPDY/3.1\r\nConnection: Upgrade\r\n\r\n');
        socket.pipe(socket);
        await once(socket, 'close');
      },
    },
    {
      path: '/boom',
      readOnly: true,
      debugging: false,
      methods: ['GET'],
      handle: async () => {
        throw new Error('kaboom');
      },
    },
    { path: '/upload', readOnly: true, debugging: false, methods: ['POST'], handle: text('uploaded') },
  ];
}

async function mainServer(o: { anonymous?: boolean; debugging?: boolean; seen?: Seen; calls?: AuthzCall[]; authn?: AuthnRequest[] } = {}) {
  return startNodeServer(
    {
      server: 'main',
      tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, rejectUnauthorized: false },
      routes: routes(o.seen),
      auth: { authenticator: stubAuthenticator(o.anonymous ?? false, o.authn), authorize: stubAuthorize(o.calls) },
      enableDebuggingHandlers: o.debugging ?? true,
    },
    stops,
  );
}

const admin = (): { cert: string; key: string } => ({ cert: pki.clientCert, key: pki.clientKey });

describe('main server (HTTPS, authenticated)', () => {
  it('serves a route to a verified client certificate, and authorizes the path and method', async () => {
    const calls: AuthzCall[] = [];
    const authn: AuthnRequest[] = [];
    const s = await mainServer({ calls, authn });
    const r = await ask(s.port, '/pods', pki.ca, { cert: admin() });
    expect(r).toMatchObject({ status: 200, body: 'pods for admin' });
    expect(authn[0]?.clientCertificate?.subject.CN).toBe('admin');
    expect(calls).toEqual([{ user: { name: 'admin', groups: ['system:masters'] }, method: 'GET', path: '/pods' }]);
    expect((await ask(s.port, '/stats/summary', pki.ca, { cert: admin() })).body).toBe('stats /stats/summary');
    await s.observedAtLeast(2);
    expect(s.observed[0]).toMatchObject({ server: 'main', method: 'GET', path: '/pods', code: 200, upgrade: '' });
  });

  it('401 without credentials, with a certificate of another CA, with a refused token; anonymous when allowed', async () => {
    const s = await mainServer();
    expect(await ask(s.port, '/pods', pki.ca)).toMatchObject({ status: 401, body: 'Unauthorized\n' });
    expect(await ask(s.port, '/pods', pki.ca, { cert: { cert: pki.strangerCert, key: pki.strangerKey } })).toMatchObject({ status: 401 });
    expect(await ask(s.port, '/pods', pki.ca, { headers: { Authorization: 'Bearer nope' } })).toMatchObject({ status: 401 });
    expect(await ask(s.port, '/pods', pki.ca, { headers: { Authorization: 'Bearer good-alice' } })).toMatchObject({ status: 200, body: 'pods for alice' });
    const anon = await mainServer({ anonymous: true });
    expect(await ask(anon.port, '/pods', pki.ca)).toMatchObject({ status: 200, body: 'pods for system:anonymous' });
  });

  it("403 with the authorizer's reason", async () => {
    const s = await mainServer({ anonymous: true });
    const r = await ask(s.port, '/pods', pki.ca, { headers: { Authorization: 'Bearer good-denied' } });
    expect(r).toMatchObject({ status: 403, body: 'Forbidden (user=denied, verb=get, resource=nodes, subresource=proxy)\n' });
    expect((await ask(s.port, '/configz', pki.ca)).status).toBe(403);
    await s.observedAtLeast(2);
    expect(s.observed.map((o) => [o.path, o.code])).toEqual([['/pods', 403], ['/configz', 403]]);
  });

  it('404 for unknown paths, 405 with Allow for other methods, HEAD wherever GET', async () => {
    const s = await mainServer();
    expect(await ask(s.port, '/nope', pki.ca, { cert: admin() })).toMatchObject({ status: 404, body: '404 page not found\n' });
    expect(await ask(s.port, '/podsx', pki.ca, { cert: admin() })).toMatchObject({ status: 404 });
    const r = await ask(s.port, '/pods', pki.ca, { cert: admin(), method: 'DELETE' });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD');
    expect(await ask(s.port, '/pods', pki.ca, { cert: admin(), method: 'HEAD' })).toMatchObject({ status: 200, body: '' });
    await s.observedAtLeast(4);
    expect(s.observed.map((o) => o.path)).toEqual(['other', 'other', '/pods', '/pods']);
  });

  it('400 for malformed or over-encoded paths and query values, before any route or authentication', async () => {
    const authn: AuthnRequest[] = [];
    const s = await mainServer({ authn });
    for (const path of ['/pods%zz', '/containerLogs/ns%2Fx/p/c', '/containerLogs/a/%252e%252e/c', '/pods/%2e%2e/configz', '/pods?x=%ff', '/pods?x=%']) {
      const r = await ask(s.port, path, pki.ca, { cert: admin() });
      expect([path, r.status]).toEqual([path, 400]);
    }
    expect(authn).toEqual([]);
  });

  it('debugging routes are 404 without --enable-debugging-handlers', async () => {
    const s = await mainServer({ debugging: false });
    for (const path of ['/configz', '/containerLogs/ns/p/c', '/logs/syslog', '/exec/ns/p/c']) {
      expect([path, (await ask(s.port, path, pki.ca, { cert: admin() })).status]).toEqual([path, 404]);
    }
    expect((await ask(s.port, '/pods', pki.ca, { cert: admin() })).status).toBe(200);
  });

  it('a route that throws is a 500, logged once', async () => {
    const s = await mainServer();
    expect(await ask(s.port, '/boom', pki.ca, { cert: admin() })).toMatchObject({ status: 500, body: 'Internal Error: kaboom\n' });
    expect(s.records.filter((r) => r.level === 'error')).toEqual([expect.objectContaining({ msg: 'request handler failed', fields: expect.objectContaining({ error: 'kaboom', route: '/boom' }) })]);
  });

  it('refuses a main server without tls or auth at creation', () => {
    expect(() => createNodeServer({ server: 'main', address: '127.0.0.1', port: 1, tls: undefined, routes: [], auth: undefined, enableDebuggingHandlers: true, log: testLogger() })).toThrow(/needs tls and auth/);
  });
});

describe('read-only server (plain HTTP)', () => {
  it('serves only read-only routes, without authentication', async () => {
    const s = await startNodeServer({ server: 'readOnly', tls: undefined, routes: routes(), auth: undefined, enableDebuggingHandlers: true }, stops);
    expect(await ask(s.port, '/pods', undefined)).toMatchObject({ status: 200, body: 'pods for -' });
    for (const [path, method] of [['/exec/ns/p/c', 'POST'], ['/run/ns/p/c', 'POST'], ['/configz', 'GET'], ['/containerLogs/ns/p/c', 'GET'], ['/logs/', 'GET']] as const) {
      expect([path, (await ask(s.port, path, undefined, { method })).status]).toEqual([path, 404]);
    }
    expect(s.observed.every((o) => o.server === 'readOnly')).toBe(true);
  });

  it('port 0 is disabled: ready at once, no address, stops on abort', async () => {
    const s = await startNodeServer({ server: 'readOnly', tls: undefined, routes: [], auth: undefined, enableDebuggingHandlers: true, port: 0 }, stops);
    expect(s.server.address()).toBeUndefined();
    await s.stop();
  });

  it('a port in use fails the start with ESTARTUP naming the address', async () => {
    const a = await startNodeServer({ server: 'readOnly', tls: undefined, routes: [], auth: undefined, enableDebuggingHandlers: true }, stops);
    const b = createNodeServer({ server: 'readOnly', address: '127.0.0.1', port: a.port, tls: undefined, routes: [], auth: undefined, enableDebuggingHandlers: true, log: testLogger() });
    const err: unknown = await b.run(new AbortController().signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect((err as AgentError).code).toBe('ESTARTUP');
    expect((err as Error).message).toContain(`127.0.0.1:${a.port}`);
  });
});

/** A plain TCP client: sends `data`, resolves with everything received once the server closes. */
async function rawUntilClose(port: number, data: string): Promise<string> {
  const sock = netConnect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  sock.on('data', (c: Buffer) => chunks.push(c));
  sock.on('error', () => {});
  await once(sock, 'connect');
  sock.write(data);
  await once(sock, 'close');
  return Buffer.concat(chunks).toString();
}

async function openSocket(port: number): Promise<Socket> {
  const sock = netConnect(port, '127.0.0.1');
  sock.on('error', () => {});
  await once(sock, 'connect');
  return sock;
}

describe('limits', () => {
  const readOnly = (limits: Parameters<typeof startNodeServer>[0]['limits']) =>
    startNodeServer({ server: 'readOnly', tls: undefined, routes: routes(), auth: undefined, enableDebuggingHandlers: true, limits }, stops);

  it('431 for headers over the limit; 413 for a declared body over the limit; 411 for a chunked body', async () => {
    const s = await readOnly({ maxHeaderBytes: 2048, maxBodyBytes: 10 });
    expect((await ask(s.port, '/pods', undefined, { headers: { 'X-Big': 'x'.repeat(4096) } })).status).toBe(431);
    expect((await ask(s.port, '/upload', undefined, { method: 'POST', body: 'x'.repeat(11) })).status).toBe(413);
    expect((await ask(s.port, '/upload', undefined, { method: 'POST', body: 'x'.repeat(10) })).status).toBe(200);
    const chunked = await rawUntilClose(s.port, 'POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n1\r\nx\r\n0\r\n\r\n');
    expect(chunked).toMatch(/^HTTP\/1\.1 411 /);
  });

  it('a client that never finishes its headers is cut off with 408', async () => {
    const s = await readOnly({ headersTimeoutMs: 200, requestTimeoutMs: 200, checkIntervalMs: 50 });
    const got = await rawUntilClose(s.port, 'GET /pods HTTP/1.1\r\nHost: x\r\n');
    expect(got).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('connections beyond the cap are closed at accept; the other server still answers; a freed slot serves again', async () => {
    const s = await readOnly({ maxConnections: 2 });
    const other = await readOnly({});
    const held = [await openSocket(s.port), await openSocket(s.port)];
    // Wait until the server counts both (a request on each answered).
    for (const sock of held) {
      sock.write('GET /pods HTTP/1.1\r\nHost: x\r\n\r\n');
      await once(sock, 'data');
    }
    const refused = await rawUntilClose(s.port, 'GET /pods HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(refused).toBe('');
    expect((await ask(other.port, '/pods', undefined)).status).toBe(200);
    held[0]!.destroy();
    await once(held[0]!, 'close');
    // The server learns of the close asynchronously: retry a bounded number of times.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) status = await ask(s.port, '/pods', undefined).then((r) => r.status, () => 0);
    expect(status).toBe(200);
    held[1]!.destroy();
  });

  it.each(['readOnly', 'main'] as const)('%s: past the age cap an idle connection is closed, one with a response in flight only after the response', async (kind) => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const hold: Route = { path: '/hold', readOnly: true, debugging: false, methods: ['GET'], handle: async ({ res }) => { res.writeHead(200); res.write('a'); await released; res.end('b'); } };
    const main = kind === 'main';
    const s = await startNodeServer(
      {
        server: kind,
        tls: main ? { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, rejectUnauthorized: false } : undefined,
        routes: [hold, ...routes()],
        auth: main ? { authenticator: stubAuthenticator(true), authorize: stubAuthorize() } : undefined,
        enableDebuggingHandlers: true,
        limits: { maxConnectionAgeMs: 300, checkIntervalMs: 50 },
      },
      stops,
    );
    const open = async (): Promise<Duplex> => {
      if (!main) return openSocket(s.port);
      const t = tlsConnect({ port: s.port, host: '127.0.0.1', ca: pki.ca });
      t.on('error', () => {});
      await once(t, 'secureConnect');
      return t;
    };
    const busy = await open();
    const busyData: Buffer[] = [];
    busy.on('data', (c: Buffer) => busyData.push(c));
    busy.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(busy, 'data');
    // A younger idle keep-alive connection: once it is swept, the busy one is past the cap too.
    const idle = await open();
    idle.on('data', () => {});
    idle.write('GET /pods HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(idle, 'close');
    expect(busy.destroyed).toBe(false);
    release();
    await once(busy, 'close');
    expect(Buffer.concat(busyData).toString()).toMatch(/\r\n\r\n.*a.*b/s);
  });
});

/** Opens a TLS connection with the admin certificate (or none) and sends an Upgrade request. */
async function upgradeRequest(port: number, path: string, cert: boolean): Promise<{ sock: import('node:tls').TLSSocket; head: string }> {
  const sock = tlsConnect({ port, host: '127.0.0.1', ca: pki.ca, ...(cert ? admin() : {}) });
  sock.on('error', () => {});
  await once(sock, 'secureConnect');
  sock.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n`);
  let got = '';
  for (let i = 0; i < 100 && !got.includes('\r\n\r\n'); i++) {
    const [chunk] = (await once(sock, 'data')) as [Buffer];
    got += chunk.toString();
  }
  return { sock, head: got };
}

describe('upgrades', () => {
  it('reach route.upgrade with the socket after authentication; refused before it otherwise', async () => {
    const seen: Seen = { upgrades: [] };
    const s = await mainServer({ seen });
    const { sock, head } = await upgradeRequest(s.port, '/exec/ns/p/c?command=sh', true);
    expect(head).toMatch(/^HTTP\/1\.1 101 /);
    sock.write('ping');
    const [echo] = (await once(sock, 'data')) as [Buffer];
    expect(echo.toString()).toBe('ping');
    expect(seen.upgrades).toEqual([{ user: 'admin', path: '/exec/ns/p/c', head: 0 }]);
    sock.end();
    await once(sock, 'close');

    const anon = await upgradeRequest(s.port, '/exec/ns/p/c', false);
    expect(anon.head).toMatch(/^HTTP\/1\.1 401 /);
    const noHandler = await upgradeRequest(s.port, '/pods', true);
    expect(noHandler.head).toMatch(/^HTTP\/1\.1 400 /);
    const unknown = await upgradeRequest(s.port, '/nope', true);
    expect(unknown.head).toMatch(/^HTTP\/1\.1 404 /);
    for (const c of [anon.sock, noHandler.sock, unknown.sock]) if (!c.destroyed) await once(c, 'close');
    await s.observedAtLeast(4);
    expect(s.observed.filter((o) => o.upgrade === 'spdy').map((o) => [o.path, o.code]).sort()).toEqual([['/exec/', 101], ['/exec/', 401], ['/pods', 400], ['other', 404]].sort());
  });
  it('a refused upgrade whose client keeps its side open is closed by the server', async () => {
    const s = await startNodeServer({ server: 'readOnly', tls: undefined, routes: routes(), auth: undefined, enableDebuggingHandlers: true }, stops);
    const sock = netConnect({ port: s.port, host: '127.0.0.1', allowHalfOpen: true });
    sock.on('error', () => {});
    const chunks: Buffer[] = [];
    sock.on('data', (c: Buffer) => chunks.push(c));
    await once(sock, 'connect');
    sock.write('GET /pods HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    await once(sock, 'end');
    // The observer hears of an upgrade when the server's socket closes: the client never closed its side.
    await s.observedAtLeast(1);
    expect(s.observed[0]).toMatchObject({ path: '/pods', code: 400, upgrade: 'websocket' });
    expect(Buffer.concat(chunks).toString()).toMatch(/^HTTP\/1\.1 400 /);
    sock.destroy();
  });
});

describe('stop', () => {
  it('aborts in-flight requests, closes keep-alive and upgraded connections, then resolves', async () => {
    let signalled: AbortSignal | undefined;
    const stream: Route = {
      path: '/follow',
      readOnly: true,
      debugging: false,
      methods: ['GET'],
      handle: async ({ res, signal }) => {
        signalled = signal;
        res.writeHead(200);
        res.write('first');
        await once(signal, 'abort');
      },
    };
    const s = await startNodeServer(
      { server: 'main', tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, rejectUnauthorized: false }, routes: [stream, ...routes()], auth: { authenticator: stubAuthenticator(true), authorize: stubAuthorize() }, enableDebuggingHandlers: true },
      stops,
    );
    const up = await upgradeRequest(s.port, '/exec/ns/p/c', true);
    const follow = tlsConnect({ port: s.port, host: '127.0.0.1', ca: pki.ca });
    follow.on('error', () => {});
    await once(follow, 'secureConnect');
    follow.write('GET /follow HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(follow, 'data');
    const closed = [once(up.sock, 'close'), once(follow, 'close')];
    await s.stop();
    await Promise.all(closed);
    expect(signalled?.aborted).toBe(true);
    expect(s.server.address()).toBeUndefined();
  });
  it('many streams at once: each sees its own abort on stop, and no listener-leak warning is raised', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    let aborted = 0;
    const follow: Route = { path: '/follow', readOnly: true, debugging: false, methods: ['GET'], handle: async ({ res, signal }) => { res.writeHead(200); res.write('x'); await once(signal, 'abort'); aborted += 1; } };
    const s = await startNodeServer({ server: 'readOnly', tls: undefined, routes: [follow], auth: undefined, enableDebuggingHandlers: true }, stops);
    const socks = await Promise.all(Array.from({ length: 15 }, () => openSocket(s.port)));
    for (const sock of socks) sock.write('GET /follow HTTP/1.1\r\nHost: x\r\n\r\n');
    await Promise.all(socks.map((sock) => once(sock, 'data')));
    const closed = socks.map((sock) => once(sock, 'close'));
    await s.stop();
    await Promise.all(closed);
    await new Promise<void>((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(aborted).toBe(15);
    expect(warnings).toEqual([]);
  });
});

describe('load governor', () => {
  it('a held request is answered after its hold; one whose client leaves during the hold never reaches its route', async () => {
    const reached: string[] = [];
    const held: Route[] = [{ path: '/pods', readOnly: true, debugging: false, methods: ['GET'], handle: async ({ res, url }) => { reached.push(url.search); res.end('pods'); } }];
    const s = await startNodeServer({ server: 'readOnly', tls: undefined, routes: held, auth: undefined, enableDebuggingHandlers: false, governor: { enter: () => 200, leave: () => undefined } }, stops);
    expect(await ask(s.port, '/pods?answered', undefined)).toMatchObject({ status: 200, body: 'pods' });
    const sock = netConnect(s.port, '127.0.0.1');
    await once(sock, 'connect');
    sock.write('GET /pods?left HTTP/1.1\r\nHost: x\r\n\r\n');
    sock.destroy();
    await s.observedAtLeast(2);
    expect(await ask(s.port, '/pods?after', undefined)).toMatchObject({ status: 200 });
    expect(reached).toEqual(['?answered', '?after']);
  });
});
