import { describe, expect, it } from 'vitest';
import { bootstrapPolicy, csrSigningBindings } from '../../../../src/apiserver/authz/bootstrap.js';
import { RbacAuthorizer, staticRbacSource } from '../../../../src/apiserver/authz/rbac.js';
import type { AuthorizationAttributes } from '../../../../src/apiserver/types.js';

const attrs = (user: string, groups: string[], verb: string, subresource = ''): AuthorizationAttributes => ({
  user: { name: user, uid: '', groups, extra: {} }, verb, isResourceRequest: true, path: '', apiGroup: 'certificates.platform.io', apiVersion: '*', namespace: '', resource: 'certificatesigningrequests', subresource, name: '',
});

describe('node bootstrap policy', () => {
  const boot = bootstrapPolicy();
  const off = new RbacAuthorizer(staticRbacSource({ clusterRoles: boot.clusterRoles, clusterRoleBindings: boot.clusterRoleBindings }));
  const on = new RbacAuthorizer(staticRbacSource({ clusterRoles: boot.clusterRoles, clusterRoleBindings: [...boot.clusterRoleBindings, ...csrSigningBindings()] }));
  const bootstrapper = ['system:bootstrappers', 'system:authenticated'];
  it.each<[string, AuthorizationAttributes, boolean, boolean]>([
    ['a bootstrapper creates CSRs', attrs('system:bootstrap:a', bootstrapper, 'create'), false, true],
    ['a bootstrapper watches CSRs', attrs('system:bootstrap:a', bootstrapper, 'watch'), false, true],
    ['a bootstrapper may not delete CSRs', attrs('system:bootstrap:a', bootstrapper, 'delete'), false, false],
    ['a bootstrapper passes nodeclient', attrs('system:bootstrap:a', bootstrapper, 'create', 'nodeclient'), false, true],
    ['a bootstrapper does not pass selfnodeclient', attrs('system:bootstrap:a', bootstrapper, 'create', 'selfnodeclient'), false, false],
    ['a node passes selfnodeclient', attrs('system:node:n1', ['system:nodes'], 'create', 'selfnodeclient'), false, true],
    ['a node does not pass nodeclient', attrs('system:node:n1', ['system:nodes'], 'create', 'nodeclient'), false, false],
    ['anyone else passes nothing', attrs('bob', ['system:authenticated'], 'create', 'nodeclient'), false, false],
  ])('%s (bindings off: %s, on: %s)', async (_n, a, withoutBindings, withBindings) => {
    expect((await off.authorize(a)).allowed).toBe(withoutBindings);
    expect((await on.authorize(a)).allowed).toBe(withBindings);
  });
  it('the roles are upstream names renamed', () => {
    expect(boot.clusterRoles.map((r) => r.metadata.name)).toEqual(expect.arrayContaining(['system:node-bootstrapper', 'system:certificates.platform.io:certificatesigningrequests:nodeclient', 'system:certificates.platform.io:certificatesigningrequests:selfnodeclient']));
  });
});
