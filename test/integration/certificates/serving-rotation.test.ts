// --rotate-server-certificates against the real platform-apiserver with
// --csr-signing=node-client,agent-serving: the node (system:node:node1)
// asks for its serving certificate; the request stays pending while the
// server auto-approves a node client request created after it (so the
// approver has seen it and left it alone) and the node may not approve it;
// the running main server (createNodeServer on loopback, no certificate yet)
// fails handshakes; an admin approves through the approval subresource; the signed certificate
// (the node's name and IP, from the cluster CA) is presented to a fresh
// connection; after a rotation of the short-lived certificate a fresh
// connection meets the new one while an open keep-alive connection keeps the
// old one.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { AGENT_SERVING_SIGNER, NODE_CLIENT_SIGNER, nodeClientSubject } from '../../../src/api/signers.js';
import { createCsrPem } from '../../../src/apiserver/controllers/pkcs10.js';
import { createServingCertificateRotation, type ServingCertificateRotation } from '../../../src/certificates/index.js';
import { createApiClient, type ApiClient, type ClientLog } from '../../../src/client/index.js';
import { abortableSleep } from '../../../src/lifecycle/abort.js';
import { generateKeyPair } from '../../../src/pki/x509.js';
import { mainTlsOptions } from '../../../src/server/tls/index.js';
import type { Route } from '../../../src/server/types.js';
import { startServer, USERS, type ServerHandle } from '../../conformance/helpers/server.js';
import { startNodeServer, stubAuthenticator, stubAuthorize, type Started } from '../server/http-harness.js';

const CSRS = '/apis/certificates.platform.io/v1/certificatesigningrequests';
const quiet: ClientLog = { info: () => {}, warn: () => {}, error: () => {} };
const hello: Route = { path: '/hello', readOnly: false, debugging: false, methods: ['GET'], handle: async ({ res }) => void res.end('hello') };

interface Csr {
  metadata: { name: string; resourceVersion: string };
  spec: { signerName: string; username: string };
  status?: { conditions?: Array<{ type: string }>; certificate?: string };
}

/** Resolves with the first watched CSR of `signer` that `pick` accepts (the watch starts from `rv`). */
async function watchFor(srv: ServerHandle, rv: string, pick: (c: Csr) => boolean): Promise<Csr> {
  const w = await srv.admin.watch(CSRS, { resourceVersion: rv });
  try {
    for (let i = 0; i < 200; i++) {
      const ev = await w.next(20_000);
      if (ev === undefined) break;
      const c = ev.object as Csr;
      if (ev.type !== 'DELETED' && pick(c)) return c;
    }
    throw new Error('no matching CSR event');
  } finally {
    w.close();
  }
}

/** The certificate the main server presents to a new connection (verified against `ca` for `node1`), or the handshake's error. */
function peer(port: number, ca: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const s: TLSSocket = connect({ host: '127.0.0.1', port, ca, servername: 'node1' }, () => {
      const cert = s.getPeerCertificate();
      s.destroy();
      resolve(cert);
    });
    s.on('error', reject);
  });
}

function get(port: number, ca: string, agent: Agent): Promise<{ body: string; serial: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/hello', ca, servername: 'node1', agent }, (res) => {
      const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ body: Buffer.concat(chunks).toString(), serial }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function approve(srv: ServerHandle, name: string): Promise<void> {
  const obj = (await srv.admin.get(`${CSRS}/${name}`)).json() as Csr;
  const body = { ...obj, status: { ...obj.status, conditions: [{ type: 'Approved', status: 'True', reason: 'AdminApproval', message: 'approved by the test administrator' }] } };
  const r = await srv.admin.put(`${CSRS}/${name}/approval`, body);
  expect(r.status).toBe(200);
}

describe('serving certificate rotation against platform-apiserver', () => {
  let srv: ServerHandle;
  let dir: string;
  let client: ApiClient;
  let main: Started;
  let rotation: ServingCertificateRotation;
  const stops: Array<() => Promise<void>> = [];
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  let clock = Date.now();
  const rotated: Array<{ cert: string }> = [];
  let rotatedNow: () => void = () => {};
  let startRv = '';
  let firstName = '';

  beforeAll(async () => {
    srv = await startServer({ backend: 'memory', extraArgs: ['--csr-signing=node-client,agent-serving'] });
    dir = await mkdtemp(join(tmpdir(), 'agent-serving-'));
    const conf = join(dir, 'node.conf');
    await writeFile(conf, stringify({
      apiVersion: 'v1', kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: srv.url, 'certificate-authority-data': Buffer.from(srv.ca).toString('base64') } }],
      users: [{ name: 'node1', user: { token: USERS.node1.token } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'node1' } }],
      'current-context': 'c',
    }));
    client = await createApiClient({ platformconfig: conf, platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0, contentType: 'application/json', log: quiet });
    const tls = await mainTlsOptions({ material: undefined, clientCAFile: '', tlsMinVersion: '', tlsCipherSuites: [] });
    main = await startNodeServer({ server: 'main', tls: tls.options, routes: [hello], auth: { authenticator: stubAuthenticator(true), authorize: stubAuthorize() }, enableDebuggingHandlers: false }, stops);
  }, 60_000);

  afterAll(async () => {
    stop.abort();
    await running?.catch(() => undefined);
    for (const s of stops) await s();
    await client?.close();
    await srv?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('the request stays pending until an admin approves it; the running server then presents the signed certificate', async () => {
    await expect(peer(main.port, srv.ca)).rejects.toThrow();
    const rv = ((await srv.admin.get(CSRS)).json() as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    startRv = rv;
    rotation = createServingCertificateRotation({
      client,
      certDir: join(dir, 'pki'),
      nodeName: 'node1',
      addresses: () => [{ type: 'InternalIP', address: '127.0.0.1' }, { type: 'Hostname', address: 'node1' }],
      log: quiet,
      expirationSeconds: 600,
      now: () => clock,
      // The clock runs a minute per look, so the 10-minute certificate's deadline comes within a few looks.
      sleep: async (ms, signal) => {
        clock += ms;
        await abortableSleep(Math.min(ms, 10), signal);
      },
    });
    rotation.onRotate((p) => {
      main.server.setServingCertificate(p);
      rotated.push(p);
      rotatedNow();
    });
    running = rotation.run(stop.signal);
    const serving = await watchFor(srv, rv, (c) => c.spec.signerName === AGENT_SERVING_SIGNER);
    expect(serving.spec.username).toBe('system:node:node1');
    firstName = serving.metadata.name;

    // A node client request created after it is auto-approved and signed: the one worker has passed the serving request by.
    const key = generateKeyPair();
    const request = Buffer.from(createCsrPem({ subject: nodeClientSubject('node1'), ...key })).toString('base64');
    const created = await srv.user('bootstrap').post(CSRS, { apiVersion: 'certificates.platform.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'later-client' }, spec: { request, signerName: NODE_CLIENT_SIGNER, usages: ['digital signature', 'client auth'] } });
    expect(created.status).toBe(201);
    await watchFor(srv, rv, (c) => c.metadata.name === 'later-client' && c.status?.certificate !== undefined);
    const pending = (await srv.admin.get(`${CSRS}/${serving.metadata.name}`)).json() as Csr;
    expect(pending.status?.conditions ?? []).toEqual([]);
    await expect(peer(main.port, srv.ca)).rejects.toThrow();

    // The node may not approve its own request.
    const selfApproval = { ...pending, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Self', message: 'by the node' }] } };
    expect((await srv.user('node1').put(`${CSRS}/${serving.metadata.name}/approval`, selfApproval)).status).toBe(403);

    const first = new Promise<void>((r) => (rotatedNow = r));
    await approve(srv, serving.metadata.name);
    await first;
    const issued = new X509Certificate(rotated[0]!.cert);
    const p = await peer(main.port, srv.ca);
    expect(p.serialNumber).toBe(issued.serialNumber);
    expect(p.subjectaltname).toBe('DNS:node1, IP Address:127.0.0.1');
    expect(p.subject).toMatchObject({ CN: 'system:node:node1', O: 'system:nodes' });
    expect(issued.checkIssued(new X509Certificate(srv.ca))).toBe(true);
    expect(await readFile(join(dir, 'pki', 'agent-server-current.pem'), 'utf8')).toContain(rotated[0]!.cert.trim());
  }, 60_000);

  it('after the deadline a new request is approved and signed: fresh connections meet the new certificate, an open one keeps the old', async () => {
    const keep = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await get(main.port, srv.ca, keep);
      expect(before.body).toBe('hello');
      // From the first test's start: the rotation may have asked again already.
      const next = await watchFor(srv, startRv, (c) => c.spec.signerName === AGENT_SERVING_SIGNER && c.metadata.name !== firstName);
      const second = new Promise<void>((r) => (rotatedNow = r));
      await approve(srv, next.metadata.name);
      await second;
      const renewed = new X509Certificate(rotated[1]!.cert);
      expect(renewed.serialNumber).not.toBe(before.serial);
      expect((await peer(main.port, srv.ca)).serialNumber).toBe(renewed.serialNumber);
      const again = await get(main.port, srv.ca, keep);
      expect(again).toEqual({ body: 'hello', serial: before.serial });
    } finally {
      keep.destroy();
    }
  }, 60_000);
});
