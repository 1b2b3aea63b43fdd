// Compact JWS (JWT) signing and verification over node:crypto: RS256 for RSA
// keys, ES256 for P-256 EC keys, the key id as upstream computes it
// (base64url of the SHA-256 of the public key's DER). Pure apart from the
// crypto calls; no I/O, safe to call concurrently.
import { createHash, createPublicKey, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { ConfigFileError } from '../../errors.js';

export type JwtAlg = 'RS256' | 'ES256';

export interface JwtHeader {
  alg: JwtAlg;
  kid?: string;
  typ?: string;
}

export type JwtClaims = Record<string, unknown>;

const b64u = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

/** The algorithm a key signs with; throws for key types the server does not support. */
export function algorithmFor(key: KeyObject): JwtAlg {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new ConfigFileError(`service account key type ${key.asymmetricKeyType ?? 'unknown'} is not supported (RSA or EC P-256)`, { field: 'service-account-key' });
}

/** upstream's keyIDFromPublicKey. */
export function keyId(publicKey: KeyObject): string {
  return b64u(createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest());
}

export interface SigningKey {
  privateKey: KeyObject;
  alg: JwtAlg;
  kid: string;
}

export function signingKey(privateKey: KeyObject): SigningKey {
  return { privateKey, alg: algorithmFor(privateKey), kid: keyId(createPublicKey(privateKey)) };
}

export function signJwt(claims: JwtClaims, key: SigningKey): string {
  const header: JwtHeader = { alg: key.alg, kid: key.kid };
  const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(claims))}`;
  const sig = sign('sha256', Buffer.from(input), key.alg === 'ES256' ? { key: key.privateKey, dsaEncoding: 'ieee-p1363' } : key.privateKey);
  return `${input}.${b64u(sig)}`;
}

export type Decoded = { ok: true; header: JwtHeader; claims: JwtClaims } | { ok: false; error: string };

/** Splits and parses a compact JWS without checking its signature. */
export function decodeJwt(token: string): Decoded {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, error: 'not a compact JWS' };
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    if (typeof header !== 'object' || header === null || typeof claims !== 'object' || claims === null || Array.isArray(claims)) return { ok: false, error: 'malformed JWS' };
    const alg = (header as { alg?: unknown }).alg;
    if (alg !== 'RS256' && alg !== 'ES256') return { ok: false, error: `unsupported signing algorithm ${JSON.stringify(alg)}` };
    return { ok: true, header: header as JwtHeader, claims: claims as JwtClaims };
  } catch {
    return { ok: false, error: 'malformed JWS' };
  }
}

/** Checks the signature against every key of the right algorithm (the kid is a hint, not trusted). */
export function verifyJwt(token: string, publicKeys: readonly KeyObject[]): Decoded {
  const d = decodeJwt(token);
  if (!d.ok) return d;
  const dot = token.lastIndexOf('.');
  const input = Buffer.from(token.slice(0, dot));
  const sig = Buffer.from(token.slice(dot + 1), 'base64url');
  for (const k of publicKeys) {
    let alg: JwtAlg;
    try {
      alg = algorithmFor(k);
    } catch {
      continue;
    }
    if (alg !== d.header.alg) continue;
    const ok = verify('sha256', input, alg === 'ES256' ? { key: k, dsaEncoding: 'ieee-p1363' } : k, sig);
    if (ok) return d;
  }
  return { ok: false, error: 'invalid signature' };
}
