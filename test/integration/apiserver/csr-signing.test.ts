// platform-apiserver started as the binary does (cli main(), over real HTTPS
// on a loopback port) with --csr-signing=node-client: a node's TLS bootstrap
// end to end (bootstrap token → CSR → approved and issued → the certificate
// authenticates as system:node:<name>), TokenReview of a static token, and
// the platform-root-ca.crt ConfigMap of a new namespace, restored after a
// delete.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { NODE_CLIENT_SIGNER, NODE_CLIENT_USAGES, NODE_CSR_PREFIX, nodeClientSubject } from '../../../src/api/signers.js';
import { main } from '../../../src/apiserver/cli.js';
import { generateKeyPair, privateKeyPem } from '../../../src/pki/x509.js';
import { createCsrPem } from '../../../src/apiserver/controllers/pkcs10.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies

interface Creds {
  token?: string;
  cert?: string;
  key?: string;
}

let dir: string;
let url: string;
let ca: string;
let admin: Creds;
const stop = new AbortController();
let exited: Promise<number>;
const BOOTSTRAP: Creds = { token: 'boot-token-abc123' };

function call(method: string, path: string, who: Creds, body?: unknown): Promise<{ status: number; json: Json }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(who.token === undefined ? {} : { authorization: `Bearer ${who.token}` }) };
    const req = request(`${url}${path}`, { method, ca, headers, agent: false, ...(who.cert === undefined ? {} : { cert: who.cert, key: who.key }) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Json }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Watches `path` until an event satisfies `pred`; bounded by `timeoutMs`. */
function watchUntil(path: string, pred: (type: string, obj: Json) => boolean, timeoutMs = 15_000): Promise<Json> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}${path.includes('?') ? '&' : '?'}watch=1`, { ca, agent: false, headers: { authorization: `Bearer ${admin.token!}` } }, (res) => {
      let buf = '';
      res.on('data', (c: Buffer) => {
        buf += c.toString();
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const ev = JSON.parse(buf.slice(0, nl)) as { type: string; object: Json };
          buf = buf.slice(nl + 1);
          if (pred(ev.type, ev.object)) {
            clearTimeout(timer);
            req.destroy();
            resolve(ev.object);
            return;
          }
        }
      });
      res.on('error', () => undefined);
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no matching event on ${path} within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', () => undefined);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'apiserver-csr-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${BOOTSTRAP.token!},system:bootstrap:abc123,uid-boot,"system:bootstrappers"\nbob-token,bob,uid-bob,""\n`);
  const conf = join(dir, 'admin.conf');
  const stdout = new PassThrough();
  const serving = new Promise<void>((resolve) => {
    let text = '';
    stdout.on('data', (c: Buffer) => {
      text += c.toString();
      if (text.includes('platform-apiserver is serving')) resolve();
    });
  });
  exited = main(['--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${join(dir, 'certs')}`, `--token-auth-file=${tokens}`, `--admin-platformconfig=${conf}`, '--csr-signing=node-client'], { stdout, stderr: stdout, signal: stop.signal });
  await Promise.race([serving, exited.then((code) => Promise.reject(new Error(`main exited ${code}`)))]);
  const pc = parse(readFileSync(conf, 'utf8')) as Json;
  url = pc.clusters[0].cluster.server as string;
  ca = Buffer.from(pc.clusters[0].cluster['certificate-authority-data'] as string, 'base64').toString();
  admin = { token: pc.users[0].user.token as string };
}, 30_000);

afterAll(async () => {
  stop.abort();
  expect(await exited).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

describe('--csr-signing=node-client', () => {
  it('a bootstrap token gets a node client certificate that authenticates as the node', async () => {
    const key = generateKeyPair();
    const request = createCsrPem({ subject: nodeClientSubject('node-a'), ...key });
    const name = `${NODE_CSR_PREFIX}a`;
    const created = await call('POST', '/apis/certificates.platform.io/v1/certificatesigningrequests', BOOTSTRAP, {
      apiVersion: 'certificates.platform.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
      spec: { request: Buffer.from(request).toString('base64'), signerName: NODE_CLIENT_SIGNER, usages: NODE_CLIENT_USAGES },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.spec.username).toBe('system:bootstrap:abc123');
    const issued = await watchUntil(`/apis/certificates.platform.io/v1/certificatesigningrequests?fieldSelector=metadata.name=${name}`, (_t, o) => typeof o.status?.certificate === 'string');
    expect(issued.status.conditions).toEqual([expect.objectContaining({ type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving agent client certificate after SubjectAccessReview.' })]);
    const node: Creds = { cert: Buffer.from(issued.status.certificate as string, 'base64').toString(), key: privateKeyPem(key.privateKey) };

    expect((await call('POST', '/api/v1/nodes', admin, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } })).status).toBe(201);
    const own = await call('GET', '/api/v1/nodes/node-a', node);
    expect(own.status, JSON.stringify(own.json)).toBe(200);
    const other = await call('GET', '/apis/coordination.platform.io/v1/namespaces/platform-node-lease/leases/node-b', node);
    expect(other.status).toBe(403);
    expect(other.json.message).toContain('User "system:node:node-a" cannot get resource "leases"');
  });

  it('a requester without the nodeclient permission is not approved until it has it', async () => {
    const bob: Creds = { token: 'bob-token' };
    const key = generateKeyPair();
    const name = `${NODE_CSR_PREFIX}b`;
    const csr = { apiVersion: 'certificates.platform.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(createCsrPem({ subject: nodeClientSubject('node-b'), ...key })).toString('base64'), signerName: NODE_CLIENT_SIGNER, usages: NODE_CLIENT_USAGES } };
    const base = '/apis/certificates.platform.io/v1/certificatesigningrequests';
    expect((await call('POST', base, bob, csr)).status).toBe(403);
    const binding = { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'bob-bootstrapper' }, roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'system:node-bootstrapper' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'bob' }] };
    expect((await call('POST', '/apis/rbac.authorization.platform.io/v1/clusterrolebindings', admin, binding)).status).toBe(201);
    expect((await call('POST', base, bob, csr)).status).toBe(201);
    const pending = await call('GET', `${base}/${name}`, admin);
    expect(pending.json.status?.conditions ?? []).toEqual([]);
    // Granting nodeclient and touching the CSR (any change is an event) lets the approver pass it.
    const nodeclient = { ...binding, metadata: { name: 'bob-nodeclient' }, roleRef: { ...binding.roleRef, name: 'system:certificates.platform.io:certificatesigningrequests:nodeclient' } };
    expect((await call('POST', '/apis/rbac.authorization.platform.io/v1/clusterrolebindings', admin, nodeclient)).status).toBe(201);
    expect((await call('PUT', `${base}/${name}`, admin, { ...pending.json, metadata: { ...pending.json.metadata, labels: { touched: 'yes' } } })).status).toBe(200);
    const issued = await watchUntil(`${base}?fieldSelector=metadata.name=${name}`, (_t, o) => typeof o.status?.certificate === 'string');
    expect(issued.status.conditions.map((c: Json) => c.reason)).toEqual(['AutoApproved']);
  });

  it('TokenReview knows the static tokens (audience-agnostic: the API audiences)', async () => {
    const r = await call('POST', '/apis/authentication.platform.io/v1/tokenreviews', admin, { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', spec: { token: BOOTSTRAP.token } });
    expect(r.status).toBe(201);
    expect(r.json.status).toEqual({ authenticated: true, user: { username: 'system:bootstrap:abc123', uid: 'uid-boot', groups: ['system:bootstrappers', 'system:authenticated'] }, audiences: ['https://platform.default.svc.cluster.local'] });
    const foreign = await call('POST', '/apis/authentication.platform.io/v1/tokenreviews', admin, { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', spec: { token: BOOTSTRAP.token, audiences: ['vault'] } });
    expect(foreign.json.status).toEqual({ authenticated: false, user: {} });
  });

  it('every namespace gets platform-root-ca.crt with the serving CA, restored after a delete', async () => {
    expect((await call('POST', '/api/v1/namespaces', admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } })).status).toBe(201);
    const path = '/api/v1/namespaces/team-a/configmaps';
    const first = await watchUntil(path, (_t, o) => o.metadata.name === 'platform-root-ca.crt');
    expect(first.data).toEqual({ 'ca.crt': ca });
    const rv = Number(first.metadata.resourceVersion);
    expect((await call('DELETE', `${path}/platform-root-ca.crt`, admin)).status).toBe(200);
    const again = await watchUntil(path, (t, o) => t === 'ADDED' && o.metadata.name === 'platform-root-ca.crt' && Number(o.metadata.resourceVersion) > rv);
    expect(again.data).toEqual({ 'ca.crt': ca });
    const edited = await call('PUT', `${path}/platform-root-ca.crt`, admin, { ...again, data: { 'ca.crt': 'nope', extra: 'x' } });
    expect(edited.status).toBe(200);
    const repaired = await watchUntil(`${path}?resourceVersion=${edited.json.metadata.resourceVersion as string}`, (t, o) => t === 'MODIFIED' && o.data?.['ca.crt'] === ca);
    expect(repaired.data).toEqual({ 'ca.crt': ca });
  });
});
