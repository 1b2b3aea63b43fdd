// The client's config and transport against the real platform-apiserver
// (memory backend; the test-only fault API for 429/5xx): TLS with the CA of
// the admin platformconfig and a wrong one, bearer token and token file,
// client-certificate authentication, retries, gzip, Warning headers and the
// rate limiter measured.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApiCodec } from '../../../src/api/codec/index.js';
import { isNotFound } from '../../../src/api/errors.js';
import { abortableSleep } from '../../../src/lifecycle/abort.js';
import { loadPlatformConfig } from '../../../src/client/config/index.js';
import { ApiStatusError, ClientConnectionError } from '../../../src/client/errors.js';
import { createTransport, type TransportOptions } from '../../../src/client/transport/index.js';
import type { ConnectionConfig, Transport } from '../../../src/client/types.js';
import { selfSigned } from '../../conformance/helpers/certs.js';
import { startServer, USERS, type ServerHandle } from '../../conformance/helpers/server.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

/** A client CA and a client certificate it signed (CN = user, O = group), made with openssl. */
function clientPki(dir: string, cn: string, group: string): { caFile: string; cert: string; key: string } {
  const run = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore' });
  const p = (n: string): string => join(dir, n);
  writeFileSync(p('ca.cnf'), '[req]\ndistinguished_name=dn\n[dn]\n[v3]\nbasicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,digitalSignature\n');
  writeFileSync(p('client.cnf'), '[v3]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n');
  run('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.crt'), '-days', '2', '-subj', '/CN=client-ca', '-config', p('ca.cnf'), '-extensions', 'v3');
  run('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p('client.key'), '-out', p('client.csr'), '-subj', `/O=${group}/CN=${cn}`);
  run('x509', '-req', '-in', p('client.csr'), '-CA', p('ca.crt'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('client.crt'), '-days', '2', '-extfile', p('client.cnf'), '-extensions', 'v3');
  return { caFile: p('ca.crt'), cert: readFileSync(p('client.crt'), 'utf8'), key: readFileSync(p('client.key'), 'utf8') };
}

const json = (b: Buffer): { [k: string]: unknown } => JSON.parse(b.toString('utf8')) as { [k: string]: unknown };

describe('client transport against platform-apiserver [memory]', () => {
  let srv: ServerHandle;
  let conn: ConnectionConfig;
  let pki: { caFile: string; cert: string; key: string };
  const dir = mkdtempSync(join(tmpdir(), 'client-transport-'));
  const open: Transport[] = [];
  /** A transport that records its retry waits and log; closed after the file. */
  const make = (c: ConnectionConfig, o: Partial<TransportOptions> = {}): { t: Transport; sleeps: number[]; records: LogRecord[] } => {
    const sleeps: number[] = [];
    const log = testLogger([], 'client', 7);
    const t = createTransport(c, {
      qps: 1000,
      burst: 1000,
      eventQps: 1000,
      eventBurst: 1000,
      log,
      sleep: (ms, signal) => {
        sleeps.push(ms);
        return abortableSleep(ms, signal);
      },
      ...o,
    });
    open.push(t);
    return { t, sleeps, records: log.records };
  };
  const admin = (): Transport => make(conn).t;
  const fault = (t: Transport, body: object): Promise<unknown> => t.request({ method: 'POST', path: '/debug/faults/fail', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const configMap = (name: string, extra: object = {}): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' }, ...extra });

  beforeAll(async () => {
    pki = clientPki(dir, 'system:node:node9', 'system:nodes');
    srv = await startServer({ backend: 'memory', faults: true, extraArgs: [`--client-ca-file=${pki.caFile}`] });
    conn = await loadPlatformConfig(join(srv.dir, 'admin.conf'));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(open.map((t) => t.close()));
    await srv?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('connects with the CA and token of the admin platformconfig', async () => {
    expect(conn).toMatchObject({ server: srv.url, ca: srv.ca, namespace: 'default', source: { context: 'admin@platform' } });
    const res = await admin().request({ method: 'GET', path: '/api/v1/namespaces', headers: { accept: 'application/json' }, idempotent: true });
    expect(res.status).toBe(200);
    expect(json(res.body)['kind']).toBe('NamespaceList');
  });

  it('a wrong CA fails with a ClientConnectionError naming the request, not retried', async () => {
    const { t, sleeps } = make({ ...conn, ca: selfSigned('not-the-server-ca', true) });
    const err = await t.request({ method: 'GET', path: '/api', idempotent: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientConnectionError);
    expect((err as ClientConnectionError).request).toEqual({ method: 'GET', path: '/api' });
    expect((err as Error).message).toMatch(/^GET \/api: TLS: /);
    expect(sleeps).toEqual([]);
  });

  it('a bearer token authenticates; a wrong one is a 401 ApiStatusError', async () => {
    expect((await make({ ...conn, token: USERS.alice.token }).t.request({ method: 'GET', path: '/api' })).status).toBe(200);
    const err = await make({ ...conn, token: 'nope' }).t.request({ method: 'GET', path: '/api' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiStatusError);
    expect((err as ApiStatusError).code).toBe(401);
  });

  it('a token file changed mid-run is read again after a 401 and the request retried once', async () => {
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'not-a-token\n');
    const { t, records } = make({ ...conn, token: undefined, tokenFile });
    const first = await t.request({ method: 'GET', path: '/api' }).catch((e: unknown) => e);
    expect((first as ApiStatusError).code).toBe(401);
    await writeFile(tokenFile, `${USERS.bob.token}\n`);
    // Within the second since the last look: the old token goes out, gets a 401, the file is read again.
    const before = records.length;
    expect((await t.request({ method: 'GET', path: '/api' })).status).toBe(200);
    expect(records.slice(before).filter((r) => r.msg === 'Response').map((r) => r.fields['status'])).toEqual([401, 200]);
  });

  it('a client certificate authenticates as its CN (user) and O (group)', async () => {
    const { t } = make({ ...conn, token: undefined, clientCert: { cert: pki.cert, key: pki.key } });
    expect((await t.request({ method: 'GET', path: '/api' })).status).toBe(200);
    const err = await t.request({ method: 'GET', path: '/api/v1/secrets' }).catch((e: unknown) => e);
    expect((err as ApiStatusError).code).toBe(403);
    expect((err as Error).message).toContain('User "system:node:node9" cannot list resource "secrets"');
  });

  it('a 429 is retried after its Retry-After, for a GET and a POST alike', async () => {
    const { t, sleeps } = make(conn);
    await fault(t, { code: 429, count: 1, retryAfterSeconds: 1 });
    const started = Date.now();
    expect((await t.request({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', idempotent: true })).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    await fault(t, { code: 429, count: 2, retryAfterSeconds: 0 });
    const created = await t.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: configMap('after-429'), headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(201);
    expect(sleeps).toEqual([1000, 0, 0]);
  });

  it('a 5xx is retried with back-off for a GET, never for a POST', async () => {
    const { t, sleeps } = make(conn);
    await fault(t, { code: 503, count: 2 });
    expect((await t.request({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', idempotent: true })).status).toBe(200);
    expect(sleeps).toHaveLength(2);
    expect(sleeps.every((ms) => ms >= 0 && ms < 400)).toBe(true);
    await fault(t, { code: 500, count: 1 });
    const err = await t.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: configMap('after-500'), headers: { 'content-type': 'application/json' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiStatusError);
    expect({ code: (err as ApiStatusError).code, message: (err as Error).message }).toEqual({ code: 500, message: 'injected failure 500' });
    expect(sleeps).toHaveLength(2);
    await fault(t, { code: 503, count: 1, retryAfterSeconds: 1 });
    expect((await t.request({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', idempotent: true })).status).toBe(200);
    expect(sleeps.at(-1)).toBe(1000);
  });

  it('a gzip-compressed list is decoded', async () => {
    const t = admin();
    for (const n of ['gz-1', 'gz-2', 'gz-3']) await t.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: configMap(n), headers: { 'content-type': 'application/json' } });
    const res = await t.request({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', headers: { accept: 'application/json' }, idempotent: true });
    expect(res.headers['content-encoding']).toBe('gzip');
    const names = (json(res.body)['items'] as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['gz-1', 'gz-2', 'gz-3']));
  });

  it('a protobuf Status body becomes a typed error', async () => {
    await loadApiCodec();
    const err = await admin().request({ method: 'GET', path: '/api/v1/namespaces/default/pods/none', headers: { accept: 'application/vnd.platform.protobuf' }, idempotent: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiStatusError);
    expect(isNotFound(err)).toBe(true);
    expect((err as Error).message).toBe('pods "none" not found');
  });

  it('a Warning header is logged once per distinct text', async () => {
    const { t, records } = make(conn);
    for (const n of ['warn-1', 'warn-2']) {
      await t.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: configMap(n, { bogus: 1 }), headers: { 'content-type': 'application/json' } });
    }
    const warnings = records.filter((r) => r.level === 'warn').map((r) => r.msg);
    expect(warnings).toEqual(['Warning: unknown field "bogus"']);
  });

  it('a watch stream runs on its own connection, yields chunks and ends on close()', async () => {
    const { t } = make(conn);
    const s = await t.stream({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', query: new URLSearchParams({ watch: '1', resourceVersion: '0' }), limiter: 'none', idempotent: true });
    expect(s.status).toBe(200);
    const it = s.body[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.done).toBe(false);
    expect(first.value?.toString('utf8')).toContain('"type":"ADDED"');
    // Requests still flow while the watch holds its socket.
    expect((await t.request({ method: 'GET', path: '/api' })).status).toBe(200);
    s.close();
    s.close();
    for (let i = 0; i < 1000; i++) if ((await it.next()).done === true) break;
    expect((await it.next()).done).toBe(true);
  });

  it('closing the transport ends its open streams with a ClientConnectionError', async () => {
    const { t } = make(conn);
    const s = await t.stream({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', query: new URLSearchParams({ watch: '1' }), limiter: 'none' });
    const drained = (async () => {
      for await (const _ of s.body) void _;
    })().catch((e: unknown) => e);
    await t.close();
    const err = await drained;
    expect(err).toBeInstanceOf(ClientConnectionError);
    expect((err as Error).message).toBe('GET /api/v1/namespaces/default/configmaps: the transport is closed');
  });

  it('holds the rate limit: 60 requests at qps=20 burst=1', async () => {
    // When each request went out: the trace at V(7) is written right after its token.
    const sent: number[] = [];
    const trace = { info: (msg: string) => void (msg === 'Request' && sent.push(Date.now())) };
    const quiet = (): void => {};
    const log = { info: quiet, warn: quiet, error: quiet, v: (n: number) => (n === 7 ? trace : undefined) };
    const { t } = make(conn, { qps: 20, burst: 1, log });
    const started = Date.now();
    await Promise.all(Array.from({ length: 60 }, () => t.request({ method: 'GET', path: '/api' })));
    const elapsed = Date.now() - started;
    // A lower bound only: the limiter, not the machine's speed.
    expect(elapsed).toBeGreaterThanOrEqual(0.9 * (59 / 20) * 1000);
    expect(sent).toHaveLength(60);
    for (const start of sent) expect(sent.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(21);
  });
});

describe('client transport without a server', () => {
  it('a refused connection is retried (never sent, so any request) and then a ClientConnectionError', async () => {
    const sleeps: number[] = [];
    const t = createTransport(
      { server: 'https://127.0.0.1:9', ca: undefined, insecureSkipTlsVerify: true, tlsServerName: undefined, clientCert: undefined, token: undefined, tokenFile: undefined, namespace: 'default', source: { file: '-', context: '-' } },
      { qps: 100, burst: 100, eventQps: 100, eventBurst: 100, log: testLogger(), sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 },
    );
    try {
      const err = await t.request({ method: 'POST', path: '/api/v1/namespaces/a/events', body: '{}', limiter: 'events' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClientConnectionError);
      expect((err as Error).message).toMatch(/^POST \/api\/v1\/namespaces\/a\/events: .*ECONNREFUSED/);
      expect(sleeps).toEqual([100, 200, 400, 800, 1600]);
    } finally {
      await t.close();
    }
  });
});
