import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nodeClientSubject } from '../../../../src/api/signers.js';
import { generateKeyPair, issueCertificate, privateKeyPem } from '../../../../src/pki/x509.js';
import { usageExtensions } from '../../../../src/apiserver/controllers/csr-rules.js';
import { createCsrPem, CsrParseError, parseCsr } from '../../../../src/apiserver/controllers/pkcs10.js';
import { signingCaFromPem } from '../../../../src/apiserver/controllers/signing-ca.js';

const ec = generateKeyPair();
const good = createCsrPem({ subject: nodeClientSubject('n1'), ...ec });

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CsrParseError);
    return (e as Error).message;
  }
  return 'no error';
}

describe('parseCsr', () => {
  it('reads the subject and key of an ECDSA request', () => {
    const p = parseCsr(good);
    expect([p.commonName, p.organizations, p.dnsNames]).toEqual(['system:node:n1', ['system:nodes'], []]);
    expect(p.publicKey.export({ format: 'der', type: 'spki' })).toEqual(ec.publicKey.export({ format: 'der', type: 'spki' }));
  });
  it('reads an RSA request and its requested SANs', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const p = parseCsr(createCsrPem({ subject: { commonName: 'x' }, ...rsa, dnsNames: ['a.example', 'b.example'] }));
    expect([p.commonName, p.organizations, p.dnsNames]).toEqual(['x', [], ['a.example', 'b.example']]);
  });
  const body = good.split('\n').slice(1, -2).join('');
  const der = Buffer.from(body, 'base64');
  const pem = (label: string, bytes: Buffer): string => `-----BEGIN ${label}-----\n${bytes.toString('base64')}\n-----END ${label}-----\n`;
  const tampered = Buffer.from(der);
  tampered[tampered.length - 5] = tampered[tampered.length - 5]! ^ 0xff; // inside the signature
  it.each<[string, string, RegExp]>([
    ['not PEM', 'hello', /^PEM block type must be CERTIFICATE REQUEST$/],
    ['another block type', pem('CERTIFICATE', der), /^PEM block type must be CERTIFICATE REQUEST$/],
    ['not DER', pem('CERTIFICATE REQUEST', Buffer.from('garbage')), /^unable to parse the certificate request: /],
    ['a signature that does not match', pem('CERTIFICATE REQUEST', tampered), /^unable to verify the certificate request signature/],
  ])('%s → CsrParseError', (_n, input, want) => expect(errorOf(() => parseCsr(input))).toMatch(want));
});

describe('signing a parsed request', () => {
  const now = Date.now();
  const ca = generateKeyPair();
  const caPem = issueCertificate({ subject: { commonName: 'cluster-ca', organizations: ['Platform'] }, publicKey: ca.publicKey, selfKey: ca.privateKey, notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000), isCA: true });
  it('issues a client certificate for the requested subject, chained to the CA, with the asked usages', () => {
    const signer = signingCaFromPem(caPem, privateKeyPem(ca.privateKey), { flag: '--x', file: 'f' });
    const p = parseCsr(good);
    const usages = usageExtensions(['digital signature', 'key encipherment', 'client auth']);
    if ('error' in usages) throw new Error(usages.error);
    const cert = new X509Certificate(issueCertificate({ subject: { commonName: '' }, subjectName: p.subject, publicKey: p.publicKey, issuer: { subject: { commonName: '' }, privateKey: signer.privateKey, publicKey: signer.publicKey }, issuerName: signer.subjectName, notBefore: new Date(now), notAfter: new Date(now + 3_600_000), isCA: false, usages }));
    expect(cert.subject).toBe('O=system:nodes\nCN=system:node:n1');
    expect(cert.checkIssued(new X509Certificate(caPem))).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(cert.ca).toBe(false);
  });
  it('signs with an operator RSA CA (sha256WithRSAEncryption) whose subject is kept byte for byte', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rsaCaPem = issueCertificate({ subject: { commonName: 'rsa-ca', organizations: ['Ops'] }, publicKey: rsa.publicKey, selfKey: rsa.privateKey, notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000), isCA: true });
    const signer = signingCaFromPem(rsaCaPem, rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), { flag: '--cluster-signing-cert-file', file: 'ca.crt' });
    const p = parseCsr(good);
    const cert = new X509Certificate(issueCertificate({ subject: { commonName: '' }, subjectName: p.subject, publicKey: p.publicKey, issuer: { subject: { commonName: '' }, privateKey: signer.privateKey, publicKey: signer.publicKey }, issuerName: signer.subjectName, notBefore: new Date(now), notAfter: new Date(now + 3_600_000), isCA: false, usages: { keyUsage: 1, extended: ['1.3.6.1.5.5.7.3.2'] } }));
    expect(cert.issuer).toBe('O=Ops\nCN=rsa-ca');
    expect(cert.checkIssued(new X509Certificate(rsaCaPem))).toBe(true);
    expect(cert.verify(rsa.publicKey)).toBe(true);
  });
  it('refuses a CA file that is not a CA or whose key does not match, naming the flag', () => {
    const leaf = issueCertificate({ subject: { commonName: 'leaf' }, publicKey: ec.publicKey, issuer: { subject: { commonName: 'cluster-ca' }, ...ca }, notBefore: new Date(now), notAfter: new Date(now + 3_600_000), isCA: false });
    expect(() => signingCaFromPem(leaf, privateKeyPem(ec.privateKey), { flag: '--cluster-signing-cert-file', file: 'ca.crt' })).toThrow('--cluster-signing-cert-file ca.crt: cannot sign with it: the certificate is not a CA (basic constraints)');
    expect(() => signingCaFromPem(caPem, privateKeyPem(ec.privateKey), { flag: '--cluster-signing-cert-file', file: 'ca.crt' })).toThrow('the private key does not match the certificate');
  });
});
