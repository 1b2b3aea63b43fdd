// The token-review and access-review webhooks of the kubelet, here posts of
// TokenReview (authentication.platform.io/v1) and SubjectAccessReview
// (authorization.platform.io/v1) through the agent's API client. Called by the
// authenticator and the authorizer on a cache miss; each call is one POST
// that rejects when the API cannot answer (so the answer is not cached).
import { RESOURCES, type ApiClient, type ApiObject } from '../../client/index.js';
import type { RequestAttributes, UserInfo } from '../types.js';
import type { AccessReviewer } from './authorizer.js';
import type { TokenReviewer } from './authenticator.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** status.user of a TokenReview → UserInfo; undefined without a username. */
export function userFromReview(v: unknown): UserInfo | undefined {
  const u = rec(v);
  const name = str(u.username);
  if (name === '') return undefined;
  const extra: Record<string, string[]> = {};
  for (const [k, x] of Object.entries(rec(u.extra))) extra[k] = strs(x);
  return { name, ...(str(u.uid) === '' ? {} : { uid: str(u.uid) }), groups: strs(u.groups), ...(Object.keys(extra).length === 0 ? {} : { extra }) };
}

export function tokenReviewBody(token: string): ApiObject {
  return { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', metadata: {}, spec: { token } };
}

export function accessReviewBody(a: RequestAttributes): ApiObject {
  const u = a.user;
  return {
    apiVersion: 'authorization.platform.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: {
      resourceAttributes: { verb: a.verb, group: a.apiGroup, version: a.apiVersion, resource: a.resource, subresource: a.subresource, name: a.name },
      user: u.name,
      groups: [...u.groups],
      ...(u.uid === undefined || u.uid === '' ? {} : { uid: u.uid }),
      ...(u.extra === undefined || Object.keys(u.extra).length === 0 ? {} : { extra: u.extra }),
    },
  };
}

/** A denial's reason as the review gave it (reason, else the evaluation error); '' when it gave none. */
export function reviewReason(status: Rec): string {
  const reason = str(status.reason);
  return reason !== '' ? reason : str(status.evaluationError);
}

export function apiReviewers(client: ApiClient): { tokenReview: TokenReviewer; accessReview: AccessReviewer } {
  const tokens = client.rest.resource(RESOURCES.tokenReviews);
  const access = client.rest.resource(RESOURCES.subjectAccessReviews);
  return {
    async tokenReview(token, signal) {
      const out = await tokens.create(tokenReviewBody(token), { signal });
      const status = rec(out.status);
      const user = status.authenticated === true ? userFromReview(status.user) : undefined;
      const error = str(status.error);
      return { authenticated: user !== undefined, ...(user === undefined ? {} : { user }), ...(error === '' ? {} : { error }) };
    },
    async accessReview(attrs, signal) {
      const out = await access.create(accessReviewBody(attrs), { signal });
      const status = rec(out.status);
      return { allowed: status.allowed === true, reason: reviewReason(status) };
    },
  };
}
