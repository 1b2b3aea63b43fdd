// Bound service account tokens for pods (the kubelet's token manager): a
// TokenRequest (`POST .../serviceaccounts/<sa>/token`) per pod, audience and
// lifetime, cached and reused until `needsRefresh` says the token is older
// than 80 % of its lifetime or than 24 hours. Called from the projected
// volume plugin on every sync of a pod; a pod's tokens are forgotten when it
// unregisters. May block on the API server.
import type { ApiClient, ApiObject } from '../client/index.js';
import { RESOURCES } from '../client/index.js';
import { resourcePath } from '../client/rest/index.js';
import type { IssuedToken, TokenRequestInput } from './types.js';

/** The kubelet's token manager limits: a token is renewed after 24 h whatever its lifetime, and up to 10 s early (jitter). */
export const MAX_TOKEN_AGE_MS = 24 * 3600 * 1000;
export const MAX_REFRESH_JITTER_MS = 10_000;

export interface CachedToken extends IssuedToken {
  /** The lifetime the server granted (spec.expirationSeconds of its answer). */
  readonly expirationSeconds: number;
}

/**
 * Whether a cached token must be requested again at `nowMs`: past 80 % of its
 * lifetime, or 24 h after it was issued, each less `jitterMs` (the kubelet's
 * requiresRefresh). Pure.
 */
export function needsRefresh(t: CachedToken, nowMs: number, jitterMs: number): boolean {
  const exp = Date.parse(t.expirationTimestamp);
  if (Number.isNaN(exp)) return true;
  const issued = exp - t.expirationSeconds * 1000;
  if (nowMs > issued + MAX_TOKEN_AGE_MS - jitterMs) return true;
  return nowMs > exp - Math.floor((t.expirationSeconds * 20) / 100) * 1000 - jitterMs;
}

/** The TokenRequest body for a pod-bound token. Pure. */
export function tokenRequestBody(req: TokenRequestInput): ApiObject {
  return {
    apiVersion: 'authentication.platform.io/v1',
    kind: 'TokenRequest',
    metadata: { name: req.serviceAccount, namespace: req.namespace },
    spec: {
      audiences: req.audience ? [req.audience] : [],
      expirationSeconds: req.expirationSeconds,
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: req.pod.name, uid: req.pod.uid },
    },
  };
}

const cacheKey = (r: TokenRequestInput): string => JSON.stringify([r.namespace, r.serviceAccount, r.audience ?? '', r.expirationSeconds, r.pod.uid]);

export class TokenManager {
  readonly #cache = new Map<string, { pod: string; token: CachedToken }>();

  constructor(
    private readonly client: ApiClient,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  async token(req: TokenRequestInput, signal: AbortSignal): Promise<IssuedToken> {
    const key = cacheKey(req);
    const have = this.#cache.get(key)?.token;
    if (have && !needsRefresh(have, this.now(), Math.floor(this.random() * MAX_REFRESH_JITTER_MS / 1000) * 1000)) return { token: have.token, expirationTimestamp: have.expirationTimestamp };
    try {
      const fresh = await this.#request(req, signal);
      this.#cache.set(key, { pod: req.pod.uid, token: fresh });
      return { token: fresh.token, expirationTimestamp: fresh.expirationTimestamp };
    } catch (e) {
      // As the kubelet: a token not yet expired is still served when its renewal fails.
      if (have && Date.parse(have.expirationTimestamp) > this.now() && !signal.aborted) return { token: have.token, expirationTimestamp: have.expirationTimestamp };
      throw e;
    }
  }

  forgetPod(uid: string): void {
    for (const [k, v] of this.#cache) if (v.pod === uid) this.#cache.delete(k);
  }

  async #request(req: TokenRequestInput, signal: AbortSignal): Promise<CachedToken> {
    const path = resourcePath(RESOURCES.serviceAccounts, { namespace: req.namespace, name: req.serviceAccount, subresource: 'token' });
    const res = await this.client.transport.request({ method: 'POST', path, headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify(tokenRequestBody(req)), signal });
    const obj = JSON.parse(res.body.toString('utf8')) as { spec?: { expirationSeconds?: number }; status?: { token?: string; expirationTimestamp?: string } };
    const token = obj.status?.token;
    const expirationTimestamp = obj.status?.expirationTimestamp;
    if (typeof token !== 'string' || typeof expirationTimestamp !== 'string') throw new Error(`TokenRequest for service account ${req.namespace}/${req.serviceAccount}: the answer has no status.token or status.expirationTimestamp`);
    return { token, expirationTimestamp, expirationSeconds: obj.spec?.expirationSeconds ?? req.expirationSeconds };
  }
}
