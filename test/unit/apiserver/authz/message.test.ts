import { describe, expect, it } from 'vitest';
import { forbiddenError, forbiddenMessage } from '../../../../src/apiserver/authz/message.js';
import type { AuthorizationAttributes } from '../../../../src/apiserver/types.js';

const base: AuthorizationAttributes = { user: { name: 'bob', uid: '', groups: [], extra: {} }, verb: 'get', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', namespace: '', resource: 'pods', subresource: '', name: '' };

describe('forbiddenMessage', () => {
  const cases: Array<[string, Partial<AuthorizationAttributes>, string, string]> = [
    ['namespaced list', { verb: 'list', namespace: 'ns' }, '', 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "ns"'],
    ['named', { namespace: 'ns', name: 'p' }, '', 'pods "p" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "ns"'],
    ['cluster scope', { resource: 'nodes', verb: 'list' }, '', 'nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope'],
    ['group and subresource', { resource: 'certificatesigningrequests', apiGroup: 'certificates.platform.io', subresource: 'approval', name: 'c', verb: 'update' }, '', 'certificatesigningrequests.certificates.platform.io "c" is forbidden: User "bob" cannot update resource "certificatesigningrequests/approval" in API group "certificates.platform.io" at the cluster scope'],
    ['with reason', { namespace: 'ns', resource: 'secrets', name: 's' }, "no relationship found between node 'n' and this object", 'secrets "s" is forbidden: User "bob" cannot get resource "secrets" in API group "" in the namespace "ns": no relationship found between node \'n\' and this object'],
    ['path', { isResourceRequest: false, path: '/metrics', resource: '' }, '', 'forbidden: User "bob" cannot get path "/metrics"'],
  ];
  it.each(cases)('%s', (_n, o, reason, want) => expect(forbiddenMessage({ ...base, ...o }, reason)).toBe(want));

  it('is a 403 Forbidden Status naming the resource', () => {
    const e = forbiddenError({ ...base, namespace: 'ns', name: 'p' });
    expect(e.status()).toMatchObject({ code: 403, reason: 'Forbidden', details: { name: 'p', group: '', kind: 'pods' } });
  });
});
