// Who sent a request on the main port, as the kubelet's delegating
// authenticator decides: the verified client certificate, else a bearer token
// through the token-review API, else anonymous when enabled. Called by the
// HTTP core once per request, concurrently; never throws (a review that
// fails is 401 with the reason for the log). Review answers are cached by a
// hash of the token, never the token itself.
import { createHash } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import { ANONYMOUS, type AuthnRequest, type AuthnResult, type Authenticator, type UserInfo } from '../types.js';
import type { AuthLog } from './log.js';
import { Coalescer } from './coalesce.js';
import { TtlCache } from './ttl-cache.js';

/** Asks the token-review API about a token. May reject (API down): that answer is not cached. */
export type TokenReviewer = (token: string, signal: AbortSignal) => Promise<{ authenticated: boolean; user?: UserInfo; error?: string }>;

export interface AuthenticatorOptions {
  /** --anonymous-auth. */
  anonymous: boolean;
  /** Whether --client-ca-file is set (the TLS layer then requests and verifies certificates). */
  clientCA: boolean;
  /** Set with --authentication-token-webhook; undefined ignores the Authorization header. */
  tokenReview: TokenReviewer | undefined;
  /** --authentication-token-webhook-cache-ttl; 0 turns the cache off. */
  cacheTtlMs: number;
  log: AuthLog;
  now?: () => number;
}

export const SYSTEM_AUTHENTICATED = 'system:authenticated';
/** Bounds memory under a flood of distinct tokens; the oldest answer goes first. */
const TOKEN_CACHE_ENTRIES = 4096;

/** Adds system:authenticated, as upstream's AuthenticatedGroupAdder does for every non-anonymous user. */
export function withAuthenticatedGroup(u: UserInfo): UserInfo {
  return u.groups.includes(SYSTEM_AUTHENTICATED) ? u : { ...u, groups: [...u.groups, SYSTEM_AUTHENTICATED] };
}

const values = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** user = CN, groups = O (every O, in order); undefined without a CN (upstream then tries the next authenticator). */
export function certificateUser(cert: PeerCertificate): UserInfo | undefined {
  const subject = cert.subject as unknown as Record<string, string | string[] | undefined> | undefined;
  const cn = values(subject?.CN)[0] ?? '';
  if (cn === '') return undefined;
  return { name: cn, groups: values(subject?.O) };
}

/**
 * The token of an `Authorization: Bearer <token>` header (scheme case-insensitive);
 * undefined when the header is absent or another scheme; '' for an empty bearer token (refused).
 */
export function bearerToken(header: string | undefined): string | undefined {
  const auth = (header ?? '').trim();
  if (auth === '') return undefined;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1]!;
}

type Review = { authenticated: true; user: UserInfo } | { authenticated: false; reason: string };

export function createAuthenticator(o: AuthenticatorOptions): Authenticator {
  const cache = new TtlCache<Review>(TOKEN_CACHE_ENTRIES, o.now ?? Date.now);
  const inflight = new Coalescer<Review | { failed: string }>();

  function review(token: string, signal: AbortSignal): Promise<Review | { failed: string }> {
    const key = createHash('sha256').update(token).digest('base64');
    const hit = cache.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    return inflight.run(key, signal, (s) => ask(key, token, s));
  }

  async function ask(key: string, token: string, signal: AbortSignal): Promise<Review | { failed: string }> {
    let answer: Awaited<ReturnType<TokenReviewer>>;
    try {
      answer = await o.tokenReview!(token, signal);
    } catch (e) {
      // Per request, so only at -v 2: a flood of tokens while the API is down must not flood the log.
      o.log.v(2)?.info('Token review failed', { err: (e as Error).message });
      return { failed: `token review failed: ${(e as Error).message}` };
    }
    const r: Review = answer.authenticated && answer.user !== undefined ? { authenticated: true, user: withAuthenticatedGroup(answer.user) } : { authenticated: false, reason: answer.error !== undefined && answer.error !== '' ? `invalid bearer token: ${answer.error}` : 'invalid bearer token' };
    cache.set(key, r, o.cacheTtlMs);
    return r;
  }

  return {
    async authenticate(req: AuthnRequest, signal: AbortSignal): Promise<AuthnResult> {
      if (o.clientCA) {
        // The brief's rule: a certificate that was presented and failed verification is refused outright.
        if (req.clientCertificateError !== undefined) return { kind: 'unauthorized', reason: `client certificate not accepted: ${req.clientCertificateError}` };
        if (req.clientCertificate !== undefined) {
          // The handshake checked the dates once; a keep-alive connection outlives them (the kubelet checks each request).
          if (!validNow(req.clientCertificate, Date.now())) return { kind: 'unauthorized', reason: 'client certificate not accepted: certificate has expired or is not yet valid' };
          const user = certificateUser(req.clientCertificate);
          if (user !== undefined) return { kind: 'user', user: withAuthenticatedGroup(user), via: 'x509' };
        }
      }
      if (o.tokenReview !== undefined) {
        const token = bearerToken(req.authorization);
        if (token === '') return { kind: 'unauthorized', reason: 'invalid bearer token: empty' };
        if (token !== undefined) {
          const r = await review(token, signal);
          if ('failed' in r) return { kind: 'unauthorized', reason: r.failed };
          if (!r.authenticated) return { kind: 'unauthorized', reason: r.reason };
          return { kind: 'user', user: r.user, via: 'token' };
        }
      }
      if (o.anonymous) return { kind: 'user', user: ANONYMOUS, via: 'anonymous' };
      return { kind: 'unauthorized', reason: 'no credentials and anonymous access is disabled (--anonymous-auth=false)' };
    },
  };
}

function validNow(cert: { valid_from?: string; valid_to?: string }, now: number): boolean {
  const from = Date.parse(cert.valid_from ?? '');
  const to = Date.parse(cert.valid_to ?? '');
  return Number.isFinite(from) && Number.isFinite(to) && from <= now && now <= to;
}
