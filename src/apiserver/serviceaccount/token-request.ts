// The TokenRequest rules of `POST .../serviceaccounts/<name>/token`
// (upstream's registry/core/serviceaccount/storage/token.go and
// ValidateTokenRequest): body name/namespace agree with the URL, expiration
// between 10 minutes and 2^32 s, the bound object is a Pod or Secret running
// as / belonging to that account with a matching uid, the server maximum
// shortens with a warning, and a pod-bound 3607 s token for the API audiences
// lives a year (the kubelet still refreshes on 3607 s). Pure: the caller
// looked the account and the bound object up.
import type { ApiError } from '../../api/errors.js';
import { apiErrors } from '../../api/errors.js';
import type { FieldError } from '../../api/errors.js';
import type { ClaimsInput, ObjectRef } from './claims.js';

export const AUTHENTICATION_GROUP = 'authentication.platform.io';
export const DEFAULT_EXPIRATION_SECONDS = 3600;
/** The expiration the ServiceAccount admission puts in projected tokens; extended when enabled. */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607;
export const EXTENDED_EXPIRATION_SECONDS = 365 * 24 * 60 * 60;
export const MIN_EXPIRATION_SECONDS = 600;
export const MAX_EXPIRATION_SECONDS = 2 ** 32;

export interface TokenIssuerSettings {
  issuer: string;
  /** The server's API audiences (--api-audiences; defaults to the issuer). */
  apiAudiences: readonly string[];
  /** --service-account-max-token-expiration in seconds; 0 = no maximum. */
  maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration (default true). */
  extendExpiration: boolean;
}

export interface BoundObjectRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
}

export interface TokenRequestBody {
  metadata?: { name?: string; namespace?: string };
  spec?: { audiences?: string[] | null; expirationSeconds?: number; boundObjectRef?: BoundObjectRef | null };
}

/** The bound object as the caller found it (undefined: not requested). */
export type BoundObject = { kind: 'Pod'; name: string; uid: string; serviceAccountName: string } | { kind: 'Secret'; name: string; uid: string; serviceAccountName: string };

const GK = { group: AUTHENTICATION_GROUP, kind: 'TokenRequest' };

/** Checks that need no lookups: URL agreement and the spec's values. */
export function validateTokenRequest(body: TokenRequestBody, url: { namespace: string; name: string }): ApiError | undefined {
  const name = body.metadata?.name ?? '';
  const ns = body.metadata?.namespace ?? '';
  if (name !== '' && name !== url.name) return apiErrors.invalid(GK, url.name, [{ type: 'FieldValueInvalid', field: 'metadata.name', value: name, detail: 'must match the service account name if specified' }]);
  if (ns !== '' && ns !== url.namespace) return apiErrors.invalid(GK, url.name, [{ type: 'FieldValueInvalid', field: 'metadata.namespace', value: ns, detail: 'must match the service account namespace if specified' }]);
  const exp = body.spec?.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  const errs: FieldError[] = [];
  if (typeof exp !== 'number' || !Number.isInteger(exp)) errs.push({ type: 'FieldValueTypeInvalid', field: 'spec.expirationSeconds', value: exp, detail: 'must be an integer' });
  else if (exp < MIN_EXPIRATION_SECONDS) errs.push({ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', value: exp, detail: 'may not specify a duration less than 10 minutes' });
  else if (exp > MAX_EXPIRATION_SECONDS) errs.push({ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', value: exp, detail: 'may not specify a duration larger than 2^32 seconds' });
  const auds = body.spec?.audiences;
  if (auds !== undefined && auds !== null && (!Array.isArray(auds) || auds.some((a) => typeof a !== 'string'))) errs.push({ type: 'FieldValueTypeInvalid', field: 'spec.audiences', value: auds, detail: 'must be a list of strings' });
  return errs.length === 0 ? undefined : apiErrors.invalid(GK, url.name, errs);
}

/** Which object the caller must look up for the bound reference; a 400 for kinds that cannot be bound. */
export function boundTarget(body: TokenRequestBody): { kind: 'Pod' | 'Secret'; name: string } | undefined | ApiError {
  const ref = body.spec?.boundObjectRef;
  if (ref === undefined || ref === null) return undefined;
  const apiVersion = ref.apiVersion ?? '';
  const kind = ref.kind ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  if (group === '' && (kind === 'Pod' || kind === 'Secret')) return { kind, name: ref.name ?? '' };
  const gvk = group === '' ? `/${apiVersion}, Kind=${kind}` : `${apiVersion}, Kind=${kind}`;
  return apiErrors.badRequest(`cannot bind token to object of type ${gvk}`);
}

export interface TokenPlan {
  claims: Omit<ClaimsInput, 'now'>;
  /** What `status.expirationTimestamp` says: now + the (possibly shortened) requested seconds. */
  statusExpirationSeconds: number;
  warnings: string[];
}

/**
 * The token to issue, after the account and bound object were found.
 * Errors: 400 when the pod runs as another account, 409 on a uid mismatch.
 */
export function planToken(body: TokenRequestBody, account: { namespace: string; name: string; uid: string }, bound: BoundObject | undefined, settings: TokenIssuerSettings): TokenPlan | ApiError {
  const warnings: string[] = [];
  const ref = body.spec?.boundObjectRef ?? undefined;
  let pod: ObjectRef | undefined;
  let secret: ObjectRef | undefined;
  if (bound !== undefined) {
    if (bound.serviceAccountName !== account.name) {
      return apiErrors.badRequest(bound.kind === 'Pod' ? `cannot bind token for serviceaccount ${JSON.stringify(account.name)} to pod running with different serviceaccount name.` : `cannot bind token for serviceaccount ${JSON.stringify(account.name)} to secret that references a different serviceaccount.`);
    }
    const wanted = ref?.uid ?? '';
    if (wanted !== '' && wanted !== bound.uid) {
      return apiErrors.conflict({ group: '', resource: bound.kind }, bound.name, `the UID in the bound object reference (${wanted}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (bound.kind === 'Pod') pod = { name: bound.name, uid: bound.uid };
    else secret = { name: bound.name, uid: bound.uid };
  }
  let requested = body.spec?.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  if (settings.maxExpirationSeconds > 0 && requested > settings.maxExpirationSeconds) {
    warnings.push(`requested expiration of ${requested} seconds shortened to ${settings.maxExpirationSeconds} seconds`);
    requested = settings.maxExpirationSeconds;
  }
  const auds = body.spec?.audiences ?? [];
  const audiences = auds.length === 0 ? [...settings.apiAudiences] : [...auds];
  const apiAudiencesOnly = audiences.every((a) => settings.apiAudiences.includes(a));
  let exp = requested;
  let warnAfterSeconds: number | undefined;
  if (settings.extendExpiration && pod !== undefined && requested === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS && apiAudiencesOnly) {
    warnAfterSeconds = requested;
    exp = EXTENDED_EXPIRATION_SECONDS;
  }
  const claims: Omit<ClaimsInput, 'now'> = { issuer: settings.issuer, audiences, namespace: account.namespace, serviceAccount: { name: account.name, uid: account.uid }, expirationSeconds: exp };
  if (pod !== undefined) claims.pod = pod;
  if (secret !== undefined) claims.secret = secret;
  if (warnAfterSeconds !== undefined) claims.warnAfterSeconds = warnAfterSeconds;
  return { claims, statusExpirationSeconds: requested, warnings };
}
