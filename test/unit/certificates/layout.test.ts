import { describe, expect, it } from 'vitest';
import { CLIENT_PAIR_PREFIX, certificateLifetime, clientCertificateValidity, pairPaths, pemBlocks, privateKeyBlock } from '../../../src/certificates/layout.js';
import { generateKeyPair, issueCertificate, privateKeyPem } from '../../../src/pki/x509.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);

function cert(notBefore: number, notAfter: number): string {
  const k = generateKeyPair();
  return issueCertificate({ subject: { commonName: 'system:node:n1', organizations: ['system:nodes'] }, publicKey: k.publicKey, selfKey: k.privateKey, notBefore: new Date(notBefore), notAfter: new Date(notAfter), isCA: false, usage: 'client' });
}

describe('the --cert-dir layout', () => {
  it.each([
    ['/var/lib/agent/pki', CLIENT_PAIR_PREFIX, new Date(Date.UTC(2026, 10, 24, 9, 5, 7)), '/var/lib/agent/pki/agent-client-2026-11-24-09-05-07.pem', '/var/lib/agent/pki/agent-client-current.pem', '/var/lib/agent/pki/agent-client.key.tmp'],
    ['pki', 'agent-server', new Date(Date.UTC(2027, 0, 1, 0, 0, 0)), 'pki/agent-server-2027-01-01-00-00-00.pem', 'pki/agent-server-current.pem', 'pki/agent-server.key.tmp'],
  ])('%s with prefix %s', (dir, prefix, at, dated, current, keyTmp) => {
    const p = pairPaths(dir, prefix);
    expect(p.dated(at)).toBe(dated);
    expect(p.current).toBe(current);
    expect(p.keyTmp).toBe(keyTmp);
  });

  it('splits a pair file into its certificate blocks and its key', () => {
    const c = cert(T0, T0 + DAY);
    const key = privateKeyPem(generateKeyPair().privateKey);
    const text = `${c}${c}${key}`;
    expect(pemBlocks(text, 'CERTIFICATE')).toEqual([c, c]);
    expect(privateKeyBlock(text)).toBe(key);
    expect(privateKeyBlock(c)).toBeUndefined();
    expect(privateKeyBlock('-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n')).toContain('EC PRIVATE KEY');
  });

  it('reads the lifetime of the first certificate', () => {
    const l = certificateLifetime(cert(T0, T0 + 10 * DAY) + cert(T0 - DAY, T0));
    expect(l.notBefore.getTime()).toBe(T0);
    expect(l.notAfter.getTime()).toBe(T0 + 10 * DAY);
    expect(() => certificateLifetime('nothing')).toThrow(/no CERTIFICATE/);
  });
});

describe('is the client certificate still valid (the kubelet\'s isClientConfigStillValid)', () => {
  const live = cert(T0 - DAY, T0 + DAY);
  const expired = cert(T0 - 2 * DAY, T0 - DAY);
  const future = cert(T0 + DAY, T0 + 2 * DAY);
  it.each([
    ['no certificate', undefined, false, /has no client certificate/],
    ['no CERTIFICATE block', 'garbage', false, /no CERTIFICATE block/],
    ['unparsable block', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', false, /cannot be parsed/],
    ['expired', expired, false, /expired at/],
    ['one of the chain expired', live + expired, false, /expired at/],
    ['valid', live, true, undefined],
    ['not yet valid (notBefore not checked)', future, true, undefined],
  ])('%s', (_n, pem, valid, reason) => {
    const v = clientCertificateValidity(pem, new Date(T0));
    expect(v.valid).toBe(valid);
    if (!v.valid) expect(v.reason).toMatch(reason!);
  });

  it('at exactly notAfter the certificate is still valid, one ms later not', () => {
    expect(clientCertificateValidity(live, new Date(T0 + DAY)).valid).toBe(true);
    expect(clientCertificateValidity(live, new Date(T0 + DAY + 1)).valid).toBe(false);
  });
});
