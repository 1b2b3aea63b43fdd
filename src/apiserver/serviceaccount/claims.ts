// The claims of a service-account token, as upstream's serviceaccount.Claims
// writes them and its validator reads them back: registered claims plus the
// private `platform.io` claim naming the namespace, the account and the bound
// pod or secret (with uids, so a recreated object does not inherit tokens). Pure.
import type { JwtClaims } from './jwt.js';
import { serviceAccountUsername } from '../authz/rbac-rules.js';

export const PRIVATE_CLAIM = 'platform.io';

export interface ObjectRef {
  name: string;
  uid: string;
}

export interface TokenSubject {
  namespace: string;
  serviceAccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
}

export interface ClaimsInput extends TokenSubject {
  issuer: string;
  audiences: readonly string[];
  /** Seconds since the epoch. */
  now: number;
  expirationSeconds: number;
  /** Seconds after `now` past which a use of the token is only warned about (the extended 3607 s tokens). */
  warnAfterSeconds?: number;
}

export function buildClaims(i: ClaimsInput): JwtClaims {
  const priv: Record<string, unknown> = { namespace: i.namespace, serviceaccount: { name: i.serviceAccount.name, uid: i.serviceAccount.uid } };
  if (i.pod !== undefined) priv.pod = { name: i.pod.name, uid: i.pod.uid };
  if (i.secret !== undefined) priv.secret = { name: i.secret.name, uid: i.secret.uid };
  if (i.warnAfterSeconds !== undefined) priv.warnafter = i.now + i.warnAfterSeconds;
  return {
    aud: [...i.audiences],
    exp: i.now + i.expirationSeconds,
    iat: i.now,
    iss: i.issuer,
    [PRIVATE_CLAIM]: priv,
    nbf: i.now,
    sub: serviceAccountUsername(i.namespace, i.serviceAccount.name),
  };
}

export interface ParsedClaims extends TokenSubject {
  issuer: string;
  audiences: string[];
  exp: number;
  nbf: number | undefined;
  iat: number | undefined;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const ref = (v: unknown): ObjectRef | undefined => (isRec(v) && typeof v.name === 'string' && typeof v.uid === 'string' ? { name: v.name, uid: v.uid } : undefined);

/** Reads the claims back; an error string for tokens that are not well-formed service-account tokens. */
export function parseClaims(c: JwtClaims): ParsedClaims | { error: string } {
  const aud = typeof c.aud === 'string' ? [c.aud] : Array.isArray(c.aud) ? c.aud.filter((a): a is string => typeof a === 'string') : [];
  if (typeof c.iss !== 'string') return { error: 'token has no issuer' };
  if (typeof c.exp !== 'number') return { error: 'token has no expiration' };
  const priv = c[PRIVATE_CLAIM];
  if (!isRec(priv) || typeof priv.namespace !== 'string') return { error: 'token lacks the service account claims' };
  const sa = ref(priv.serviceaccount);
  if (sa === undefined || priv.namespace === '' || sa.name === '') return { error: 'token lacks the service account claims' };
  if (c.sub !== serviceAccountUsername(priv.namespace, sa.name)) return { error: 'token subject does not match its service account' };
  const out: ParsedClaims = { issuer: c.iss, audiences: aud, exp: c.exp, nbf: typeof c.nbf === 'number' ? c.nbf : undefined, iat: typeof c.iat === 'number' ? c.iat : undefined, namespace: priv.namespace, serviceAccount: sa };
  const pod = ref(priv.pod);
  if (pod !== undefined) out.pod = pod;
  const secret = ref(priv.secret);
  if (secret !== undefined) out.secret = secret;
  return out;
}
