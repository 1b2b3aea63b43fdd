import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../../src/api/errors.js';
import { mastersAuthorizer } from '../../../../../src/apiserver/authz/chain.js';
import { reviewAccess, reviewToken, reviewerFromAuthenticator, reviewerFromServiceAccounts } from '../../../../../src/apiserver/registry/resources/reviews.js';
import type { AccessReviewKind, ReviewObject } from '../../../../../src/apiserver/registry/resources/reviews.js';
import { ServiceAccountTokenAuthenticator } from '../../../../../src/apiserver/serviceaccount/authenticator.js';
import { buildClaims } from '../../../../../src/apiserver/serviceaccount/claims.js';
import { signJwt, signingKey } from '../../../../../src/apiserver/serviceaccount/jwt.js';
import type { Authorizer, UserInfo } from '../../../../../src/apiserver/types.js';

const signal = new AbortController().signal;
const admin: UserInfo = { name: 'admin', uid: '', groups: ['system:masters'], extra: {} };
const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const now = Math.floor(Date.now() / 1000);
const sa = new ServiceAccountTokenAuthenticator(
  { keys: [pair.publicKey], issuers: ['iss'], audiences: ['api'], clock: { now: () => Date.now() } },
  { serviceAccountUid: () => Promise.resolve('u'), pod: () => Promise.resolve(undefined), secretUid: () => Promise.resolve(undefined) },
);
const jwt = (aud: string[]): string => signJwt(buildClaims({ issuer: 'iss', audiences: aud, namespace: 'ns', serviceAccount: { name: 'sa', uid: 'u' }, now, expirationSeconds: 3600 }), signingKey(pair.privateKey));
const reviewers = [reviewerFromAuthenticator({ authenticate: (t) => Promise.resolve(t === 'static' ? admin : undefined) }, ['api']), reviewerFromServiceAccounts(sa)];
const tr = (token: string, audiences?: string[]): ReviewObject => ({ apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', metadata: {}, spec: { token, ...(audiences === undefined ? {} : { audiences }) } });

describe('TokenReview', () => {
  it.each<[string, ReviewObject, unknown]>([
    ['static token', tr('static'), { authenticated: true, user: { username: 'admin', groups: ['system:masters'] }, audiences: ['api'] }],
    ['static token for the API among others', tr('static', ['vault', 'api']), { authenticated: true, user: { username: 'admin', groups: ['system:masters'] }, audiences: ['api'] }],
    ['static token for another audience', tr('static', ['vault']), { authenticated: false, user: {} }],
    ['service account', tr(jwt(['api'])), { authenticated: true, user: { username: 'system:serviceaccount:ns:sa', uid: 'u', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'] }, audiences: ['api'] }],
    ['service account for a requested audience', tr(jwt(['vault']), ['vault']), { authenticated: true, user: { username: 'system:serviceaccount:ns:sa', uid: 'u', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'] }, audiences: ['vault'] }],
    ['wrong audience', tr(jwt(['vault'])), { authenticated: false, user: {}, error: 'token audiences is invalid' }],
    ['unknown', tr('nope'), { authenticated: false, user: {} }],
  ])('%s', async (_n, body, status) => expect(((await reviewToken(body, reviewers, ['api'], signal)) as ReviewObject).status).toEqual(status));
  it('needs a token', async () => {
    const e = (await reviewToken(tr(''), reviewers, ['api'], signal)) as ApiError;
    expect([e.code, e.message]).toEqual([400, 'token is required for TokenReview in authentication.platform.io']);
  });
});

describe('access reviews', () => {
  const denyAll: Authorizer = { authorize: () => Promise.resolve({ allowed: false, noOpinion: false, reason: 'nope' }) };
  const ctx = { authorizer: mastersAuthorizer, requester: admin, namespace: 'ns' };
  const sar = (spec: Record<string, unknown>): ReviewObject => ({ metadata: {}, spec });
  const podsGet = { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'ns' } };
  it.each<[string, AccessReviewKind, Record<string, unknown>, unknown]>([
    ['allowed for masters', 'SubjectAccessReview', { ...podsGet, groups: ['system:masters'] }, { allowed: true }],
    ['no opinion', 'SubjectAccessReview', { ...podsGet, user: 'bob' }, { allowed: false }],
    ['self uses the caller', 'SelfSubjectAccessReview', { nonResourceAttributes: { verb: 'get', path: '/x' } }, { allowed: true }],
    ['local', 'LocalSubjectAccessReview', { ...podsGet, user: 'bob', groups: ['system:masters'] }, { allowed: true }],
  ])('%s', async (_n, kind, spec, status) => expect(((await reviewAccess(kind, sar(spec), ctx)) as ReviewObject).status).toEqual(status));

  it('reports an explicit deny', async () => {
    expect(((await reviewAccess('SubjectAccessReview', sar({ ...podsGet, user: 'b' }), { ...ctx, authorizer: denyAll })) as ReviewObject).status).toEqual({ allowed: false, denied: true, reason: 'nope' });
  });

  it.each<[string, AccessReviewKind, Record<string, unknown>, string]>([
    ['neither', 'SubjectAccessReview', { user: 'b' }, 'spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified'],
    ['no subject', 'SubjectAccessReview', podsGet, 'spec.user: Invalid value: "": at least one of user or group must be specified'],
    ['local other namespace', 'LocalSubjectAccessReview', { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'x' }, user: 'b' }, 'spec.resourceAttributes.namespace: Invalid value: "x": must match metadata.namespace'],
  ])('invalid: %s', async (_n, kind, spec, msg) => {
    const e = await reviewAccess(kind, sar(spec), ctx);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).message).toContain(msg);
  });
});
