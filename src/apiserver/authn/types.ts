// The seams of authentication. The front (http/) asks a RequestAuthenticator
// who made a request; bearer tokens go through a list of TokenAuthenticators
// (the static token file, the admin token, and later the registry's
// service-account JWTs), the first to recognise a token wins.
import type { UserInfo } from '../types.js';

/**
 * One source of bearer-token identities. Called once per request that carries
 * a token, concurrently; may do I/O (a JWT key lookup) and must give up when
 * `signal` aborts. Returns undefined for a token it does not know (the next
 * authenticator is asked); throws only when it cannot decide (an outage),
 * which the front answers with 401 as well.
 */
export interface TokenAuthenticator {
  authenticate(token: string, signal: AbortSignal): Promise<UserInfo | undefined>;
}

/** What authentication sees of a request: its headers and the TLS peer's verified certificate, if any. */
export interface Credentials {
  /** The `Authorization` header value, if sent. */
  authorization: string | undefined;
  /** Subject of a client certificate that verified against --client-ca-file (undefined when none or not verified). */
  clientCertificate: { commonName: string; organizations: readonly string[] } | undefined;
}

export const SYSTEM_AUTHENTICATED = 'system:authenticated';
export const SYSTEM_MASTERS = 'system:masters';
