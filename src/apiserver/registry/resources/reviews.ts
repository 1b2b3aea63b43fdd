// The virtual review types: TokenReview (authentication.platform.io/v1) and
// SubjectAccessReview, SelfSubjectAccessReview, LocalSubjectAccessReview
// (authorization.platform.io/v1). Create-only, nothing stored: each is a
// function from the posted object (and the caller, the authenticators or the
// authorizer) to the same object with its status filled in, answered 201.
// Validation messages are upstream's.
import type { ApiError } from '../../../api/errors.js';
import { apiErrors } from '../../../api/errors.js';
import type { FieldError } from '../../../api/errors.js';
import type { AuthorizationAttributes, Authorizer, UserInfo } from '../../types.js';
import type { ResourceInfo } from '../types.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const s = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export const AUTHN_GROUP = 'authentication.platform.io';
export const AUTHZ_GROUP = 'authorization.platform.io';

const virtual = (group: string, resource: string, kind: string, namespaced = false): ResourceInfo => ({ group, version: 'v1', resource, kind, singular: kind.toLowerCase(), namespaced, verbs: ['create'] });
/** Discovery rows of the virtual types (they have no Strategy: nothing is stored). */
export const REVIEW_RESOURCES: readonly ResourceInfo[] = [
  virtual(AUTHN_GROUP, 'tokenreviews', 'TokenReview'),
  virtual(AUTHZ_GROUP, 'localsubjectaccessreviews', 'LocalSubjectAccessReview', true),
  virtual(AUTHZ_GROUP, 'selfsubjectaccessreviews', 'SelfSubjectAccessReview'),
  virtual(AUTHZ_GROUP, 'subjectaccessreviews', 'SubjectAccessReview'),
];

/** What TokenReview asks; the integrator adapts the static-token file and the service-account authenticator. */
export interface TokenReviewer {
  /** undefined: not this reviewer's token; `error` when it is but is not valid. */
  review(token: string, audiences: readonly string[], signal: AbortSignal): Promise<{ user: UserInfo; audiences: readonly string[] } | { error: string } | undefined>;
}

export interface ReviewObject {
  apiVersion?: string;
  kind?: string;
  metadata?: Rec;
  spec?: unknown;
  status?: unknown;
  [k: string]: unknown;
}

/** POST tokenreviews: the first reviewer that knows the token decides. `apiAudiences` stand in for empty spec.audiences. */
export async function reviewToken(body: ReviewObject, reviewers: readonly TokenReviewer[], apiAudiences: readonly string[], signal: AbortSignal): Promise<ReviewObject | ApiError> {
  const spec = isRec(body.spec) ? body.spec : {};
  const token = s(spec.token);
  if (token === '') return apiErrors.badRequest(`token is required for TokenReview in ${AUTHN_GROUP}`);
  const wanted = strings(spec.audiences);
  const audiences = wanted.length === 0 ? apiAudiences : wanted;
  let status: Rec = { authenticated: false, user: {} };
  for (const r of reviewers) {
    const v = await r.review(token, audiences, signal);
    if (v === undefined) continue;
    if ('error' in v) status = { authenticated: false, user: {}, error: v.error };
    else {
      const u = v.user;
      status = { authenticated: true, user: { username: u.name, ...(u.uid === '' ? {} : { uid: u.uid }), groups: [...u.groups], ...(Object.keys(u.extra).length === 0 ? {} : { extra: u.extra }) }, audiences: [...v.audiences] };
    }
    break;
  }
  return { ...body, apiVersion: `${AUTHN_GROUP}/v1`, kind: 'TokenReview', metadata: { ...(body.metadata ?? {}), creationTimestamp: null }, status };
}

export type AccessReviewKind = 'SubjectAccessReview' | 'SelfSubjectAccessReview' | 'LocalSubjectAccessReview';

function specErrors(kind: AccessReviewKind, spec: Rec, namespace: string): FieldError[] {
  const errs: FieldError[] = [];
  const res = spec.resourceAttributes;
  const nonRes = spec.nonResourceAttributes;
  if (isRec(res) && isRec(nonRes)) errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', value: nonRes, detail: 'cannot be specified in combination with resourceAttributes' });
  if (!isRec(res) && !isRec(nonRes)) errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes', value: nonRes ?? null, detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' });
  if (kind !== 'SelfSubjectAccessReview' && s(spec.user) === '' && strings(spec.groups).length === 0) errs.push({ type: 'FieldValueInvalid', field: 'spec.user', value: s(spec.user), detail: 'at least one of user or group must be specified' });
  if (kind === 'LocalSubjectAccessReview') {
    if (isRec(res) && s(res.namespace) !== namespace) errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', value: s(res.namespace), detail: 'must match metadata.namespace' });
    if (isRec(nonRes)) errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', value: nonRes, detail: 'disallowed on this kind of request' });
  }
  return errs;
}

function subjectOf(spec: Rec): UserInfo {
  const extra: Record<string, string[]> = {};
  if (isRec(spec.extra)) for (const [k, v] of Object.entries(spec.extra)) extra[k] = strings(v);
  return { name: s(spec.user), uid: s(spec.uid), groups: strings(spec.groups), extra };
}

/** The attributes a review asks about, as the authorizer sees a request. */
export function reviewAttributes(spec: Rec, user: UserInfo): AuthorizationAttributes {
  const r = isRec(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  if (r !== undefined) {
    return { user, verb: s(r.verb), isResourceRequest: true, path: '', apiGroup: s(r.group), apiVersion: s(r.version), namespace: s(r.namespace), resource: s(r.resource), subresource: s(r.subresource), name: s(r.name) };
  }
  const n = isRec(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  return { user, verb: s(n.verb), isResourceRequest: false, path: s(n.path), apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}

/**
 * POST (self|local)subjectaccessreviews. `requester` is the caller (the
 * subject of a SelfSubjectAccessReview); `namespace` the URL's (local only).
 */
export async function reviewAccess(kind: AccessReviewKind, body: ReviewObject, ctx: { authorizer: Authorizer; requester: UserInfo; namespace: string }): Promise<ReviewObject | ApiError> {
  const spec = isRec(body.spec) ? body.spec : {};
  const errs = specErrors(kind, spec, ctx.namespace);
  if (errs.length > 0) return apiErrors.invalid({ group: AUTHZ_GROUP, kind }, s(body.metadata?.name), errs);
  let subject = subjectOf(spec);
  if (kind === 'SelfSubjectAccessReview') {
    subject = ctx.requester;
    body.spec = { ...spec, user: ctx.requester.name, groups: [...ctx.requester.groups], ...(ctx.requester.uid === '' ? {} : { uid: ctx.requester.uid }), ...(Object.keys(ctx.requester.extra).length === 0 ? {} : { extra: ctx.requester.extra }) };
  }
  const d = await ctx.authorizer.authorize(reviewAttributes(spec, subject));
  const status: Rec = { allowed: d.allowed };
  if (!d.allowed && !d.noOpinion) status.denied = true;
  if (d.reason !== '') status.reason = d.reason;
  const metadata: Rec = { ...(body.metadata ?? {}), creationTimestamp: null };
  if (kind === 'LocalSubjectAccessReview') metadata.namespace = ctx.namespace;
  return { ...body, apiVersion: `${AUTHZ_GROUP}/v1`, kind, metadata, status };
}

/**
 * An audience-agnostic authenticator (static tokens, the admin token), as
 * upstream's WrapAudienceAgnosticToken: its tokens are valid for the API's
 * own audiences only, so a review asking none of them does not know the
 * token, and one asking some of them gets those back as status.audiences.
 */
export function reviewerFromAuthenticator(a: { authenticate(token: string, signal: AbortSignal): Promise<UserInfo | undefined> }, apiAudiences: readonly string[]): TokenReviewer {
  return {
    async review(token, audiences, signal) {
      const shared = audiences.filter((x) => apiAudiences.includes(x));
      if (shared.length === 0) return undefined;
      const user = await a.authenticate(token, signal);
      return user === undefined ? undefined : { user, audiences: shared };
    },
  };
}

/** Service-account JWTs: anything that is not a JWT is left to the next reviewer; a bad JWT says why. */
export function reviewerFromServiceAccounts(a: { review(token: string, signal: AbortSignal, audiences?: readonly string[]): Promise<{ user: UserInfo; audiences: string[] } | { error: string }> }): TokenReviewer {
  return {
    async review(token, audiences, signal) {
      if (token.split('.').length !== 3) return undefined;
      return a.review(token, signal, audiences);
    },
  };
}
