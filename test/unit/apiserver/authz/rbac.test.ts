import { describe, expect, it } from 'vitest';
import { bootstrapPolicy } from '../../../../src/apiserver/authz/bootstrap.js';
import { mastersAuthorizer, unionAuthorizer } from '../../../../src/apiserver/authz/chain.js';
import { RbacAuthorizer, staticRbacSource, unionRbacSource } from '../../../../src/apiserver/authz/rbac.js';
import { ruleAllows, subjectMatches } from '../../../../src/apiserver/authz/rbac-rules.js';
import type { PolicyRule, Subject } from '../../../../src/apiserver/authz/rbac-rules.js';
import type { AuthorizationAttributes, UserInfo } from '../../../../src/apiserver/types.js';

const user = (name: string, groups: string[] = []): UserInfo => ({ name, uid: '', groups, extra: {} });
const res = (verb: string, resource: string, o: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user: user('alice'), verb, isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', namespace: '', resource, subresource: '', name: '', ...o,
});
const path = (verb: string, p: string, u = user('alice')): AuthorizationAttributes => ({ user: u, verb, isResourceRequest: false, path: p, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' });

describe('ruleAllows', () => {
  const cases: Array<[string, PolicyRule, AuthorizationAttributes, boolean]> = [
    ['exact', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', 'pods'), true],
    ['other verb', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('list', 'pods'), false],
    ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, res('delete', 'pods'), true],
    ['other group', { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, res('get', 'pods'), false],
    ['group *', { verbs: ['get'], apiGroups: ['*'], resources: ['leases'] }, res('get', 'leases', { apiGroup: 'coordination.platform.io' }), true],
    ['no apiGroups', { verbs: ['get'], resources: ['pods'] }, res('get', 'pods'), false],
    ['resource *', { verbs: ['get'], apiGroups: [''], resources: ['*'] }, res('get', 'pods', { subresource: 'status' }), true],
    ['resource does not cover subresource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', 'pods', { subresource: 'status' }), false],
    ['resource/sub', { verbs: ['update'], apiGroups: [''], resources: ['pods/status'] }, res('update', 'pods', { subresource: 'status' }), true],
    ['*/sub', { verbs: ['update'], apiGroups: [''], resources: ['*/status'] }, res('update', 'nodes', { subresource: 'status' }), true],
    ['*/sub other sub', { verbs: ['update'], apiGroups: [''], resources: ['*/status'] }, res('update', 'nodes', { subresource: 'proxy' }), false],
    ['*/sub no sub', { verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, res('get', 'nodes'), false],
    ['resourceNames match', { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }, res('get', 'secrets', { name: 'a' }), true],
    ['resourceNames other', { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }, res('get', 'secrets', { name: 'b' }), false],
    ['resourceNames list', { verbs: ['list'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }, res('list', 'secrets'), false],
    ['nonResource exact', { verbs: ['get'], nonResourceURLs: ['/version'] }, path('get', '/version'), true],
    ['nonResource prefix*', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, path('get', '/apis/certificates.platform.io/v1'), true],
    ['nonResource prefix* other', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, path('get', '/api'), false],
    ['nonResource *', { verbs: ['get'], nonResourceURLs: ['*'] }, path('get', '/anything'), true],
    ['nonResource rule vs resource request', { verbs: ['get'], nonResourceURLs: ['*'] }, res('get', 'pods'), false],
    ['resource rule vs path', { verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, path('get', '/healthz'), false],
  ];
  it.each(cases)('%s', (_n, rule, attrs, want) => expect(ruleAllows(attrs, rule)).toBe(want));
});

describe('subjectMatches', () => {
  const u = user('system:serviceaccount:ns1:builder', ['system:serviceaccounts', 'system:authenticated']);
  const cases: Array<[string, Subject, string, boolean]> = [
    ['user', { kind: 'User', name: 'system:serviceaccount:ns1:builder' }, '', true],
    ['group', { kind: 'Group', name: 'system:authenticated' }, '', true],
    ['other group', { kind: 'Group', name: 'system:masters' }, '', false],
    ['sa with namespace', { kind: 'ServiceAccount', name: 'builder', namespace: 'ns1' }, '', true],
    ['sa other namespace', { kind: 'ServiceAccount', name: 'builder', namespace: 'ns2' }, '', false],
    ['sa defaulted to binding namespace', { kind: 'ServiceAccount', name: 'builder' }, 'ns1', true],
    ['sa without any namespace', { kind: 'ServiceAccount', name: 'builder' }, '', false],
    ['unknown kind', { kind: 'Robot', name: 'builder' }, 'ns1', false],
  ];
  it.each(cases)('%s', (_n, s, ns, want) => expect(subjectMatches(s, u, ns)).toBe(want));
});

describe('RbacAuthorizer', () => {
  const source = staticRbacSource({
    clusterRoles: [
      { metadata: { name: 'pod-reader' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] },
    ],
    roles: [{ metadata: { name: 'cm-writer', namespace: 'team' }, rules: [{ verbs: ['create'], apiGroups: [''], resources: ['configmaps'] }] }],
    roleBindings: [
      { metadata: { name: 'read-pods', namespace: 'team' }, roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'pod-reader' }, subjects: [{ kind: 'User', name: 'bob' }] },
      { metadata: { name: 'write-cm', namespace: 'team' }, roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'cm-writer' }, subjects: [{ kind: 'ServiceAccount', name: 'ci' }] },
      { metadata: { name: 'dangling', namespace: 'team' }, roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'gone' }, subjects: [{ kind: 'User', name: 'carol' }] },
    ],
    clusterRoleBindings: [{ metadata: { name: 'readers' }, roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'pod-reader' }, subjects: [{ kind: 'Group', name: 'readers' }] }],
  });
  const boot = bootstrapPolicy();
  const authz = new RbacAuthorizer(unionRbacSource([source, staticRbacSource({ clusterRoles: boot.clusterRoles, clusterRoleBindings: boot.clusterRoleBindings })]));
  const cases: Array<[string, AuthorizationAttributes, boolean]> = [
    ['rolebinding to clusterrole grants in its namespace', res('get', 'pods', { user: user('bob'), namespace: 'team' }), true],
    ['rolebinding to clusterrole not in other namespace', res('get', 'pods', { user: user('bob'), namespace: 'other' }), false],
    ['rolebinding to clusterrole not cluster-wide', res('list', 'pods', { user: user('bob') }), false],
    ['clusterrolebinding by group everywhere', res('list', 'pods', { user: user('x', ['readers']), namespace: 'any' }), true],
    ['role via sa subject defaulted namespace', res('create', 'configmaps', { user: user('system:serviceaccount:team:ci'), namespace: 'team' }), true],
    ['role verb not granted', res('delete', 'configmaps', { user: user('system:serviceaccount:team:ci'), namespace: 'team' }), false],
    ['masters via cluster-admin binding', res('delete', 'nodes', { user: user('root', ['system:masters']) }), true],
    ['authenticated reads bundles', res('list', 'clustertrustbundles', { user: user('x', ['system:authenticated']), apiGroup: 'certificates.platform.io' }), true],
    ['authenticated cannot write bundles', res('create', 'clustertrustbundles', { user: user('x', ['system:authenticated']), apiGroup: 'certificates.platform.io' }), false],
    ['service accounts read bundles', res('watch', 'clustertrustbundles', { user: user('system:serviceaccount:a:b', ['system:serviceaccounts']), apiGroup: 'certificates.platform.io' }), true],
    ['authenticated discovery', path('get', '/apis/coordination.platform.io/v1', user('x', ['system:authenticated'])), true],
    ['authenticated version', path('get', '/version', user('x', ['system:authenticated'])), true],
    ['unauthenticated healthz', path('get', '/healthz', user('system:anonymous', ['system:unauthenticated'])), true],
    ['unauthenticated discovery', path('get', '/api', user('system:anonymous', ['system:unauthenticated'])), false],
    ['no binding', res('get', 'pods', { user: user('nobody'), namespace: 'team' }), false],
  ];
  it.each(cases)('%s', async (_n, attrs, want) => expect((await authz.authorize(attrs)).allowed).toBe(want));

  it('says which binding allowed', async () => {
    const d = await authz.authorize(res('get', 'pods', { user: user('bob'), namespace: 'team' }));
    expect(d).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "read-pods/team" of ClusterRole "pod-reader" to User "bob"' });
  });

  it('reports a missing role as the denial reason', async () => {
    const d = await authz.authorize(res('get', 'pods', { user: user('carol'), namespace: 'team' }));
    expect(d).toEqual({ allowed: false, noOpinion: true, reason: 'RBAC: [role.rbac.authorization.platform.io "gone" not found]' });
  });
});

describe('chain', () => {
  const deny = { authorize: () => Promise.resolve({ allowed: false as const, noOpinion: false, reason: 'no' }) };
  const none = (reason: string) => ({ authorize: () => Promise.resolve({ allowed: false as const, noOpinion: true, reason }) });
  it('masters allow everything for system:masters only', async () => {
    expect((await mastersAuthorizer.authorize(res('delete', 'secrets', { user: user('a', ['system:masters']) }))).allowed).toBe(true);
    expect((await mastersAuthorizer.authorize(res('delete', 'secrets'))).allowed).toBe(false);
  });
  it('union: first allow or deny wins, no opinions join their reasons', async () => {
    expect(await unionAuthorizer([none('a'), deny, mastersAuthorizer]).authorize(res('get', 'pods', { user: user('a', ['system:masters']) }))).toEqual({ allowed: false, noOpinion: false, reason: 'no' });
    expect(await unionAuthorizer([none('a'), none(''), none('b')]).authorize(res('get', 'pods'))).toEqual({ allowed: false, noOpinion: true, reason: 'a, b' });
    expect((await unionAuthorizer([none('a'), mastersAuthorizer]).authorize(res('get', 'pods', { user: user('a', ['system:masters']) }))).allowed).toBe(true);
  });
});
