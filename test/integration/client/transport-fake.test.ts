// The transport against a loopback HTTPS server that misbehaves on purpose,
// for what the real platform-apiserver never does: resets mid-request, broken
// gzip, HTML error pages, an HTTP-date Retry-After, no answer at all, a
// certificate valid only for another name, a server URL with a path.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiStatusError, ClientConnectionError, ClientProtocolError } from '../../../src/client/errors.js';
import { createTransport, type TransportOptions } from '../../../src/client/transport/index.js';
import type { ConnectionConfig, Transport } from '../../../src/client/types.js';
import { testLogger } from '../../helpers/test-logger.js';

/** A self-signed serving certificate valid only for DNS name `fake.local`. */
function servingCert(dir: string): { cert: string; key: string } {
  writeFileSync(join(dir, 'ext.cnf'), '[req]\ndistinguished_name=dn\n[dn]\n[v3]\nbasicConstraints=critical,CA:TRUE\nsubjectAltName=DNS:fake.local\n');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '2', '-subj', '/CN=fake.local', '-config', join(dir, 'ext.cnf'), '-extensions', 'v3'], { stdio: 'ignore' });
  return { cert: readFileSync(join(dir, 'c.pem'), 'utf8'), key: readFileSync(join(dir, 'k.pem'), 'utf8') };
}

describe('client transport against a misbehaving server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'client-fake-'));
  let server: Server;
  let conn: ConnectionConfig;
  const hits = new Map<string, number>();
  const open: Transport[] = [];

  beforeAll(async () => {
    const tls = servingCert(dir);
    server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const n = (hits.get(path) ?? 0) + 1;
      hits.set(path, n);
      switch (path) {
        case '/echo':
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
          return;
        case '/prefix/api':
          res.writeHead(200).end('prefixed');
          return;
        case '/reset':
          req.socket.destroy();
          return;
        case '/broken-gzip':
          res.writeHead(200, { 'content-encoding': 'gzip' }).end('this is not gzip');
          return;
        case '/html-502':
          res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>');
          return;
        case '/date-retry-after':
          if (n === 1) res.writeHead(429, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }).end();
          else res.writeHead(200).end('ok');
          return;
        case '/silent':
          return; // never answers; the server's closeAllConnections() ends it
        default:
          res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    conn = { server: `https://127.0.0.1:${port}`, ca: tls.cert, insecureSkipTlsVerify: false, tlsServerName: 'fake.local', clientCert: undefined, token: 'sekrit', tokenFile: undefined, namespace: 'default', source: { file: '-', context: '-' } };
  });
  afterAll(async () => {
    await Promise.all(open.map((t) => t.close()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const make = (c: Partial<ConnectionConfig> = {}, o: Partial<TransportOptions> = {}): { t: Transport; sleeps: number[] } => {
    const sleeps: number[] = [];
    const t = createTransport({ ...conn, ...c }, { qps: 100, burst: 100, eventQps: 100, eventBurst: 100, log: testLogger(), sleep: async (ms) => void sleeps.push(ms), random: () => 0, ...o });
    open.push(t);
    return { t, sleeps };
  };

  it('sends the token, a user agent and accept-encoding gzip, beside the caller\'s headers', async () => {
    const res = await make().t.request({ method: 'GET', path: '/echo', headers: { accept: 'application/json' } });
    const h = JSON.parse(res.body.toString('utf8')) as Record<string, string>;
    expect({ auth: h['authorization'], enc: h['accept-encoding'], accept: h['accept'] }).toEqual({ auth: 'Bearer sekrit', enc: 'gzip', accept: 'application/json' });
    expect(h['user-agent']).toMatch(/^agent\/v/);
  });

  it('tls-server-name is the name checked; without it the IP does not match the certificate', async () => {
    expect((await make().t.request({ method: 'GET', path: '/echo' })).status).toBe(200);
    const err = await make({ tlsServerName: undefined }).t.request({ method: 'GET', path: '/echo', idempotent: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientConnectionError);
    expect((err as Error).message).toMatch(/TLS: .*ERR_TLS_CERT_ALTNAME_INVALID/);
  });

  it('insecure-skip-tls-verify accepts any certificate', async () => {
    expect((await make({ ca: undefined, tlsServerName: undefined, insecureSkipTlsVerify: true }).t.request({ method: 'GET', path: '/echo' })).status).toBe(200);
  });

  it('a server URL with a path prefixes every request', async () => {
    const res = await make({ server: `${conn.server}/prefix` }).t.request({ method: 'GET', path: '/api' });
    expect(res.body.toString()).toBe('prefixed');
  });

  it('a reset is retried for an idempotent GET, never for a POST that may have arrived', async () => {
    hits.clear();
    const get = make({}, { retry: { maxRetries: 2 } });
    const e1 = await get.t.request({ method: 'GET', path: '/reset', idempotent: true }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(ClientConnectionError);
    expect(hits.get('/reset')).toBe(3);
    expect(get.sleeps).toEqual([0, 0]);
    hits.clear();
    const post = make();
    const e2 = await post.t.request({ method: 'POST', path: '/reset', body: '{}' }).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(ClientConnectionError);
    expect((e2 as Error).message).toMatch(/^POST \/reset: /);
    expect(hits.get('/reset')).toBe(1);
    expect(post.sleeps).toEqual([]);
  });

  it('a 2xx body that does not gunzip is a ClientProtocolError on body', async () => {
    const err = await make().t.request({ method: 'GET', path: '/broken-gzip' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientProtocolError);
    expect((err as ClientProtocolError).field).toBe('body');
  });

  it('an HTML 502 is an ApiStatusError in client-go\'s words, retried while the GET may be', async () => {
    hits.clear();
    const { t, sleeps } = make({}, { retry: { maxRetries: 1 } });
    const err = await t.request({ method: 'GET', path: '/html-502', idempotent: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiStatusError);
    expect({ code: (err as ApiStatusError).code, reason: (err as ApiStatusError).reason, message: (err as Error).message }).toEqual({ code: 502, reason: 'InternalError', message: 'an error on the server ("<html>bad gateway</html>") has prevented the request from succeeding' });
    expect(hits.get('/html-502')).toBe(2);
    expect(sleeps).toHaveLength(1);
  });

  it('a Retry-After that is an HTTP date is ignored: the 429 waits 1 s', async () => {
    const { t, sleeps } = make();
    expect((await t.request({ method: 'GET', path: '/date-retry-after' })).status).toBe(200);
    expect(sleeps).toEqual([1000]);
  });

  it('no answer within timeoutMs is a ClientConnectionError; a POST is not sent again', async () => {
    hits.clear();
    const { t, sleeps } = make();
    const err = await t.request({ method: 'POST', path: '/silent', body: '{}', timeoutMs: 100 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientConnectionError);
    expect((err as Error).message).toBe('POST /silent: no response within 100 ms');
    expect(hits.get('/silent')).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('the caller\'s abort during a back-off wait rejects with its reason at once', async () => {
    const ac = new AbortController();
    const reason = new Error('stopping');
    let waiting!: () => void;
    const inBackoff = new Promise<void>((resolve) => (waiting = resolve));
    const sleep = (_ms: number, signal: AbortSignal): Promise<void> =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        waiting();
      });
    const t = make({}, { sleep }).t;
    const pending = t.request({ method: 'GET', path: '/reset', idempotent: true, signal: ac.signal }).catch((e: unknown) => e);
    // The first attempt is reset; abort while the transport waits to retry.
    await inBackoff;
    ac.abort(reason);
    expect(await pending).toBe(reason);
  });
});
