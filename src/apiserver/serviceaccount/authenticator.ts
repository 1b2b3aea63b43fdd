// Service-account bearer tokens → users (upstream's JWT token authenticator
// with the legacy-free validator): the signature verifies against one of the
// server's keys, the issuer is one the server accepts, an audience overlaps
// the accepted audiences, the token is inside its validity window, and the
// account (and the bound pod or secret, by uid) still exists. Called by the
// front for every bearer token, concurrently; the lookups may do I/O.
import type { KeyObject } from 'node:crypto';
import { isNotFound } from '../../api/errors.js';
import type { UserInfo } from '../types.js';
import { serviceAccountUsername } from '../authz/rbac-rules.js';
import { parseClaims } from './claims.js';
import type { ParsedClaims } from './claims.js';
import { verifyJwt } from './jwt.js';

export const POD_NAME_EXTRA = 'authentication.platform.io/pod-name';
export const POD_UID_EXTRA = 'authentication.platform.io/pod-uid';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
const DELETION_LEEWAY_MS = 60_000;

/** The same shape as the front's TokenAuthenticator (src/apiserver/authn/types.ts). */
export interface TokenAuthenticatorLike {
  authenticate(token: string, signal: AbortSignal): Promise<UserInfo | undefined>;
}

/** What still exists: uid of the account / pod / secret, undefined when gone. */
export interface ServiceAccountLookup {
  serviceAccountUid(namespace: string, name: string, signal: AbortSignal): Promise<string | undefined>;
  /** The pod's uid and its metadata.deletionTimestamp (RFC 3339), if deletion was requested. */
  pod(namespace: string, name: string, signal: AbortSignal): Promise<{ uid: string; deletionTimestamp?: string } | undefined>;
  secretUid(namespace: string, name: string, signal: AbortSignal): Promise<string | undefined>;
}

export interface VerifierSettings {
  keys: readonly KeyObject[];
  issuers: readonly string[];
  audiences: readonly string[];
  clock: { now(): number };
}

export type TokenVerdict = { user: UserInfo; audiences: string[] } | { error: string };

/** Checks that need no lookups; the parsed claims or why the token is not acceptable. Pure. */
export function checkToken(token: string, s: VerifierSettings): ParsedClaims | { error: string } {
  const v = verifyJwt(token, s.keys);
  if (!v.ok) return { error: v.error };
  const c = parseClaims(v.claims);
  if ('error' in c) return c;
  if (!s.issuers.includes(c.issuer)) return { error: 'token issuer is not accepted' };
  if (!c.audiences.some((a) => s.audiences.includes(a))) return { error: 'token audiences is invalid' };
  const now = Math.floor(s.clock.now() / 1000);
  if (now >= c.exp) return { error: 'service account token has expired' };
  if (c.nbf !== undefined && now + 60 < c.nbf) return { error: 'service account token is not valid yet' };
  return c;
}

export function userFor(c: ParsedClaims): UserInfo {
  const extra: Record<string, string[]> = {};
  if (c.pod !== undefined) {
    extra[POD_NAME_EXTRA] = [c.pod.name];
    extra[POD_UID_EXTRA] = [c.pod.uid];
  }
  return { name: serviceAccountUsername(c.namespace, c.serviceAccount.name), uid: c.serviceAccount.uid, groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${c.namespace}`], extra };
}

export class ServiceAccountTokenAuthenticator implements TokenAuthenticatorLike {
  readonly #settings: VerifierSettings;
  readonly #lookup: ServiceAccountLookup;

  constructor(settings: VerifierSettings, lookup: ServiceAccountLookup) {
    this.#settings = settings;
    this.#lookup = lookup;
  }

  /** The verdict with the reason, for TokenReview's status.error; `audiences` replaces the accepted ones (TokenReview's spec.audiences). */
  async review(token: string, signal: AbortSignal, audiences: readonly string[] = this.#settings.audiences): Promise<TokenVerdict> {
    const c = checkToken(token, { ...this.#settings, audiences });
    if ('error' in c) return c;
    const ns = c.namespace;
    const saUid = await this.#lookup.serviceAccountUid(ns, c.serviceAccount.name, signal);
    if (saUid === undefined) return { error: `serviceaccounts "${c.serviceAccount.name}" not found` };
    if (saUid !== c.serviceAccount.uid) return { error: `service account UID (${saUid}) does not match claim (${c.serviceAccount.uid})` };
    if (c.pod !== undefined) {
      const pod = await this.#lookup.pod(ns, c.pod.name, signal);
      if (pod === undefined) return { error: `pods "${c.pod.name}" not found` };
      if (pod.uid !== c.pod.uid) return { error: `pod UID (${pod.uid}) does not match claim (${c.pod.uid})` };
      // As upstream: a pod's tokens keep working through its graceful deletion and a minute beyond.
      const deleted = pod.deletionTimestamp === undefined ? NaN : Date.parse(pod.deletionTimestamp);
      if (deleted < this.#settings.clock.now() - DELETION_LEEWAY_MS) return { error: 'service account token has been invalidated (pod deleted)' };
    }
    if (c.secret !== undefined) {
      const uid = await this.#lookup.secretUid(ns, c.secret.name, signal);
      if (uid === undefined) return { error: `secrets "${c.secret.name}" not found` };
      if (uid !== c.secret.uid) return { error: `secret UID (${uid}) does not match claim (${c.secret.uid})` };
    }
    return { user: userFor(c), audiences: c.audiences.filter((a) => audiences.includes(a)) };
  }

  async authenticate(token: string, signal: AbortSignal): Promise<UserInfo | undefined> {
    const v = await this.review(token, signal);
    return 'user' in v ? v.user : undefined;
  }
}

/** The part of the registry's GenericStore read here (get throws a NotFound ApiError). */
export interface ObjectGetter {
  get(namespace: string, name: string): Promise<{ metadata: { uid?: string; deletionTimestamp?: string; [k: string]: unknown } }>;
}

/** The lookups from the registry's serviceaccounts, pods and secrets stores. */
export function lookupFromStores(s: { serviceaccounts: ObjectGetter; pods: ObjectGetter; secrets: ObjectGetter }): ServiceAccountLookup {
  const get = async (r: ObjectGetter, ns: string, name: string): Promise<{ uid?: string; deletionTimestamp?: string; [k: string]: unknown } | undefined> => {
    try {
      return (await r.get(ns, name)).metadata;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  return {
    serviceAccountUid: async (ns, name) => (await get(s.serviceaccounts, ns, name))?.uid ?? undefined,
    pod: async (ns, name) => {
      const m = await get(s.pods, ns, name);
      if (m === undefined) return undefined;
      return m.deletionTimestamp === undefined ? { uid: m.uid ?? '' } : { uid: m.uid ?? '', deletionTimestamp: m.deletionTimestamp };
    },
    secretUid: async (ns, name) => (await get(s.secrets, ns, name))?.uid ?? undefined,
  };
}
