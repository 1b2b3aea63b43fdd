// May this user do this to the node: AlwaysAllow, or a SubjectAccessReview
// per distinct attributes with answers cached by verdict (allowed for
// --authorization-webhook-cache-authorized-ttl, denied for
// -unauthorized-ttl); a review that fails denies and is not cached. Called by
// the HTTP core through authorizeRequest, concurrently; never throws.
import type { AuthzDecision, Authorizer, RequestAttributes, UserInfo } from '../types.js';
import { forbiddenMessage, requestAttributes } from './attributes.js';
import type { AuthLog } from './log.js';
import { Coalescer } from './coalesce.js';
import { TtlCache } from './ttl-cache.js';

/** Asks the access-review API. May reject (API down): the request is denied, nothing cached. */
export type AccessReviewer = (attrs: RequestAttributes, signal: AbortSignal) => Promise<{ allowed: boolean; reason: string }>;

export interface AuthorizerOptions {
  mode: 'AlwaysAllow' | 'Webhook';
  /** Required for Webhook. */
  accessReview: AccessReviewer | undefined;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  log: AuthLog;
  now?: () => number;
}

/** Upstream's webhook authorizer keeps this many answers. */
const DECISION_CACHE_ENTRIES = 8192;

/** Everything a review sends (path is not: the review is about the node, not the URL), so equal keys mean equal questions. */
export function attributesKey(a: RequestAttributes): string {
  const extra = Object.entries(a.user.extra ?? {}).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return JSON.stringify([a.user.name, a.user.uid ?? '', a.user.groups, extra, a.verb, a.apiGroup, a.apiVersion, a.resource, a.subresource, a.name]);
}

export function createAuthorizer(o: AuthorizerOptions): Authorizer {
  if (o.mode === 'AlwaysAllow') return { authorize: () => Promise.resolve({ allowed: true }) };
  const review = o.accessReview;
  if (review === undefined) throw new TypeError('createAuthorizer: mode Webhook needs accessReview (the API client)');
  const cache = new TtlCache<AuthzDecision>(DECISION_CACHE_ENTRIES, o.now ?? Date.now);
  const inflight = new Coalescer<AuthzDecision>();
  return {
    authorize(attrs, signal) {
      const key = attributesKey(attrs);
      const hit = cache.get(key);
      if (hit !== undefined) return Promise.resolve(hit);
      return inflight.run(key, signal, (s) => ask(key, attrs, s, review));
    },
  };

  async function ask(key: string, attrs: RequestAttributes, signal: AbortSignal, call: AccessReviewer): Promise<AuthzDecision> {
    let answer: { allowed: boolean; reason: string };
    try {
      answer = await call(attrs, signal);
    } catch (e) {
      o.log.v(2)?.info('Access review failed', { user: attrs.user.name, verb: attrs.verb, subresource: attrs.subresource, err: (e as Error).message });
      return { allowed: false, reason: `access review failed: ${(e as Error).message}` };
    }
    const d: AuthzDecision = answer.allowed ? { allowed: true } : { allowed: false, reason: answer.reason };
    cache.set(key, d, answer.allowed ? o.authorizedTtlMs : o.unauthorizedTtlMs);
    return d;
  }
}

/**
 * The HTTP core's one call per authenticated request: asks each subresource
 * the path maps to in order (e.g. pods, then proxy) and allows on the first
 * allowed; a denial's reason is the whole 403 message, as upstream words it.
 */
export async function authorizeRequest(authorizer: Authorizer, r: { user: UserInfo; method: string; path: string; nodeName: string }, signal: AbortSignal): Promise<AuthzDecision> {
  const all = requestAttributes(r);
  for (const attrs of all) {
    const d = await authorizer.authorize(attrs, signal);
    if (d.allowed) return d;
  }
  const first = all[0]!;
  return { allowed: false, reason: forbiddenMessage(r.user, first.verb, all.map((a) => a.subresource)) };
}
