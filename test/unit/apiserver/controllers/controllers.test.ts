import { X509Certificate } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NODE_CLIENT_SIGNER, NODE_CLIENT_USAGES, nodeClientSubject } from '../../../../src/api/signers.js';
import { rootCaRepair } from '../../../../src/apiserver/admission/defaults.js';
import { generateKeyPair, issueCertificate, privateKeyPem } from '../../../../src/pki/x509.js';
import { CsrController } from '../../../../src/apiserver/controllers/csr-controller.js';
import { createCsrPem } from '../../../../src/apiserver/controllers/pkcs10.js';
import { RootCaPublisher } from '../../../../src/apiserver/controllers/root-ca.js';
import { signingCaFromPem } from '../../../../src/apiserver/controllers/signing-ca.js';
import type { ApiObject } from '../../../../src/apiserver/registry/types.js';
import type { AuthorizationAttributes, Authorizer } from '../../../../src/apiserver/types.js';
import { fixture, reader, type Fixture } from '../registry/fixture.js';

const quiet = { info: () => undefined, warn: () => undefined };
const now = Date.parse('2026-01-01T00:00:00Z');
const caKey = generateKeyPair();
const caPem = issueCertificate({ subject: { commonName: 'cluster-ca' }, publicKey: caKey.publicKey, selfKey: caKey.privateKey, notBefore: new Date(now - 60_000), notAfter: new Date(now + 400 * 86_400_000), isCA: true });
const ca = signingCaFromPem(caPem, privateKeyPem(caKey.privateKey), { flag: '--cert-dir', file: 'ca' });
const asked: string[] = [];
/** Allows create on certificatesigningrequests/nodeclient to system:bootstrappers, /selfnodeclient to system:nodes. */
const authorizer: Authorizer = {
  authorize(a: AuthorizationAttributes) {
    asked.push(`${a.user.name} ${a.verb} ${a.resource}/${a.subresource}`);
    const ok = (a.subresource === 'nodeclient' && a.user.groups.includes('system:bootstrappers')) || (a.subresource === 'selfnodeclient' && a.user.groups.includes('system:nodes'));
    return Promise.resolve(ok ? { allowed: true, reason: '' } : { allowed: false, noOpinion: true, reason: '' });
  },
};

function csrObject(name: string, user: { name: string; groups: string[] }, opts: { node?: string; usages?: readonly string[]; signerName?: string; expirationSeconds?: number } = {}): ApiObject {
  const key = generateKeyPair();
  const request = Buffer.from(createCsrPem({ subject: nodeClientSubject(opts.node ?? 'n1'), ...key })).toString('base64');
  return { apiVersion: 'certificates.platform.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName: opts.signerName ?? NODE_CLIENT_SIGNER, usages: [...(opts.usages ?? NODE_CLIENT_USAGES)], username: user.name, groups: user.groups, ...(opts.expirationSeconds === undefined ? {} : { expirationSeconds: opts.expirationSeconds }) } };
}

let f: Fixture;
beforeEach(async () => {
  f = await fixture();
  asked.length = 0;
});
afterEach(async () => f.close());

const csrs = (): ReturnType<Fixture['store']> => f.store('certificatesigningrequests', 'certificates.platform.io');
const controller = (): CsrController => new CsrController({ store: csrs(), authorizer, ca, signingDurationMs: 8760 * 3_600_000, log: quiet, now: () => now });
const conditions = (o: ApiObject): Array<Record<string, unknown>> => ((o.status as { conditions?: Array<Record<string, unknown>> } | undefined)?.conditions ?? []);
const signal = new AbortController().signal;

describe('CsrController.sync', () => {
  it('approves a bootstrapper, then signs: the certificate is the node, from the CA, for the asked time; then nothing more', async () => {
    await csrs().create('', csrObject('c1', { name: 'system:bootstrap:abc', groups: ['system:bootstrappers', 'system:authenticated'] }, { expirationSeconds: 3600 }));
    const c = controller();
    await c.sync('c1', signal);
    const approved = await csrs().get('', 'c1');
    expect(conditions(approved)).toEqual([{ type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving agent client certificate after SubjectAccessReview.', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }]);
    expect(asked).toEqual(['system:bootstrap:abc create certificatesigningrequests/nodeclient']);
    await c.sync('c1', signal);
    const issued = await csrs().get('', 'c1');
    const cert = new X509Certificate(Buffer.from((issued.status as { certificate: string }).certificate, 'base64').toString());
    expect(cert.subject).toBe('O=system:nodes\nCN=system:node:n1');
    expect(cert.verify(caKey.publicKey)).toBe(true);
    expect([new Date(cert.validFrom).getTime(), new Date(cert.validTo).getTime()]).toEqual([now - 300_000, now + 3_600_000]);
    await c.sync('c1', signal);
    expect((await csrs().get('', 'c1')).metadata.resourceVersion).toBe(issued.metadata.resourceVersion);
  });
  it('a node renewing its own certificate is approved through selfnodeclient', async () => {
    await csrs().create('', csrObject('c2', { name: 'system:node:n1', groups: ['system:nodes'] }));
    await controller().sync('c2', signal);
    expect(conditions(await csrs().get('', 'c2')).map((c) => c.message)).toEqual(['Auto approving self agent client certificate after SubjectAccessReview.']);
  });
  it.each<[string, { name: string; groups: string[] }, { node?: string; signerName?: string }, string[]]>([
    ['a user without the permission', { name: 'bob', groups: [] }, {}, ['bob create certificatesigningrequests/nodeclient']],
    ['a node asking for another node', { name: 'system:node:n2', groups: ['system:nodes'] }, {}, ['system:node:n2 create certificatesigningrequests/nodeclient']],
    ['another signer', { name: 'system:bootstrap:abc', groups: ['system:bootstrappers'] }, { signerName: 'example.com/other' }, []],
  ])('leaves pending: %s', async (_n, user, opts, reviews) => {
    await csrs().create('', csrObject('c3', user, opts));
    await controller().sync('c3', signal);
    expect(conditions(await csrs().get('', 'c3'))).toEqual([]);
    expect(asked).toEqual(reviews);
  });
  it('an approved request it cannot sign gets Failed with the reason', async () => {
    await csrs().create('', csrObject('c4', { name: 'admin', groups: ['system:masters'] }, { usages: ['digital signature', 'key encipherment', 'server auth'] }));
    await csrs().update('', 'c4', { ...(await csrs().get('', 'c4')), status: { conditions: [{ type: 'Approved', status: 'True', reason: 'ByHand', message: '' }] } }, { subresource: 'approval' });
    await controller().sync('c4', signal);
    const failed = await csrs().get('', 'c4');
    expect(conditions(failed).map((c) => [c.type, c.reason, c.message])).toEqual([['Approved', 'ByHand', ''], ['Failed', 'SignerValidationFailure', 'usages did not match [client auth digital signature key encipherment]']]);
    expect((failed.status as { certificate?: string }).certificate).toBeUndefined();
  });
  it('a CSR that is gone is nothing to do', async () => {
    await expect(controller().sync('missing', signal)).resolves.toBeUndefined();
  });
});

describe('CsrController.run', () => {
  it('follows the watch: a created CSR is approved and issued; the run ends at the abort', async () => {
    const stop = new AbortController();
    const running = controller().run(stop.signal);
    const watch = new AbortController();
    const events = reader(await csrs().watch('', { start: { kind: 'StartMostRecent' }, signal: watch.signal }));
    await csrs().create('', csrObject('w1', { name: 'system:bootstrap:abc', groups: ['system:bootstrappers'] }));
    const seen = await events.take(3, 5_000);
    expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED']);
    expect((seen[2]!.object.status as { certificate?: string }).certificate).toMatch(/^LS0t/);
    watch.abort();
    stop.abort();
    await running;
  });
});

describe('root-CA publisher', () => {
  const CA = '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n';
  it.each<[string, ApiObject | undefined, string]>([
    ['missing', undefined, 'create'],
    ['right', { metadata: { annotations: { 'platform.io/description': 'd' } }, data: { 'ca.crt': CA } }, 'none'],
    ['edited data', { metadata: { annotations: { 'platform.io/description': 'd' } }, data: { 'ca.crt': 'old', more: 'x' } }, 'update'],
    ['annotation missing', { metadata: {}, data: { 'ca.crt': CA } }, 'update'],
  ])('rootCaRepair: %s → %s', (_n, existing, action) => {
    const plan = rootCaRepair(existing, 'ns1', CA);
    expect(plan.action).toBe(action);
    if (plan.action !== 'none') expect([plan.object.data, plan.object.metadata.annotations?.['platform.io/description']]).toEqual([{ 'ca.crt': CA }, expect.any(String)]);
  });
  it('creates the map, repairs an edit, and leaves a terminating namespace alone', async () => {
    const p = new RootCaPublisher({ namespaces: f.store('namespaces'), configMaps: f.store('configmaps'), caPem: CA, log: quiet });
    await p.sync('ns1');
    const made = await f.store('configmaps').get('ns1', 'platform-root-ca.crt');
    expect(made.data).toEqual({ 'ca.crt': CA });
    await f.store('configmaps').update('ns1', 'platform-root-ca.crt', { ...made, data: { 'ca.crt': 'edited' } });
    await p.sync('ns1');
    expect((await f.store('configmaps').get('ns1', 'platform-root-ca.crt')).data).toEqual({ 'ca.crt': CA });
    await f.store('namespaces').create('', { metadata: { name: 'ns2' } });
    await f.store('namespaces').systemUpdate('', 'ns2', (ns) => void (ns.status = { phase: 'Terminating' }));
    await p.sync('ns2');
    await p.sync('gone');
    await expect(f.store('configmaps').get('ns2', 'platform-root-ca.crt')).rejects.toMatchObject({ reason: 'NotFound' });
  });
});
