// The agent serving signer (--csr-signing=agent-serving): its rules as a
// table, and the controller over the registry fixture: never auto-approved,
// signed once an administrator approved, the request's names copied, refused
// for a requester that is not the node the subject names.
import { X509Certificate } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_SERVING_SIGNER, AGENT_SERVING_USAGES, AGENT_SERVING_USAGES_NO_RSA, NODE_CLIENT_SIGNER } from '../../../../src/api/signers.js';
import { agentServingProblem, signingProblem, wantsSigning, type CsrView, type RequestView } from '../../../../src/apiserver/controllers/csr-rules.js';
import { CsrController } from '../../../../src/apiserver/controllers/csr-controller.js';
import { signingCaFromPem } from '../../../../src/apiserver/controllers/signing-ca.js';
import type { ApiObject } from '../../../../src/apiserver/registry/types.js';
import type { Authorizer } from '../../../../src/apiserver/types.js';
import { csrSigners, defaultConfig } from '../../../../src/apiserver/options/table.js';
import { parseCommandLine } from '../../../../src/apiserver/options/parse.js';
import { nodeServingCsr } from '../../../../src/certificates/serving-csr.js';
import { generateKeyPair, issueCertificate, privateKeyPem } from '../../../../src/pki/x509.js';
import { fixture, type Fixture } from '../registry/fixture.js';

const req = (over: Partial<RequestView> = {}): RequestView => ({ commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: ['n1'], ipAddresses: ['10.0.0.1'], emailAddresses: [], uris: [], ...over });
const view = (over: Partial<CsrView> = {}): CsrView => ({ signerName: AGENT_SERVING_SIGNER, usages: AGENT_SERVING_USAGES_NO_RSA, expirationSeconds: undefined, username: 'system:node:n1', approved: true, denied: false, failed: false, issued: false, ...over });

describe('agentServingProblem (upstream ValidateKubeletServingCSR)', () => {
  it.each<[string, Partial<RequestView>, readonly string[], string | undefined]>([
    ['names and IPs, ECDSA usages', {}, AGENT_SERVING_USAGES_NO_RSA, undefined],
    ['RSA usages', {}, AGENT_SERVING_USAGES, undefined],
    ['an IP alone', { dnsNames: [] }, AGENT_SERVING_USAGES_NO_RSA, undefined],
    ['a DNS name alone', { ipAddresses: [] }, AGENT_SERVING_USAGES_NO_RSA, undefined],
    ['no SAN', { dnsNames: [], ipAddresses: [] }, AGENT_SERVING_USAGES_NO_RSA, 'DNS or IP subjectAltName is required'],
    ['O missing', { organizations: [] }, AGENT_SERVING_USAGES_NO_RSA, 'subject organization is not system:nodes'],
    ['O with more', { organizations: ['system:nodes', 'system:masters'] }, AGENT_SERVING_USAGES_NO_RSA, 'subject organization is not system:nodes'],
    ['email SAN', { emailAddresses: ['a@b'] }, AGENT_SERVING_USAGES_NO_RSA, 'Email subjectAltNames are not allowed'],
    ['URI SAN', { uris: ['spiffe://x'] }, AGENT_SERVING_USAGES_NO_RSA, 'URI subjectAltNames are not allowed'],
    ['client auth asked', {}, [...AGENT_SERVING_USAGES, 'client auth'], 'usages did not match [digital signature key encipherment server auth]'],
    ['server auth missing', {}, ['digital signature'], 'usages did not match [digital signature key encipherment server auth]'],
    ['CN not a node', { commonName: 'bob' }, AGENT_SERVING_USAGES_NO_RSA, 'subject common name does not begin with system:node:'],
  ])('%s', (_n, r, usages, want) => expect(agentServingProblem(req(r), usages)).toBe(want));
});

describe('signingProblem', () => {
  it.each<[string, Partial<CsrView>, Partial<RequestView>, string | undefined]>([
    ['the node asks for its own name', {}, {}, undefined],
    ['another node asks for n1', { username: 'system:node:n2' }, {}, 'the requester "system:node:n2" is not the node named in the subject (system:node:n1)'],
    ['an administrator asks for n1', { username: 'admin' }, {}, 'the requester "admin" is not the node named in the subject (system:node:n1)'],
    ['a node client request goes by the client rules', { signerName: NODE_CLIENT_SIGNER, usages: ['digital signature', 'client auth'] }, { dnsNames: [], ipAddresses: [] }, undefined],
    ['an unknown signer', { signerName: 'example.com/x' }, {}, 'signer example.com/x is not served here'],
  ])('%s', (_n, c, r, want) => expect(signingProblem(view(c), req(r))).toBe(want));
});

describe('wantsSigning with the signers enabled', () => {
  it.each<[Partial<CsrView>, readonly string[] | undefined, boolean]>([
    [{}, [AGENT_SERVING_SIGNER], true],
    [{}, undefined, false],
    [{}, [NODE_CLIENT_SIGNER], false],
    [{ approved: false }, [AGENT_SERVING_SIGNER], false],
    [{ issued: true }, [NODE_CLIENT_SIGNER, AGENT_SERVING_SIGNER], false],
  ])('%j with %j → %s', (c, signers, want) => expect(wantsSigning(view(c), signers)).toBe(want));
});

describe('--csr-signing values', () => {
  it.each<[string[], string]>([
    [[], 'off'],
    [['--csr-signing=node-client'], 'node-client'],
    [['--csr-signing=agent-serving'], 'agent-serving'],
    [['--csr-signing=agent-serving,node-client'], 'node-client,agent-serving'],
    [['--csr-signing=node-client,agent-serving,node-client'], 'node-client,agent-serving'],
  ])('%j → %s', (args, want) => {
    const c = args.length === 0 ? defaultConfig() : parseCommandLine(args).config;
    expect(c.csrSigning).toBe(want);
  });
  it.each(['bogus', 'off,node-client', 'node-client,x', ''])('refuses %j naming the flag', (v) => {
    expect(() => parseCommandLine([`--csr-signing=${v}`])).toThrow(/csr-signing/);
  });
  it('csrSigners reads the canonical value', () => {
    expect(csrSigners('off')).toEqual({ nodeClient: false, agentServing: false });
    expect(csrSigners('node-client,agent-serving')).toEqual({ nodeClient: true, agentServing: true });
  });
});

const quiet = { info: () => undefined, warn: () => undefined };
const now = Date.parse('2026-01-01T00:00:00Z');
const caKey = generateKeyPair();
const caPem = issueCertificate({ subject: { commonName: 'cluster-ca' }, publicKey: caKey.publicKey, selfKey: caKey.privateKey, notBefore: new Date(now - 60_000), notAfter: new Date(now + 400 * 86_400_000), isCA: true });
const ca = signingCaFromPem(caPem, privateKeyPem(caKey.privateKey), { flag: '--cert-dir', file: 'ca' });
const reviews: string[] = [];
const allowAll: Authorizer = {
  authorize(a) {
    reviews.push(`${a.resource}/${a.subresource}`);
    return Promise.resolve({ allowed: true, reason: '' });
  },
};

let f: Fixture;
beforeEach(async () => {
  f = await fixture();
  reviews.length = 0;
});
afterEach(async () => f.close());

const csrs = (): ReturnType<Fixture['store']> => f.store('certificatesigningrequests', 'certificates.platform.io');
const controller = (signers: readonly string[]): CsrController => new CsrController({ store: csrs(), authorizer: allowAll, ca, signingDurationMs: 8760 * 3_600_000, signers, log: quiet, now: () => now });
const conditions = (o: ApiObject): Array<Record<string, unknown>> => ((o.status as { conditions?: Array<Record<string, unknown>> } | undefined)?.conditions ?? []);
const signal = new AbortController().signal;

function servingObject(requester: string, node = 'n1'): ApiObject {
  const made = nodeServingCsr(node, generateKeyPair(), { dnsNames: [node], ipAddresses: ['10.0.0.1', '::1'] }, 3600);
  return { ...made.object, metadata: { name: made.name }, spec: { ...(made.object.spec as object), username: requester, groups: ['system:nodes', 'system:authenticated'] } } as ApiObject;
}

async function approve(name: string): Promise<void> {
  await csrs().update('', name, { ...(await csrs().get('', name)), status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AdminApproval', message: 'approved by hand' }] } }, { subresource: 'approval' });
}

describe('CsrController with the agent serving signer', () => {
  it('never approves a serving request by itself, asks no review, then signs it once approved: the names and IPs as asked', async () => {
    const obj = servingObject('system:node:n1');
    const name = obj.metadata.name ?? '';
    await csrs().create('', obj);
    const c = controller([NODE_CLIENT_SIGNER, AGENT_SERVING_SIGNER]);
    await c.sync(name, signal);
    expect(conditions(await csrs().get('', name))).toEqual([]);
    expect(reviews).toEqual([]);
    await approve(name);
    await c.sync(name, signal);
    const issued = await csrs().get('', name);
    const cert = new X509Certificate(Buffer.from((issued.status as { certificate: string }).certificate, 'base64').toString());
    expect(cert.subject).toBe('O=system:nodes\nCN=system:node:n1');
    expect(cert.subjectAltName).toBe('DNS:n1, IP Address:10.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(cert.verify(caKey.publicKey)).toBe(true);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(new Date(cert.validTo).getTime()).toBe(now + 3_600_000);
  });
  it('an approved serving request of another node fails with the reason', async () => {
    const obj = servingObject('system:node:n2');
    const name = obj.metadata.name ?? '';
    await csrs().create('', obj);
    await approve(name);
    await controller([AGENT_SERVING_SIGNER]).sync(name, signal);
    expect(conditions(await csrs().get('', name)).map((c) => [c.type, c.reason, c.message])).toEqual([
      ['Approved', 'AdminApproval', 'approved by hand'],
      ['Failed', 'SignerValidationFailure', 'the requester "system:node:n2" is not the node named in the subject (system:node:n1)'],
    ]);
  });
  it('without the serving signer enabled an approved serving request is left alone', async () => {
    const obj = servingObject('system:node:n1');
    const name = obj.metadata.name ?? '';
    await csrs().create('', obj);
    await approve(name);
    await controller([NODE_CLIENT_SIGNER]).sync(name, signal);
    const left = await csrs().get('', name);
    expect(conditions(left).map((c) => c.type)).toEqual(['Approved']);
    expect((left.status as { certificate?: string }).certificate).toBeUndefined();
  });
});
