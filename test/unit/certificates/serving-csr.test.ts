// The serving certificate's pure parts: which status addresses become SANs,
// the usages per key type, the request object, the template check and the
// rotation's next step.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AGENT_SERVING_SIGNER } from '../../../src/api/signers.js';
import { parseCsr } from '../../../src/apiserver/controllers/pkcs10.js';
import { canonicalIp, certificateTemplate, nodeServingCsr, nodeServingUsages, satisfiesTemplate, servingSans, servingStep, type ServingState, type StatusAddress } from '../../../src/certificates/serving-csr.js';
import { generateKeyPair, issueCertificate } from '../../../src/pki/x509.js';

describe('servingSans (the kubelet addressesToHostnamesAndIPs)', () => {
  it.each<[string, StatusAddress[], string[], string[]]>([
    ['hostname and an internal IP', [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'n1' }], ['n1'], ['10.0.0.5']],
    ['dual stack, IPv6 spelled out', [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'InternalIP', address: 'FD00:0:0:0:0:0:0:1' }, { type: 'Hostname', address: 'n1' }], ['n1'], ['10.0.0.5', 'fd00::1']],
    ['DNS kinds and external IPs', [{ type: 'ExternalDNS', address: 'n1.example.com' }, { type: 'InternalDNS', address: 'n1.internal' }, { type: 'ExternalIP', address: '203.0.113.7' }], ['n1.example.com', 'n1.internal'], ['203.0.113.7']],
    ['duplicates once', [{ type: 'Hostname', address: 'n1' }, { type: 'InternalDNS', address: 'n1' }, { type: 'InternalIP', address: '10.0.0.5' }, { type: 'ExternalIP', address: '10.0.0.5' }], ['n1'], ['10.0.0.5']],
    ['empty and unparsable addresses dropped, unknown types ignored', [{ type: 'Hostname', address: '' }, { type: 'InternalIP', address: 'not-an-ip' }, { type: 'Other', address: 'x' }], [], []],
    ['nothing known', [], [], []],
  ])('%s', (_n, addrs, dns, ips) => expect(servingSans(addrs)).toEqual({ dnsNames: dns, ipAddresses: ips }));
  it('canonicalIp', () => {
    expect([canonicalIp('0:0:0:0:0:0:0:1'), canonicalIp('10.1.2.3'), canonicalIp('n1')]).toEqual(['::1', '10.1.2.3', undefined]);
  });
});

describe('nodeServingUsages', () => {
  it.each<[string, () => { publicKey: import('node:crypto').KeyObject }, string[]]>([
    ['ECDSA: no key encipherment', () => generateKeyPair(), ['digital signature', 'server auth']],
    ['RSA: key encipherment too', () => generateKeyPairSync('rsa', { modulusLength: 2048 }), ['digital signature', 'key encipherment', 'server auth']],
  ])('%s', (_n, key, want) => expect(nodeServingUsages(key().publicKey)).toEqual(want));
});

describe('nodeServingCsr', () => {
  it('asks the serving signer for the node subject and the SANs, under a digested csr- name', () => {
    const key = generateKeyPair();
    const made = nodeServingCsr('n1', key, { dnsNames: ['n1'], ipAddresses: ['10.0.0.5', '::1'] }, 600);
    expect(made.name).toMatch(/^csr-[A-Za-z0-9_-]{43}$/);
    expect(made.object.spec).toMatchObject({ signerName: AGENT_SERVING_SIGNER, usages: ['digital signature', 'server auth'], expirationSeconds: 600 });
    const parsed = parseCsr(made.requestPem);
    expect([parsed.commonName, parsed.organizations, parsed.dnsNames, parsed.ipAddresses]).toEqual(['system:node:n1', ['system:nodes'], ['n1'], ['10.0.0.5', '::1']]);
    expect(parsed.publicKey.equals(key.publicKey)).toBe(true);
    expect(nodeServingCsr('n1', generateKeyPair(), { dnsNames: ['n1'], ipAddresses: [] }).name).not.toBe(made.name);
    expect(nodeServingCsr('n1', key, { dnsNames: ['n1'], ipAddresses: [] }).object.spec).not.toHaveProperty('expirationSeconds');
  });
});

describe('certificateTemplate and satisfiesTemplate', () => {
  const k = generateKeyPair();
  const pem = issueCertificate({ subject: { commonName: 'system:node:n1', organizations: ['system:nodes'] }, publicKey: k.publicKey, selfKey: k.privateKey, notBefore: new Date(0), notAfter: new Date(2 ** 40), isCA: false, hosts: ['n1', '10.0.0.5', '::1'] });
  const have = certificateTemplate(pem);
  it('reads the CN and the SANs', () => expect(have).toEqual({ commonName: 'system:node:n1', sans: { dnsNames: ['n1'], ipAddresses: ['10.0.0.5', '::1'] } }));
  it.each<[string, string, string[], string[], boolean]>([
    ['the same, in another order', 'system:node:n1', ['n1'], ['::1', '10.0.0.5'], true],
    ['a new IP', 'system:node:n1', ['n1'], ['10.0.0.5', '::1', '10.0.0.6'], false],
    ['an IP gone', 'system:node:n1', ['n1'], ['10.0.0.5'], false],
    ['another name', 'system:node:n1', ['n2'], ['10.0.0.5', '::1'], false],
    ['another node', 'system:node:n2', ['n1'], ['10.0.0.5', '::1'], false],
  ])('%s → %s', (_n, cn, dns, ips, want) => expect(satisfiesTemplate(have, { commonName: cn, sans: { dnsNames: dns, ipAddresses: ips } })).toBe(want));
});

describe('servingStep', () => {
  const tpl = { commonName: 'system:node:n1', sans: { dnsNames: ['n1'], ipAddresses: ['10.0.0.5'] } };
  const moved = { commonName: 'system:node:n1', sans: { dnsNames: ['n1'], ipAddresses: ['10.0.0.9'] } };
  const current = { lifetime: { notBefore: new Date(0), notAfter: new Date(10_000) }, template: tpl };
  const state = (over: Partial<ServingState>): ServingState => ({ current, want: tpl, deadlineMs: 8_000, nowMs: 5_000, ...over });
  it.each<[string, Partial<ServingState>, ReturnType<typeof servingStep>]>([
    ['no certificate, addresses known', { current: undefined, deadlineMs: undefined }, { kind: 'renew', reason: 'no serving certificate yet' }],
    ['no certificate, no address yet', { current: undefined, want: undefined, deadlineMs: undefined }, { kind: 'no-addresses' }],
    ['no certificate, addresses with no usable entry', { current: undefined, want: { commonName: 'system:node:n1', sans: { dnsNames: [], ipAddresses: [] } } }, { kind: 'no-addresses' }],
    ['a fitting certificate before its deadline', {}, { kind: 'wait', ms: 3_000 }],
    ['the deadline passed', { nowMs: 8_000 }, { kind: 'renew', reason: 'the rotation deadline passed' }],
    ['an address changed', { want: moved }, { kind: 'renew', reason: 'the node names or addresses changed' }],
    ['addresses unknown now: keep the certificate until its deadline', { want: undefined }, { kind: 'wait', ms: 3_000 }],
    ['addresses unknown and the deadline passed: renew for the names it has', { want: undefined, nowMs: 9_000 }, { kind: 'renew', reason: 'the rotation deadline passed' }],
  ])('%s', (_n, over, want) => expect(servingStep(state(over))).toEqual(want));
});
