// The node server's webhooks against the real platform-apiserver: TokenReview
// (a static token accepted, an unknown one refused, answers cached) and
// SubjectAccessReview (RBAC rules on nodes/<subresource> created here,
// allowed and denied, each verdict cached), through apiReviewers over the
// agent's API client with the admin platformconfig.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ClientLog } from '../../../src/client/index.js';
import { apiReviewers, authorizeRequest, createAuthenticator, createAuthorizer, type AccessReviewer, type TokenReviewer } from '../../../src/server/auth/index.js';
import type { AuthnResult } from '../../../src/server/types.js';
import { startServer, USERS, type ServerHandle } from '../../conformance/helpers/server.js';
import { testLogger } from '../../helpers/test-logger.js';

const quiet: ClientLog = { info: () => undefined, warn: () => undefined, error: () => undefined };
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';
const signal = new AbortController().signal;
const NODE = 'node1';

function counting<F extends (...a: never[]) => Promise<unknown>>(f: F): F & { calls: number } {
  const w = Object.assign((...a: Parameters<F>) => {
    w.calls++;
    return f(...a);
  }, { calls: 0 });
  return w as unknown as F & { calls: number };
}

describe('apiReviewers against platform-apiserver', () => {
  let srv: ServerHandle;
  let client: ApiClient;
  let tokenReview: TokenReviewer & { calls: number };
  let accessReview: AccessReviewer & { calls: number };

  beforeAll(async () => {
    srv = await startServer({ backend: 'memory' });
    client = await createApiClient({ platformconfig: join(srv.dir, 'admin.conf'), platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0, contentType: 'application/json', log: quiet });
    const r = apiReviewers(client);
    tokenReview = counting(r.tokenReview);
    accessReview = counting(r.accessReview);
    // alice may read the node's stats and nothing else of it.
    const role = await srv.admin.post(`${RBAC}/clusterroles`, { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name: 'node-stats' }, rules: [{ apiGroups: [''], resources: ['nodes/stats'], verbs: ['get'] }] });
    expect(role.status, role.text()).toBe(201);
    const binding = await srv.admin.post(`${RBAC}/clusterrolebindings`, { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'node-stats' }, subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'alice' }], roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'node-stats' } });
    expect(binding.status, binding.text()).toBe(201);
  }, 90_000);
  afterAll(async () => {
    await client?.close();
    await srv?.stop();
  }, 60_000);

  describe('token review', () => {
    const describeResult = (r: AuthnResult): string => (r.kind === 'user' ? `${r.via}:${r.user.name}:${r.user.groups.join(',')}` : 'unauthorized');

    it('accepts a token the server knows, refuses one it does not, and caches both answers', async () => {
      const authn = createAuthenticator({ anonymous: true, clientCA: false, tokenReview, cacheTtlMs: 120_000, log: testLogger() });
      const ask = (token: string) => authn.authenticate({ clientCertificate: undefined, clientCertificateError: undefined, authorization: `Bearer ${token}` }, signal).then(describeResult);
      expect(await ask(USERS.alice.token)).toBe('token:alice:devs,system:authenticated');
      expect(await ask('not-a-known-token')).toBe('unauthorized');
      expect(tokenReview.calls).toBe(2);
      expect(await ask(USERS.alice.token)).toBe('token:alice:devs,system:authenticated');
      expect(await ask('not-a-known-token')).toBe('unauthorized');
      expect(tokenReview.calls).toBe(2);
    });

    it('gives the reviewed identity with its uid', async () => {
      const r = await tokenReview(USERS.bob.token, signal);
      expect(r).toMatchObject({ authenticated: true, user: { name: 'bob', uid: USERS.bob.uid } });
    });
  });

  describe('access review', () => {
    const alice = { name: 'alice', groups: ['devs', 'system:authenticated'] };

    it('allows what RBAC grants and denies the rest, each verdict cached', async () => {
      let now = 0;
      const authz = createAuthorizer({ mode: 'Webhook', accessReview, authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, log: testLogger(), now: () => now });
      const ask = (method: string, path: string) => authorizeRequest(authz, { user: alice, method, path, nodeName: NODE }, signal);
      const before = accessReview.calls;
      expect(await ask('GET', '/stats/summary')).toEqual({ allowed: true });
      const denied = await ask('GET', '/pods');
      expect(denied).toEqual({ allowed: false, reason: 'Forbidden (user=alice, verb=get, resource=nodes, subresource(s)=[pods proxy])' });
      expect(accessReview.calls - before).toBe(3);
      // Both verdicts come from the cache now.
      expect(await ask('GET', '/stats/summary')).toEqual({ allowed: true });
      expect((await ask('GET', '/pods')).allowed).toBe(false);
      expect(accessReview.calls - before).toBe(3);
      // The denial expires first (30 s), the grant later (5 min).
      now += 30_000;
      await ask('GET', '/stats/summary');
      expect(accessReview.calls - before).toBe(3);
      await ask('GET', '/pods');
      expect(accessReview.calls - before).toBe(5);
      now += 270_000;
      await ask('GET', '/stats/summary');
      expect(accessReview.calls - before).toBe(6);
    });

    it('a verb RBAC does not grant is denied with the reviewer asked once', async () => {
      const authz = createAuthorizer({ mode: 'Webhook', accessReview, authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, log: testLogger() });
      const d = await authorizeRequest(authz, { user: alice, method: 'POST', path: '/stats/summary', nodeName: NODE }, signal);
      expect(d).toEqual({ allowed: false, reason: 'Forbidden (user=alice, verb=create, resource=nodes, subresource(s)=[stats])' });
    });

    it('works over the protobuf content type too (the agent default)', async () => {
      const pb = await createApiClient({ platformconfig: join(srv.dir, 'admin.conf'), platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0, contentType: 'application/vnd.platform.protobuf', log: quiet });
      try {
        const r = apiReviewers(pb);
        expect(await r.tokenReview(USERS.alice.token, signal)).toMatchObject({ authenticated: true, user: { name: 'alice' } });
        expect(await r.accessReview({ user: alice, verb: 'get', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: 'stats', name: NODE, path: '/stats' }, signal)).toMatchObject({ allowed: true });
      } finally {
        await pb.close();
      }
    });

    it('system:masters may do anything to the node', async () => {
      expect(await accessReview({ user: { name: 'root', groups: ['system:masters'] }, verb: 'create', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: 'proxy', name: NODE, path: '/exec/a/b/c' }, signal)).toMatchObject({ allowed: true });
    });
  });
});
