// Who made a request, as kube-apiserver's union authenticator decides it: a
// client certificate that verified against --client-ca-file first (user = CN,
// groups = O), else a bearer token through the token authenticators in order.
// Every authenticated user is also in system:authenticated. No credentials, or
// credentials nobody recognises: undefined (the front answers 401; there is no
// anonymous user). Called once per request; may block on a token
// authenticator's I/O until `signal` aborts.
import type { UserInfo } from '../types.js';
import { SYSTEM_AUTHENTICATED, type Credentials, type TokenAuthenticator } from './types.js';

/** The token of an `Authorization: Bearer <token>` header, as upstream's bearertoken authenticator reads it. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parts = header.trim().split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1]!;
  return token === '' ? undefined : token;
}

/** Adds system:authenticated to the groups unless present. */
export function withAuthenticatedGroup(u: UserInfo): UserInfo {
  return u.groups.includes(SYSTEM_AUTHENTICATED) ? u : { ...u, groups: [...u.groups, SYSTEM_AUTHENTICATED] };
}

export async function authenticate(creds: Credentials, tokenAuthenticators: readonly TokenAuthenticator[], signal: AbortSignal): Promise<UserInfo | undefined> {
  const cert = creds.clientCertificate;
  if (cert !== undefined && cert.commonName !== '') {
    return withAuthenticatedGroup({ name: cert.commonName, uid: '', groups: [...cert.organizations], extra: {} });
  }
  const token = bearerToken(creds.authorization);
  if (token === undefined) return undefined;
  for (const a of tokenAuthenticators) {
    const user = await a.authenticate(token, signal);
    if (user !== undefined) return withAuthenticatedGroup(user);
  }
  return undefined;
}
