import { describe, expect, it } from 'vitest';
import { NODE_CLIENT_SIGNER } from '../../../../src/api/signers.js';
import {
  approvalChecks, certificateDurationMs, certificateWindow, csrView, DEFAULT_SIGNING_DURATION_MS, nodeClientProblem, usageExtensions, wantsSigning, type CsrView, type RequestView,
} from '../../../../src/apiserver/controllers/csr-rules.js';

const NODE_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const req = (over: Partial<RequestView> = {}): RequestView => ({ commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: [], ipAddresses: [], emailAddresses: [], uris: [], ...over });
const csr = (over: Partial<CsrView> = {}): CsrView => ({ signerName: NODE_CLIENT_SIGNER, usages: NODE_USAGES, expirationSeconds: undefined, username: 'system:bootstrap:abc', approved: false, denied: false, failed: false, issued: false, ...over });

describe('nodeClientProblem (upstream ValidateKubeletClientCSR)', () => {
  it.each<[string, Partial<RequestView>, string[], string | undefined]>([
    ['a node client request', {}, NODE_USAGES, undefined],
    ['without key encipherment (non-RSA keys)', {}, ['client auth', 'digital signature'], undefined],
    ['O missing', { organizations: [] }, NODE_USAGES, 'subject organization is not system:nodes'],
    ['O with more', { organizations: ['system:nodes', 'x'] }, NODE_USAGES, 'subject organization is not system:nodes'],
    ['DNS SAN', { dnsNames: ['n1'] }, NODE_USAGES, 'DNS subjectAltNames are not allowed'],
    ['email SAN', { emailAddresses: ['a@b'] }, NODE_USAGES, 'Email subjectAltNames are not allowed'],
    ['IP SAN', { ipAddresses: ['10.0.0.1'] }, NODE_USAGES, 'IP subjectAltNames are not allowed'],
    ['URI SAN', { uris: ['spiffe://x'] }, NODE_USAGES, 'URI subjectAltNames are not allowed'],
    ['CN not a node', { commonName: 'bob' }, NODE_USAGES, 'subject common name does not begin with system:node:'],
    ['server auth asked', {}, [...NODE_USAGES, 'server auth'], 'usages did not match [client auth digital signature key encipherment]'],
    ['client auth missing', {}, ['digital signature', 'key encipherment'], 'usages did not match [client auth digital signature key encipherment]'],
  ])('%s', (_n, r, usages, want) => expect(nodeClientProblem(req(r), usages)).toBe(want));
});

describe('approvalChecks (upstream sarapprove recognizers)', () => {
  it.each<[string, Partial<CsrView>, Partial<RequestView>, string[]]>([
    ['a bootstrap credential asks nodeclient', {}, {}, ['nodeclient']],
    ['the node itself asks selfnodeclient first', { username: 'system:node:n1' }, {}, ['selfnodeclient', 'nodeclient']],
    ['another node is not self', { username: 'system:node:n2' }, {}, ['nodeclient']],
    ['another signer', { signerName: 'example.com/x' }, {}, []],
    ['not a node client request', {}, { organizations: ['system:masters'] }, []],
    ['already approved', { approved: true }, {}, []],
    ['already denied', { denied: true }, {}, []],
    ['already issued', { issued: true }, {}, []],
  ])('%s', (_n, c, r, want) => expect(approvalChecks(csr(c), req(r)).map((x) => x.subresource)).toEqual(want));
  it('names the approval as upstream does, renamed', () => {
    expect(approvalChecks(csr({ username: 'system:node:n1' }), req()).map((x) => x.message)).toEqual(['Auto approving self agent client certificate after SubjectAccessReview.', 'Auto approving agent client certificate after SubjectAccessReview.']);
  });
});

describe('wantsSigning', () => {
  it.each<[Partial<CsrView>, boolean]>([
    [{ approved: true }, true],
    [{}, false],
    [{ approved: true, failed: true }, false],
    [{ approved: true, denied: true }, false],
    [{ approved: true, issued: true }, false],
    [{ approved: true, signerName: 'example.com/x' }, false],
  ])('%j → %s', (c, want) => expect(wantsSigning(csr(c))).toBe(want));
});

describe('csrView', () => {
  it('reads the stored object', () => {
    const v = csrView({ spec: { signerName: 's/x', usages: ['client auth', 3], expirationSeconds: 900, username: 'u' }, status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'False' }], certificate: 'QQ==' } });
    expect(v).toEqual({ signerName: 's/x', usages: ['client auth'], expirationSeconds: 900, username: 'u', approved: true, denied: false, failed: false, issued: true });
  });
});

describe('validity (upstream signer duration and PermissiveSigningPolicy)', () => {
  const H = 3_600_000;
  it.each<[string, number | undefined, number, number]>([
    ['not asked: the signing duration', undefined, DEFAULT_SIGNING_DURATION_MS, DEFAULT_SIGNING_DURATION_MS],
    ['asked less', 3600, DEFAULT_SIGNING_DURATION_MS, H],
    ['asked more: capped', 10 * 8760 * 3600, DEFAULT_SIGNING_DURATION_MS, DEFAULT_SIGNING_DURATION_MS],
    ['asked under 10 minutes: 10 minutes', 60, DEFAULT_SIGNING_DURATION_MS, 600_000],
    ['a short signing duration caps', 3600 * 24, 2 * H, 2 * H],
  ])('%s', (_n, asked, max, want) => expect(certificateDurationMs(asked, max)).toBe(want));

  const now = Date.UTC(2026, 0, 1);
  const far = now + 100 * 8760 * H;
  it.each<[string, number, number, { notBefore: number; notAfter: number } | { error: string }]>([
    ['long: backdated both ends', 24 * H, far, { notBefore: now - 300_000, notAfter: now + 24 * H - 300_000 }],
    ['short (< 8h): notAfter not backdated', H, far, { notBefore: now - 300_000, notAfter: now + H }],
    ['capped at the CA expiry', 24 * H, now + H, { notBefore: now - 300_000, notAfter: now + H }],
    ['an expired CA', H, now, { error: `the signer has expired: NotAfter=${new Date(now).toISOString()}` }],
  ])('%s', (_n, dur, caNotAfter, want) => {
    const w = certificateWindow(now, dur, caNotAfter);
    expect('error' in w ? w : { notBefore: w.notBefore.getTime(), notAfter: w.notAfter.getTime() }).toEqual(want);
  });
});

describe('usageExtensions (upstream keyUsagesFromStrings)', () => {
  it.each<[string[], unknown]>([
    [NODE_USAGES, { keyUsage: 1 | 4, extended: ['1.3.6.1.5.5.7.3.2'] }],
    [['signing', 'server auth', 'client auth', 'any'], { keyUsage: 1, extended: ['2.5.29.37.0', '1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'] }],
    [['s/mime', 'email protection'], { keyUsage: 0, extended: ['1.3.6.1.5.5.7.3.4'] }],
    [['client auth', 'teleport', 'x'], { error: 'unrecognized usage values: ["teleport" "x"]' }],
  ])('%j', (usages, want) => expect(usageExtensions(usages)).toEqual(want));
});
