// Conformance of the item 7 (--csr-signing=node-client) and of the
// platform-root-ca.crt publisher, against both storage backends: a node's
// TLS bootstrap through the API as the agent will do it (bootstrap token →
// CSR named node-csr-… for platform.io/platform-apiserver-client-agent →
// watch until Approved and issued → the certificate as client credential),
// requests the approver must not approve, and the root-CA map of a new
// namespace.
import { generateKeyPairSync } from 'node:crypto';
import { Agent } from 'undici';
import { beforeAll, expect, it } from 'vitest';
import { NODE_CLIENT_SIGNER, NODE_CLIENT_USAGES, NODE_CSR_PREFIX, nodeClientSubject } from '../../src/api/signers.js';
import { createCsrPem } from '../../src/apiserver/controllers/pkcs10.js';
import { ApiClient, type Json } from './helpers/api-client.js';
import { describeBackends, uniq } from './helpers/backends.js';
import { CORE, makeNamespace, ns } from './helpers/objects.js';

const CSRS = '/apis/certificates.platform.io/v1/certificatesigningrequests';

function csr(name: string, node: string, opts: { usages?: readonly string[]; dnsNames?: string[] } = {}): { body: Json; keyPem: string } {
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const request = createCsrPem({ subject: nodeClientSubject(node), ...key, ...(opts.dnsNames === undefined ? {} : { dnsNames: opts.dnsNames }) });
  return {
    body: { apiVersion: 'certificates.platform.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(request).toString('base64'), signerName: NODE_CLIENT_SIGNER, usages: opts.usages ?? NODE_CLIENT_USAGES } },
    keyPem: key.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

describeBackends('item 7: the node client CSR signer and approver; platform-root-ca.crt', { extraArgs: ['--csr-signing=node-client', '--controllers=*'] }, (srv) => {
  let admin: ApiClient;
  beforeAll(() => {
    admin = srv().admin;
  });

  it('a bootstrap token gets a certificate for system:node:<name> in system:nodes, which then authenticates the node', async () => {
    const name = uniq(NODE_CSR_PREFIX.slice(0, -1));
    const node = uniq('node');
    const { body, keyPem } = csr(name, node);
    const created = await srv().user('bootstrap').post(CSRS, body);
    expect(created.status, created.text()).toBe(201);
    expect(created.json().spec).toMatchObject({ username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:authenticated'] });
    const w = await admin.watch(CSRS, { fieldSelector: `metadata.name=${name}` });
    let issued: Json;
    try {
      const events = await w.until((e) => typeof e.object.status?.certificate === 'string', 20_000);
      issued = events[events.length - 1]!.object;
    } finally {
      w.close();
    }
    expect(issued.status.conditions).toEqual([expect.objectContaining({ type: 'Approved', status: 'True', reason: 'AutoApproved' })]);
    const certPem = Buffer.from(issued.status.certificate as string, 'base64').toString();
    const dispatcher = new Agent({ connect: { ca: srv().ca, cert: certPem, key: keyPem }, pipelining: 0 });
    try {
      const asNode = new ApiClient(srv().url, dispatcher, undefined);
      expect((await admin.post(`${CORE}/nodes`, { apiVersion: 'v1', kind: 'Node', metadata: { name: node } })).status).toBe(201);
      expect((await asNode.get(`${CORE}/nodes/${node}`)).status).toBe(200);
      const lease = await asNode.get(`/apis/coordination.platform.io/v1/namespaces/platform-node-lease/leases/${uniq('other')}`);
      expect(lease.status).toBe(403);
      expect(lease.json().message).toContain(`User "system:node:${node}" cannot get resource "leases"`);
    } finally {
      await dispatcher.close();
    }
  });

  it('requests that are not node client requests are not approved (SANs, server usages), and a user without nodeclient is not', async () => {
    const bad = [csr(uniq('with-san'), 'n1', { dnsNames: ['n1.example'] }), csr(uniq('server'), 'n1', { usages: ['digital signature', 'key encipherment', 'server auth'] })];
    for (const b of bad) expect((await srv().user('bootstrap').post(CSRS, b.body)).status).toBe(201);
    const asNode1 = csr(uniq('node1-for-node2'), 'node2');
    expect((await srv().user('node1').post(CSRS, asNode1.body)).status).toBe(201);
    // A later CSR that is approved shows the approver has seen the earlier ones (one queue, in order of arrival).
    const marker = csr(uniq('marker'), 'marker');
    expect((await srv().user('bootstrap').post(CSRS, marker.body)).status).toBe(201);
    const w = await admin.watch(CSRS, { fieldSelector: `metadata.name=${marker.body.metadata.name as string}` });
    try {
      await w.until((e) => typeof e.object.status?.certificate === 'string', 20_000);
    } finally {
      w.close();
    }
    for (const b of [...bad, asNode1]) {
      const got = (await admin.get(`${CSRS}/${b.body.metadata.name as string}`)).json();
      expect(got.status?.conditions ?? [], b.body.metadata.name as string).toEqual([]);
    }
  });

  it('an administrator approves or denies through PUT on the approval subresource (what kubectl certificate approve does); status and main PUTs cannot change conditions', async () => {
    const other = (n: string): Json => ({ ...csr(n, 'x').body, spec: { ...csr(n, 'x').body.spec, signerName: 'example.com/manual' } });
    const approveMe = uniq('manual-approve');
    const denyMe = uniq('manual-deny');
    for (const n of [approveMe, denyMe]) expect((await admin.post(CSRS, other(n))).status).toBe(201);
    const decide = async (name: string, type: string): Promise<Json> => {
      const cur = (await admin.get(`${CSRS}/${name}/approval`)).json();
      expect(cur.metadata.name).toBe(name);
      const next = { ...cur, status: { conditions: [{ type, status: 'True', reason: 'ByHand', message: 'decided by a test' }] } };
      const put = await admin.put(`${CSRS}/${name}/approval`, next);
      expect(put.status, put.text()).toBe(200);
      return put.json();
    };
    expect((await decide(approveMe, 'Approved')).status.conditions).toEqual([expect.objectContaining({ type: 'Approved', reason: 'ByHand' })]);
    expect((await decide(denyMe, 'Denied')).status.conditions).toEqual([expect.objectContaining({ type: 'Denied', reason: 'ByHand' })]);
    // The main resource keeps the stored status; the status subresource may not touch the approval conditions.
    const cur = (await admin.get(`${CSRS}/${denyMe}`)).json();
    const viaMain = await admin.put(`${CSRS}/${denyMe}`, { ...cur, status: { conditions: [] } });
    expect(viaMain.status).toBe(200);
    expect(viaMain.json().status.conditions).toEqual([expect.objectContaining({ type: 'Denied' })]);
    const viaStatus = await admin.put(`${CSRS}/${denyMe}/status`, { ...viaMain.json(), status: { conditions: [] } });
    expect(viaStatus.status).toBe(422);
    expect((await admin.post(`${CSRS}/${denyMe}/approval`, cur)).status).toBe(405);
    expect((await admin.get(`${CSRS}/${denyMe}/nonsense`)).status).toBe(404);
  });

  it('every namespace gets platform-root-ca.crt holding the serving CA; a deleted one comes back', async () => {
    const n = await makeNamespace(admin);
    const path = `${ns(n)}/configmaps`;
    const w = await admin.watch(path);
    try {
      const first = (await w.until((e) => e.object.metadata?.name === 'platform-root-ca.crt', 20_000)).pop()!.object;
      expect(first.data).toEqual({ 'ca.crt': srv().ca });
      expect((await admin.delete(`${path}/platform-root-ca.crt`)).status).toBe(200);
      const back = (await w.until((e) => e.type === 'ADDED' && e.object.metadata?.name === 'platform-root-ca.crt', 20_000)).pop()!.object;
      expect(back.data).toEqual({ 'ca.crt': srv().ca });
    } finally {
      w.close();
    }
  });
});
