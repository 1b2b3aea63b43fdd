import { describe, expect, it } from 'vitest';
import { apiErrors } from '../../../../src/api/errors.js';
import { nodeGraphFromPods, rbacSourceFromStores, serverAuthorizer } from '../../../../src/apiserver/authz/from-stores.js';
import type { ObjectReader, StoredObject } from '../../../../src/apiserver/authz/from-stores.js';
import type { GenericStore } from '../../../../src/apiserver/registry/store.js';
import { lookupFromStores } from '../../../../src/apiserver/serviceaccount/authenticator.js';
import type { ObjectGetter } from '../../../../src/apiserver/serviceaccount/authenticator.js';
import type { AuthorizationAttributes, UserInfo } from '../../../../src/apiserver/types.js';

/** A fake store over fixed objects with GenericStore's get/list contract. */
const store = (objs: StoredObject[]): ObjectReader => ({
  get: (ns, name) => {
    const o = objs.find((x) => (x.metadata.namespace ?? '') === ns && x.metadata.name === name);
    return o === undefined ? Promise.reject(apiErrors.notFound({ group: '', resource: 'things' }, name)) : Promise.resolve(o);
  },
  list: (ns) => Promise.resolve({ items: objs.filter((x) => ns === '' || x.metadata.namespace === ns) }),
});
const G = 'rbac.authorization.platform.io';
const user = (name: string, groups: string[] = []): UserInfo => ({ name, uid: '', groups, extra: {} });
const a = (u: UserInfo, verb: string, resource: string, o: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({ user: u, verb, isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', namespace: 'ns', resource, subresource: '', name: '', ...o });

describe('serverAuthorizer over stores', () => {
  const pods = store([{ metadata: { name: 'web', namespace: 'ns' }, spec: { nodeName: 'n1', volumes: [{ name: 'v', secret: { secretName: 's1' } }] } }]);
  const rbac = rbacSourceFromStores({
    roles: store([{ metadata: { name: 'reader', namespace: 'ns' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] }]),
    clusterRoles: store([]),
    roleBindings: store([{ metadata: { name: 'b', namespace: 'ns' }, roleRef: { apiGroup: G, kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'bob' }] }]),
    clusterRoleBindings: store([]),
  });
  const authz = serverAuthorizer({ graph: nodeGraphFromPods(pods), rbac });
  const node = user('system:node:n1', ['system:nodes', 'system:authenticated']);
  it.each<[string, AuthorizationAttributes, boolean]>([
    ['masters', a(user('root', ['system:masters']), 'delete', 'namespaces', { namespace: '' }), true],
    ['stored role binding', a(user('bob'), 'get', 'configmaps'), true],
    ['stored role binding, other verb', a(user('bob'), 'list', 'configmaps'), false],
    ['bootstrap: authenticated reads bundles', a(user('x', ['system:authenticated']), 'list', 'clustertrustbundles', { apiGroup: 'certificates.platform.io', namespace: '' }), true],
    ['node reads its pod secret', a(node, 'get', 'secrets', { name: 's1' }), true],
    ['node reads another secret', a(node, 'get', 'secrets', { name: 's2' }), false],
    ['other node', a(user('system:node:n2', ['system:nodes']), 'get', 'secrets', { name: 's1' }), false],
  ])('%s', async (_n, attrs, want) => expect((await authz.authorize(attrs)).allowed).toBe(want));
});

describe('lookupFromStores', () => {
  it('maps NotFound to undefined and passes uids and deletion on', async () => {
    const l = lookupFromStores({
      serviceaccounts: store([{ metadata: { name: 'sa', namespace: 'ns', uid: 'u1' } }]),
      pods: store([{ metadata: { name: 'p', namespace: 'ns', uid: 'u2', deletionTimestamp: '2026-01-01T00:00:00Z' } }]),
      secrets: store([]),
    }) as ReturnType<typeof lookupFromStores>;
    const signal = new AbortController().signal;
    expect(await l.serviceAccountUid('ns', 'sa', signal)).toBe('u1');
    expect(await l.serviceAccountUid('ns', 'nope', signal)).toBeUndefined();
    expect(await l.pod('ns', 'p', signal)).toEqual({ uid: 'u2', deletionTimestamp: '2026-01-01T00:00:00Z' });
    expect(await l.secretUid('ns', 's', signal)).toBeUndefined();
  });
});

describe('adapters fit the registry', () => {
  it('accepts a GenericStore where a reader is wanted (type-level)', () => {
    const asReader = (s: GenericStore): ObjectReader & ObjectGetter => s;
    expect(typeof asReader).toBe('function');
  });
});
