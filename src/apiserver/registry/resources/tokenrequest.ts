// The `serviceaccounts/<name>/token` action (POST, answers 201 with the
// TokenRequest and its status): validates, looks the account and the bound
// object up, applies serviceaccount/token-request.ts's rules, signs. Not
// idempotent (every call issues a new token); no state is written. Called by
// the front's create handler for that subresource; may await the lookups.
import { ApiError, apiErrors } from '../../../api/errors.js';
import { buildClaims } from '../../serviceaccount/claims.js';
import { signJwt } from '../../serviceaccount/jwt.js';
import type { SigningKey } from '../../serviceaccount/jwt.js';
import { AUTHENTICATION_GROUP, boundTarget, planToken, validateTokenRequest } from '../../serviceaccount/token-request.js';
import type { BoundObject, TokenIssuerSettings, TokenRequestBody } from '../../serviceaccount/token-request.js';
import type { ApiObject } from '../types.js';

/** The secrets annotation naming the account a token secret belongs to. */
const SA_NAME_ANNOTATION = 'platform.io/service-account.name';

export interface TokenRequestDeps {
  /** The stored object, or undefined when it does not exist. */
  get(resource: 'serviceaccounts' | 'pods' | 'secrets', namespace: string, name: string, signal: AbortSignal): Promise<ApiObject | undefined>;
  signer: SigningKey;
  settings: TokenIssuerSettings;
  clock: { now(): number };
}

export interface TokenRequestResult {
  object: ApiObject;
  /** `Warning` header texts (a shortened expiration). */
  warnings: string[];
}

const fail = (e: ApiError): never => {
  throw e;
};

async function lookupBound(deps: TokenRequestDeps, namespace: string, target: { kind: 'Pod' | 'Secret'; name: string }, signal: AbortSignal): Promise<BoundObject> {
  const resource = target.kind === 'Pod' ? 'pods' : 'secrets';
  const obj = (await deps.get(resource, namespace, target.name, signal)) ?? fail(apiErrors.notFound({ group: '', resource }, target.name));
  const uid = obj.metadata.uid ?? '';
  if (target.kind === 'Pod') {
    const spec = obj.spec as { serviceAccountName?: unknown } | undefined;
    return { kind: 'Pod', name: target.name, uid, serviceAccountName: typeof spec?.serviceAccountName === 'string' ? spec.serviceAccountName : '' };
  }
  return { kind: 'Secret', name: target.name, uid, serviceAccountName: obj.metadata.annotations?.[SA_NAME_ANNOTATION] ?? '' };
}

/** Issues a token for `url.namespace/url.name`; throws the ApiError to answer. */
export async function createTokenRequest(deps: TokenRequestDeps, url: { namespace: string; name: string }, body: TokenRequestBody, signal: AbortSignal): Promise<TokenRequestResult> {
  const invalid = validateTokenRequest(body, url);
  if (invalid !== undefined) throw invalid;
  const account = (await deps.get('serviceaccounts', url.namespace, url.name, signal)) ?? fail(apiErrors.notFound({ group: '', resource: 'serviceaccounts' }, url.name));
  const target = boundTarget(body);
  if (target instanceof ApiError) throw target;
  const bound = target === undefined ? undefined : await lookupBound(deps, url.namespace, target, signal);
  const plan = planToken(body, { namespace: url.namespace, name: url.name, uid: account.metadata.uid ?? '' }, bound, deps.settings);
  if (plan instanceof ApiError) throw plan;
  const nowMs = deps.clock.now();
  const now = Math.floor(nowMs / 1000);
  const token = signJwt(buildClaims({ ...plan.claims, now }), deps.signer);
  const spec = { ...(body.spec ?? {}), audiences: plan.claims.audiences, expirationSeconds: plan.statusExpirationSeconds, boundObjectRef: body.spec?.boundObjectRef ?? null };
  const object: ApiObject = {
    apiVersion: `${AUTHENTICATION_GROUP}/v1`,
    kind: 'TokenRequest',
    metadata: { name: url.name, namespace: url.namespace },
    spec,
    status: { token, expirationTimestamp: new Date((now + plan.statusExpirationSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
  };
  return { object, warnings: plan.warnings };
}
