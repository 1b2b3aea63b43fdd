import { describe, expect, it } from 'vitest';
import { accessReviewBody, reviewReason, tokenReviewBody, userFromReview } from '../../../../src/server/auth/api-reviewers.js';

describe('review bodies', () => {
  it('TokenReview carries only the token (the API server fills in its own audiences)', () => {
    expect(tokenReviewBody('t0k')).toEqual({ apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', metadata: {}, spec: { token: 't0k' } });
  });

  it('SubjectAccessReview asks about the node with the subject as given', () => {
    const body = accessReviewBody({ user: { name: 'u', uid: 'id', groups: ['g'], extra: { scopes: ['a'] } }, verb: 'get', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: 'log', name: 'n1', path: '/logs/x' });
    expect(body.spec).toEqual({ resourceAttributes: { verb: 'get', group: '', version: 'v1', resource: 'nodes', subresource: 'log', name: 'n1' }, user: 'u', groups: ['g'], uid: 'id', extra: { scopes: ['a'] } });
  });

  it('leaves out an empty uid and extra', () => {
    expect(accessReviewBody({ user: { name: 'u', groups: [] }, verb: 'get', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: 'proxy', name: 'n1', path: '/' }).spec).not.toHaveProperty('uid');
  });
});

describe('reading answers', () => {
  it.each([
    [{ username: 'a', uid: 'x', groups: ['g', 1], extra: { k: ['v'] } }, { name: 'a', uid: 'x', groups: ['g'], extra: { k: ['v'] } }],
    [{ username: 'a' }, { name: 'a', groups: [] }],
    [{}, undefined],
    ['nonsense', undefined],
  ])('status.user %j → %j', (u, want) => {
    expect(userFromReview(u)).toEqual(want);
  });

  it.each([
    [{ reason: 'no rule' }, 'no rule'],
    [{ evaluationError: 'webhook down' }, 'webhook down'],
    [{}, ''],
  ])('reason of %j', (s, want) => {
    expect(reviewReason(s)).toBe(want);
  });
});
