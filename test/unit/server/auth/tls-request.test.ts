import type { DetailedPeerCertificate } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { authnRequestOf } from '../../../../src/server/auth/index.js';

const sock = (cert: object, authorized: boolean, err?: Error) => ({ getPeerCertificate: () => cert as DetailedPeerCertificate, authorized, authorizationError: err as Error });

describe('authnRequestOf', () => {
  it('no certificate: neither certificate nor error', () => {
    expect(authnRequestOf(sock({}, false, new Error('UNABLE_TO_GET_ISSUER_CERT')), 'Bearer x')).toEqual({ clientCertificate: undefined, clientCertificateError: undefined, authorization: 'Bearer x' });
  });
  it('a verified certificate is handed on', () => {
    const cert = { subject: { CN: 'a' } };
    expect(authnRequestOf(sock(cert, true), undefined).clientCertificate).toBe(cert);
  });
  it('an unverified certificate becomes the error', () => {
    expect(authnRequestOf(sock({ subject: { CN: 'a' } }, false, new Error('SELF_SIGNED_CERT_IN_CHAIN')), undefined)).toEqual({ clientCertificate: undefined, clientCertificateError: 'SELF_SIGNED_CERT_IN_CHAIN', authorization: undefined });
  });
});
