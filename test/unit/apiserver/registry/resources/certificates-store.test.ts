// The certificate and RBAC strategies inside the real generic store over the
// memory storage: names with signer prefixes, the spec.signerName field
// selector, the CSR approval subresource, status writes, and the authorizer
// reading stored RBAC objects.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../../../src/api/errors.js';
import { rbacSourceFromStores, serverAuthorizer, nodeGraphFromPods } from '../../../../../src/apiserver/authz/from-stores.js';
import { BUILTIN_STRATEGIES, createRegistry, jsonStorageCodec } from '../../../../../src/apiserver/registry/index.js';
import type { GenericStore, Registry } from '../../../../../src/apiserver/registry/index.js';
import { certificatesigningrequests } from '../../../../../src/apiserver/registry/resources/certificatesigningrequests.js';
import { clustertrustbundles } from '../../../../../src/apiserver/registry/resources/clustertrustbundles.js';
import { RBAC_STRATEGIES } from '../../../../../src/apiserver/registry/resources/rbac.js';
import type { ApiObject } from '../../../../../src/apiserver/registry/types.js';
import type { Storage } from '../../../../../src/apiserver/storage/interface.js';
import { createMemoryStorage } from '../../../../../src/apiserver/storage/memory.js';
import { makeTestPems } from './certs.js';

const pems = makeTestPems();
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const CERTS = 'certificates.platform.io';
const RBAC = 'rbac.authorization.platform.io';
const MOST_RECENT = { kind: 'MostRecent' as const };

let storage: Storage;
let registry: Registry;
afterEach(async () => storage.close());

function open(gates: Record<string, boolean> = { ClusterTrustBundle: true }): (resource: string, group?: string) => GenericStore {
  storage = createMemoryStorage();
  registry = createRegistry({ storage, codec: jsonStorageCodec, strategies: [...BUILTIN_STRATEGIES, clustertrustbundles, certificatesigningrequests, ...RBAC_STRATEGIES], featureGates: gates });
  return (resource, group = '') => {
    const s = registry.store({ group, resource });
    if (s === undefined) throw new Error(`not served: ${resource}`);
    return s;
  };
}

const failure = async (p: Promise<unknown>): Promise<ApiError> => {
  const e = await p.then(() => undefined, (x: unknown) => x);
  if (!(e instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(e)}`);
  return e;
};

describe('ClusterTrustBundles in the store', () => {
  it('is not served without its gate', () => {
    open({});
    expect(registry.store({ group: CERTS, resource: 'clustertrustbundles' })).toBeUndefined();
  });

  it('stores prefixed names, selects by signer, refuses bad bundles with 422', async () => {
    const ctbs = open()('clustertrustbundles', CERTS);
    await ctbs.create('', { metadata: { name: 'example.com:signer:a' }, spec: { signerName: 'example.com/signer', trustBundle: pems.ca1 } });
    await ctbs.create('', { metadata: { name: 'plain' }, spec: { trustBundle: pems.ca2 } });
    const bySigner = await ctbs.list('', { readAt: MOST_RECENT, selection: { fields: (f) => f['spec.signerName'] === 'example.com/signer', fieldNames: ['spec.signerName'] } });
    expect(bySigner.items.map((i) => i.metadata.name)).toEqual(['example.com:signer:a']);
    const e = await failure(ctbs.create('', { metadata: { name: 'bad' }, spec: { trustBundle: `${pems.ca1}${pems.ca1}` } }));
    expect([e.code, e.message]).toEqual([422, 'ClusterTrustBundle.certificates.platform.io "bad" is invalid: spec.trustBundle: Invalid value: "<value omitted>": duplicate trust anchor (indices [0 1])']);
    const stored = await ctbs.get('', 'example.com:signer:a');
    const moved = await failure(ctbs.update('', 'example.com:signer:a', { ...stored, spec: { signerName: 'example.com/other', trustBundle: pems.ca1 } }));
    expect(moved.message).toContain('spec.signerName: Invalid value: "example.com/other": field is immutable');
  });
});

describe('CertificateSigningRequests in the store', () => {
  const csr = (): ApiObject => ({ metadata: { name: 'node-csr-1' }, spec: { request: b64(pems.csr), signerName: 'platform.io/kube-apiserver-client-agent', usages: ['digital signature', 'client auth'] } });

  it('approves through approval, issues through status, keeps the spec', async () => {
    const csrs = open()('certificatesigningrequests', CERTS);
    const created = await csrs.create('', { ...csr(), status: { conditions: [{ type: 'Approved', status: 'True' }] } });
    expect(created.status).toBeUndefined();
    const early = await failure(csrs.update('', 'node-csr-1', { ...created, status: { conditions: [{ type: 'Approved', status: 'True' }] } }, { subresource: 'status' }));
    expect(early.code).toBe(422);
    const approved = await csrs.update('', 'node-csr-1', { ...created, spec: { ...(created.spec as object), usages: ['server auth'] }, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }] } }, { subresource: 'approval' });
    expect(approved.object.status).toEqual({ conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }] });
    expect((approved.object.spec as { usages: string[] }).usages).toEqual(['digital signature', 'client auth']);
    const issued = await csrs.update('', 'node-csr-1', { ...approved.object, status: { ...(approved.object.status as object), certificate: b64(pems.leaf) } }, { subresource: 'status' });
    expect((issued.object.status as { certificate: string }).certificate).toBe(b64(pems.leaf));
    const denied = await failure(csrs.update('', 'node-csr-1', { ...issued.object, status: { conditions: [{ type: 'Denied', status: 'True' }] } }, { subresource: 'approval' }));
    expect(denied.message).toContain('updates may not remove a condition of type "Approved"');
  });
});

describe('RBAC objects in the store drive the authorizer', () => {
  it('a stored binding grants; a deleted one no longer does', async () => {
    const store = open();
    await store('namespaces').create('', { metadata: { name: 'team' } });
    await store('roles', RBAC).create('team', { metadata: { name: 'reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] });
    await store('rolebindings', RBAC).create('team', { metadata: { name: 'b' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'bob' }] });
    const rbac = rbacSourceFromStores({ roles: store('roles', RBAC), clusterRoles: store('clusterroles', RBAC), roleBindings: store('rolebindings', RBAC), clusterRoleBindings: store('clusterrolebindings', RBAC) });
    const authz = serverAuthorizer({ graph: nodeGraphFromPods(store('pods')), rbac });
    const attrs = { user: { name: 'bob', uid: '', groups: [], extra: {} }, verb: 'get', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', namespace: 'team', resource: 'secrets', subresource: '', name: 's' };
    expect((await authz.authorize(attrs)).allowed).toBe(true);
    const stored = await store('rolebindings', RBAC).get('team', 'b');
    expect(stored.subjects).toEqual([{ kind: 'User', name: 'bob', apiGroup: RBAC }]);
    await store('rolebindings', RBAC).delete('team', 'b', {});
    expect((await authz.authorize(attrs)).allowed).toBe(false);
  });
});
