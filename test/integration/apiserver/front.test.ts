// The front over real HTTPS on an ephemeral loopback port: certificates,
// client-certificate and token authentication, the 401/403/413/500 paths,
// health and /version, kubectl with the admin platformconfig, and a graceful
// stop that ends an open streaming response.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Status } from '../../../src/api/errors.js';
import { generateKeyPair, issueCertificate, privateKeyPem } from '../../../src/pki/x509.js';
import type { ApiHandler } from '../../../src/apiserver/http/routes.js';
import { startApiServer, type RunningApiServer } from '../../../src/apiserver/main.js';
import { parseCommandLine } from '../../../src/apiserver/options/parse.js';
import { validateConfig } from '../../../src/apiserver/options/validate.js';
import { testLogger } from '../../helpers/test-logger.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'apiserver-front-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** A client CA the test makes, and certificates it signs. */
function clientPki() {
  const ca = generateKeyPair();
  const now = new Date(Date.now() - 60_000);
  const later = new Date(Date.now() + 3_600_000);
  const caSubject = { commonName: 'test-client-ca' };
  const caPem = issueCertificate({ subject: caSubject, publicKey: ca.publicKey, selfKey: ca.privateKey, notBefore: now, notAfter: later, isCA: true });
  const client = (commonName: string, organizations: string[]) => {
    const k = generateKeyPair();
    const cert = issueCertificate({ subject: { commonName, organizations }, publicKey: k.publicKey, issuer: { subject: caSubject, ...ca }, notBefore: now, notAfter: later, isCA: false, usage: 'client' });
    return { cert, key: privateKeyPem(k.privateKey) };
  };
  return { caPem, client };
}

/** The handler the registry will be: echoes who asked, reads bodies, fails on purpose, streams until stopped. */
const handler: ApiHandler = async (req, res) => {
  const { info } = req;
  if (info.resource === 'boom') throw new TypeError('handler bug');
  if (info.resource === 'stubborn') {
    // Ignores its signal: only the server's grace deadline ends it.
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{');
    await new Promise<void>((resolve) => res.on('close', () => resolve()));
    return;
  }
  if (info.verb === 'watch') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.write(JSON.stringify({ type: 'ADDED', object: { kind: 'Pod', metadata: { name: 'p', resourceVersion: '1' } } }) + '\n');
    await new Promise<void>((resolve) => req.signal.addEventListener('abort', () => resolve(), { once: true }));
    res.end();
    return;
  }
  const body = info.verb === 'create' ? (await req.body()).length : 0;
  const text = JSON.stringify({ user: req.user.name, groups: req.user.groups, verb: info.verb, resource: info.resource, body });
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(text);
};

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(server: RunningApiServer, path: string, opts: { method?: string; token?: string; cert?: { cert: string; key: string }; body?: Buffer; headers?: Record<string, string> } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method: opts.method ?? 'GET',
        ca: server.caPem,
        agent: false,
        headers: { ...(opts.token === undefined ? {} : { authorization: `Bearer ${opts.token}` }), ...(opts.headers ?? {}) },
        ...(opts.cert === undefined ? {} : { cert: opts.cert.cert, key: opts.cert.key }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const status = (r: Reply): Status => JSON.parse(r.body) as Status;

async function start(extraArgs: string[] = [], dir = tmp(), shutdownGraceMs = 5_000) {
  const pki = clientPki();
  writeFileSync(join(dir, 'client-ca.crt'), pki.caPem);
  writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,u-1,"dev,ops"\n');
  const argv = ['--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${join(dir, 'certs')}`, `--client-ca-file=${join(dir, 'client-ca.crt')}`, `--token-auth-file=${join(dir, 'tokens.csv')}`, `--admin-platformconfig=${join(dir, 'admin.conf')}`, '--max-resource-write-bytes=1024', ...extraArgs];
  const { config } = parseCommandLine(argv);
  const v = validateConfig(config);
  expect(v.problems).toEqual([]);
  const ac = new AbortController();
  const log = testLogger([], 'test', 0);
  const server = await startApiServer({ config, gates: v.gates }, { handle: handler, shutdownGraceMs }, log, ac.signal);
  cleanups.push(async () => {
    ac.abort();
    await server.stopped;
  });
  return { server, ac, pki, dir, log };
}

describe('platform-apiserver front over HTTPS', () => {
  it('health without credentials; 401 Status for a request without credentials or with a bad token', async () => {
    const { server } = await start();
    for (const p of ['/healthz', '/livez', '/readyz']) expect(await call(server, p)).toMatchObject({ status: 200, body: 'ok' });
    for (const token of [undefined, 'wrong']) {
      const r = await call(server, '/api/v1/pods', token === undefined ? {} : { token });
      expect(r.status).toBe(401);
      expect(status(r)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    }
  });

  it('a token from --token-auth-file authenticates; without system:masters the answer is 403 with upstream\'s message', async () => {
    const { server } = await start();
    const r = await call(server, '/api/v1/namespaces/default/pods', { token: 'alice-token' });
    expect(r.status).toBe(403);
    expect(status(r)).toMatchObject({ reason: 'Forbidden', code: 403, message: 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"', details: { kind: 'pods' } });
    expect(r.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('the admin token reaches the handler, /version answers', async () => {
    const { server } = await start();
    expect(server.adminToken).toMatch(/^[0-9a-f]{64}$/);
    const r = await call(server, '/api/v1/namespaces/default/pods', { token: server.adminToken! });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ user: 'admin', groups: ['system:masters', 'system:authenticated'], verb: 'list', resource: 'pods', body: 0 });
    const v = await call(server, '/version', { token: server.adminToken! });
    expect(JSON.parse(v.body)).toMatchObject({ major: '1', minor: '28', goVersion: process.version });
    // An idle connection is kept 90 s (kube-apiserver's idle timeout), not node's 5 s: a node's lease renewal every 10 s reuses it.
    const kept = await call(server, '/version', { token: server.adminToken!, headers: { connection: 'keep-alive' } });
    expect(kept.headers['keep-alive']).toBe('timeout=90');
  });

  it('client certificates: CN is the user, O the groups', async () => {
    const { server, pki } = await start();
    const master = await call(server, '/api/v1/nodes', { cert: pki.client('ops-admin', ['system:masters']) });
    expect(JSON.parse(master.body)).toMatchObject({ user: 'ops-admin', groups: ['system:masters', 'system:authenticated'] });
    const node = await call(server, '/api/v1/nodes/n1', { cert: pki.client('system:node:n1', ['system:nodes']) });
    expect(status(node).message).toBe('nodes "n1" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope');
  });

  it('a certificate from another CA is not an identity: 401', async () => {
    const { server } = await start();
    const stranger = clientPki().client('mallory', ['system:masters']);
    expect((await call(server, '/api/v1/nodes', { cert: stranger })).status).toBe(401);
  });

  it('413 for a body over --max-resource-write-bytes, declared or streamed; 500 Status for a handler bug; the server keeps serving', async () => {
    const { server, log } = await start();
    const token = server.adminToken!;
    const declared = await call(server, '/api/v1/namespaces/default/pods', { method: 'POST', token, body: Buffer.alloc(2048) });
    expect(declared.status).toBe(413);
    expect(status(declared)).toMatchObject({ reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 1024' });
    const chunked = await call(server, '/api/v1/namespaces/default/pods', { method: 'POST', token, headers: { 'transfer-encoding': 'chunked' }, body: Buffer.alloc(2048) });
    expect(chunked.status).toBe(413);
    const fine = await call(server, '/api/v1/namespaces/default/pods', { method: 'POST', token, body: Buffer.alloc(100) });
    expect(JSON.parse(fine.body)).toMatchObject({ verb: 'create', body: 100 });
    const boom = await call(server, '/api/v1/boom', { token });
    expect(boom.status).toBe(500);
    expect(status(boom)).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: handler bug' });
    expect(log.records.some((r) => r.level === 'error' && r.msg.includes('unexpected error'))).toBe(true);
    expect((await call(server, '/healthz')).status).toBe(200);
  });

  it('kubectl reads /version with the admin platformconfig (0600)', async () => {
    const { dir } = await start();
    const conf = join(dir, 'admin.conf');
    const { statSync } = await import('node:fs');
    expect(statSync(conf).mode & 0o777).toBe(0o600);
    expect(readFileSync(conf, 'utf8')).toMatch(/^apiVersion: v1\nkind: Config\n/);
    const out = await new Promise<string>((resolve, reject) => {
      execFile('kubectl', ['--kubeconfig', conf, 'get', '--raw', '/version'], { timeout: 30_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
    });
    expect(JSON.parse(out)).toMatchObject({ major: '1', minor: '28', gitVersion: expect.stringMatching(/^v1\.28\.0-platform\./) });
  });

  it('the CA and serving certificate in --cert-dir are reused on the next start', async () => {
    const dir = tmp();
    const first = await start([], dir);
    first.ac.abort();
    await first.server.stopped;
    const second = await start([], dir);
    expect(second.server.caPem).toBe(first.server.caPem);
    expect(second.server.adminToken).not.toBe(first.server.adminToken);
  });

  it('stopping ends an open watch stream cleanly, then closes', async () => {
    const { server, ac } = await start();
    const ended = new Promise<{ status: number; lines: string[]; complete: boolean }>((resolve, reject) => {
      const req = request(`${server.url}/api/v1/pods?watch=1`, { ca: server.caPem, agent: false, headers: { authorization: `Bearer ${server.adminToken!}` } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
          if (text.includes('\n')) ac.abort(); // the first event arrived: stop the server
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, lines: text.trim().split('\n'), complete: res.complete }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    const got = await ended;
    expect(got).toEqual({ status: 200, lines: [expect.stringContaining('"ADDED"')], complete: true });
    await server.stopped;
  });

  it('a request that ignores the stop is cut off after the grace period', async () => {
    const { server, ac, log } = await start([], tmp(), 200);
    const outcome = new Promise<string>((resolve) => {
      const req = request(`${server.url}/api/v1/stubborn`, { ca: server.caPem, agent: false, headers: { authorization: `Bearer ${server.adminToken!}` } }, (res) => {
        res.once('data', () => ac.abort());
        res.on('end', () => resolve(res.complete ? 'complete' : 'incomplete'));
        res.on('aborted', () => resolve('aborted'));
        res.on('error', () => resolve('error'));
      });
      req.on('error', () => resolve('error'));
      req.end();
    });
    expect(await outcome).not.toBe('complete');
    await server.stopped;
    expect(log.records.some((r) => r.msg.includes('still running after the grace period'))).toBe(true);
  });
});
