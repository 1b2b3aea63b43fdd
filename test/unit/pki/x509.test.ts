import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKeyPair, issueCertificate, keyPairFromPem, privateKeyPem } from '../../../src/pki/x509.js';

const now = new Date();
const later = new Date(now.getTime() + 86_400_000);

describe('issueCertificate', () => {
  it('makes a self-signed CA and a leaf it signs, with subject, groups and SANs', () => {
    const ca = generateKeyPair();
    const caPem = issueCertificate({ subject: { commonName: 'test-ca' }, publicKey: ca.publicKey, selfKey: ca.privateKey, notBefore: now, notAfter: later, isCA: true });
    const leaf = generateKeyPair();
    const leafPem = issueCertificate({
      subject: { commonName: 'alice', organizations: ['dev', 'ops'] },
      publicKey: leaf.publicKey,
      issuer: { subject: { commonName: 'test-ca' }, ...ca },
      notBefore: now,
      notAfter: later,
      isCA: false,
      hosts: ['localhost', '127.0.0.1', '::1'],
      usage: 'server+client',
    });
    const c = new X509Certificate(caPem);
    const l = new X509Certificate(leafPem);
    expect(c.ca).toBe(true);
    expect(c.verify(c.publicKey)).toBe(true);
    expect(l.ca).toBe(false);
    expect(l.verify(c.publicKey)).toBe(true);
    expect(l.checkIssued(c)).toBe(true);
    expect(l.subject.split('\n')).toEqual(['O=dev', 'O=ops', 'CN=alice']);
    expect(l.checkHost('localhost')).toBe('localhost');
    expect(l.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(l.checkIP('::1')).toBe('::1');
    expect(l.keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']));
  });
  it('keys survive a PEM round trip', () => {
    const k = generateKeyPair();
    const back = keyPairFromPem(privateKeyPem(k.privateKey));
    expect(back.publicKey.export({ format: 'der', type: 'spki' })).toEqual(k.publicKey.export({ format: 'der', type: 'spki' }));
  });
  it('needs a signer', () => {
    const k = generateKeyPair();
    expect(() => issueCertificate({ subject: { commonName: 'x' }, publicKey: k.publicKey, notBefore: now, notAfter: later, isCA: false })).toThrow(/issuer or selfKey/);
  });
  it('every serial number parses (minimal DER, positive)', () => {
    const k = generateKeyPair();
    for (let i = 0; i < 300; i++) {
      const pem = issueCertificate({ subject: { commonName: 'x' }, publicKey: k.publicKey, selfKey: k.privateKey, notBefore: now, notAfter: later, isCA: true });
      expect(new X509Certificate(pem).serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/);
    }
  });
});
