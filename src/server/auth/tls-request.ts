// What the authenticator needs from a TLS connection: the peer certificate and
// the handshake's verdict against --client-ca-file (the server requests
// certificates without rejecting, so an unverified one still arrives here).
// For the HTTP core to call per request; pure reads of the socket.
import type { TLSSocket } from 'node:tls';
import type { AuthnRequest } from '../types.js';

export function authnRequestOf(socket: Pick<TLSSocket, 'getPeerCertificate' | 'authorized' | 'authorizationError'>, authorization: string | undefined): AuthnRequest {
  const cert = socket.getPeerCertificate();
  // node:tls returns an empty object when the client sent no certificate.
  const presented = cert !== null && typeof cert === 'object' && Object.keys(cert).length > 0;
  if (!presented) return { clientCertificate: undefined, clientCertificateError: undefined, authorization };
  if (!socket.authorized) {
    const err = socket.authorizationError as unknown;
    return { clientCertificate: undefined, clientCertificateError: err instanceof Error ? err.message : String(err ?? 'unverified'), authorization };
  }
  return { clientCertificate: cert, clientCertificateError: undefined, authorization };
}
