import { describe, expect, it } from 'vitest';
import { authorizeRequest, createAuthorizer, requestAttributes, type AccessReviewer } from '../../../../src/server/auth/index.js';
import type { RequestAttributes } from '../../../../src/server/types.js';
import { testLogger } from '../../../helpers/test-logger.js';

const signal = new AbortController().signal;
const alice = { name: 'alice', groups: ['devs'] };
const attrs = (subresource: string, user = alice, verb = 'get'): RequestAttributes => ({ user, verb, apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource, name: 'node1', path: `/${subresource}` });

/** Allows alice's get on `allowed` subresources; 'down' users fail; records what it was asked. */
function reviewer(allowed: readonly string[]): AccessReviewer & { asked: string[] } {
  const asked: string[] = [];
  const f: AccessReviewer = async (a) => {
    asked.push(`${a.user.name}:${a.verb}:${a.subresource}`);
    if (a.user.name === 'down') throw new Error('connection refused');
    const ok = a.user.name === 'alice' && a.verb === 'get' && allowed.includes(a.subresource);
    return { allowed: ok, reason: ok ? '' : 'no RBAC rule' };
  };
  return Object.assign(f, { asked });
}

function setup(allowed: readonly string[] = ['stats']) {
  let now = 0;
  const r = reviewer(allowed);
  const z = createAuthorizer({ mode: 'Webhook', accessReview: r, authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, log: testLogger(), now: () => now });
  return { r, z, advance: (ms: number) => (now += ms) };
}

describe('createAuthorizer', () => {
  it('AlwaysAllow allows without asking', async () => {
    const z = createAuthorizer({ mode: 'AlwaysAllow', accessReview: undefined, authorizedTtlMs: 1, unauthorizedTtlMs: 1, log: testLogger() });
    expect(await z.authorize(attrs('proxy'), signal)).toEqual({ allowed: true });
  });

  it('Webhook without a reviewer is a programming error', () => {
    expect(() => createAuthorizer({ mode: 'Webhook', accessReview: undefined, authorizedTtlMs: 1, unauthorizedTtlMs: 1, log: testLogger() })).toThrow(/accessReview/);
  });

  // [verdict, ttl of that verdict]: the answer is reused until the TTL and asked again at it.
  it.each<[string, string, number]>([
    ['allowed', 'stats', 300_000],
    ['denied', 'proxy', 30_000],
  ])('caches a %s answer for its own TTL', async (_v, sub, ttl) => {
    const { r, z, advance } = setup();
    const first = await z.authorize(attrs(sub), signal);
    expect(await z.authorize(attrs(sub), signal)).toEqual(first);
    advance(ttl - 1);
    await z.authorize(attrs(sub), signal);
    expect(r.asked).toHaveLength(1);
    advance(1);
    await z.authorize(attrs(sub), signal);
    expect(r.asked).toHaveLength(2);
  });

  it('keys by the full attributes: user, groups, verb, subresource', async () => {
    const { r, z } = setup();
    await z.authorize(attrs('stats'), signal);
    await z.authorize(attrs('stats', { name: 'alice', groups: ['other'] }), signal);
    await z.authorize(attrs('stats', alice, 'create'), signal);
    await z.authorize(attrs('metrics'), signal);
    expect(r.asked).toHaveLength(4);
    // The path is not part of the question.
    await z.authorize({ ...attrs('stats'), path: '/stats/summary' }, signal);
    expect(r.asked).toHaveLength(4);
  });

  it('a failed review denies and is not cached', async () => {
    const { r, z } = setup();
    const d = await z.authorize(attrs('stats', { name: 'down', groups: [] }), signal);
    expect(d).toEqual({ allowed: false, reason: 'access review failed: connection refused' });
    await z.authorize(attrs('stats', { name: 'down', groups: [] }), signal);
    expect(r.asked).toHaveLength(2);
  });
});

describe('authorizeRequest', () => {
  it.each<[string, string, readonly string[], boolean, string[]]>([
    ['GET', '/pods', ['pods'], true, ['alice:get:pods']],
    ['GET', '/pods', ['proxy'], true, ['alice:get:pods', 'alice:get:proxy']],
    ['GET', '/pods', [], false, ['alice:get:pods', 'alice:get:proxy']],
    ['GET', '/stats/summary', ['proxy'], false, ['alice:get:stats']],
    ['POST', '/exec/ns/p/c', ['proxy'], false, ['alice:create:proxy']],
    ['GET', '/containerLogs/ns/p/c', ['proxy'], true, ['alice:get:proxy']],
  ])('%s %s with %j allowed → %s', async (method, path, allowed, want, asked) => {
    const { r, z } = setup(allowed);
    const d = await authorizeRequest(z, { user: alice, method, path, nodeName: 'node1' }, signal);
    expect(d.allowed).toBe(want);
    expect(r.asked).toEqual(asked);
  });

  it('the denial names user, verb, resource and every subresource asked', async () => {
    const { z } = setup([]);
    const d = await authorizeRequest(z, { user: alice, method: 'GET', path: '/configz', nodeName: 'node1' }, signal);
    expect(d).toEqual({ allowed: false, reason: 'Forbidden (user=alice, verb=get, resource=nodes, subresource(s)=[configz proxy])' });
  });

  it('asks with the node as the resource name', () => {
    expect(requestAttributes({ user: alice, method: 'GET', path: '/metrics', nodeName: 'n-7' })[0]).toMatchObject({ resource: 'nodes', name: 'n-7', subresource: 'metrics' });
  });
});
