import { describe, expect, it } from 'vitest';
import { NodeAuthorizer, decideNodeRequest } from '../../../../src/apiserver/authz/node.js';
import { podReferencesObject, secretUses } from '../../../../src/apiserver/authz/pod-references.js';
import type { ReferencedKind } from '../../../../src/apiserver/authz/pod-references.js';
import type { AuthorizationAttributes } from '../../../../src/apiserver/types.js';

const nodeUser = { name: 'system:node:n1', uid: '', groups: ['system:nodes', 'system:authenticated'], extra: {} };
const a = (verb: string, resource: string, o: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user: nodeUser, verb, isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', namespace: '', resource, subresource: '', name: '', ...o,
});

const pod = {
  metadata: { name: 'web', namespace: 'ns' },
  spec: {
    nodeName: 'n1',
    serviceAccountName: 'runner',
    imagePullSecrets: [{ name: 'pull' }],
    volumes: [
      { name: 'v1', secret: { secretName: 'vol-secret' } },
      { name: 'v2', configMap: { name: 'vol-cm' } },
      { name: 'v3', projected: { sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-cm' } }] } },
      { name: 'v4', persistentVolumeClaim: { claimName: 'data' } },
      { name: 'scratch', ephemeral: { volumeClaimTemplate: {} } },
    ],
    initContainers: [{ name: 'init', envFrom: [{ secretRef: { name: 'init-envfrom' } }, { configMapRef: { name: 'init-cm' } }] }],
    containers: [{ name: 'app', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }, { name: 'B', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } }] }],
    ephemeralContainers: [{ name: 'debug', envFrom: [{ secretRef: { name: 'eph-secret' } }] }],
  },
};

describe('podReferencesObject', () => {
  const cases: Array<[ReferencedKind, string, boolean]> = [
    ['secrets', 'vol-secret', true],
    ['secrets', 'proj-secret', true],
    ['secrets', 'init-envfrom', true],
    ['secrets', 'env-secret', true],
    ['secrets', 'eph-secret', true],
    ['secrets', 'pull', true],
    ['secrets', 'vol-cm', false],
    ['secrets', '', false],
    ['configmaps', 'vol-cm', true],
    ['configmaps', 'proj-cm', true],
    ['configmaps', 'init-cm', true],
    ['configmaps', 'env-cm', true],
    ['configmaps', 'vol-secret', false],
    ['serviceaccounts', 'runner', true],
    ['serviceaccounts', 'default', false],
    ['persistentvolumeclaims', 'data', true],
    ['persistentvolumeclaims', 'web-scratch', true],
    ['persistentvolumeclaims', 'other', false],
  ];
  it.each(cases)('%s %s → %s', (kind, name, want) => expect(podReferencesObject(pod, kind, name)).toBe(want));

  it('lists secret uses in spec order with their place', () => {
    expect(secretUses(pod).map((u) => `${u.via}:${u.name}`)).toEqual(['volume:vol-secret', 'projected:proj-secret', 'envFrom:init-envfrom', 'env:env-secret', 'envFrom:eph-secret', 'imagePullSecret:pull']);
  });
  it('tolerates garbage', () => {
    expect(podReferencesObject({ spec: { volumes: 'x', containers: [null, 3] } }, 'secrets', 'a')).toBe(false);
    expect(secretUses(undefined)).toEqual([]);
  });
});

type Want = 'allow' | 'deny' | 'none' | 'graph';
const kindOf = (v: ReturnType<typeof decideNodeRequest>): Want => ('ask' in v ? 'graph' : v.decision.allowed ? 'allow' : v.decision.noOpinion ? 'none' : 'deny');

describe('decideNodeRequest', () => {
  const lease = (verb: string, name: string, namespace = 'platform-node-lease') => a(verb, 'leases', { apiGroup: 'coordination.platform.io', namespace, name });
  const cases: Array<[string, AuthorizationAttributes, Want]> = [
    ['not a node', a('get', 'secrets', { user: { ...nodeUser, groups: [] } }), 'none'],
    ['list pods', a('list', 'pods'), 'allow'],
    ['watch pods', a('watch', 'pods', { namespace: 'ns' }), 'allow'],
    ['create pod (mirror checked at admission)', a('create', 'pods', { namespace: 'ns' }), 'allow'],
    ['delete pod', a('delete', 'pods', { namespace: 'ns', name: 'web' }), 'graph'],
    ['update pods/status', a('update', 'pods', { namespace: 'ns', name: 'web', subresource: 'status' }), 'graph'],
    ['patch pods/status', a('patch', 'pods', { namespace: 'ns', name: 'web', subresource: 'status' }), 'graph'],
    ['update pod spec', a('update', 'pods', { namespace: 'ns', name: 'web' }), 'none'],
    ['get/list/watch nodes', a('list', 'nodes'), 'allow'],
    ['create node', a('create', 'nodes'), 'allow'],
    ['update own node', a('update', 'nodes', { name: 'n1' }), 'allow'],
    ['patch own node status', a('patch', 'nodes', { name: 'n1', subresource: 'status' }), 'allow'],
    ['patch other node status', a('patch', 'nodes', { name: 'n2', subresource: 'status' }), 'deny'],
    ['lease get own', lease('get', 'n1'), 'allow'],
    ['lease create', lease('create', ''), 'allow'],
    ['lease update other', lease('update', 'n2'), 'deny'],
    ['lease other namespace', lease('get', 'n1', 'default'), 'deny'],
    ['lease list', lease('list', ''), 'deny'],
    ['create event', a('create', 'events', { namespace: 'default' }), 'allow'],
    ['patch event', a('patch', 'events', { namespace: 'default', name: 'e' }), 'allow'],
    ['delete event', a('delete', 'events', { namespace: 'default', name: 'e' }), 'none'],
    ['get secret', a('get', 'secrets', { namespace: 'ns', name: 's' }), 'graph'],
    ['watch secret by name', a('watch', 'secrets', { namespace: 'ns', name: 's' }), 'graph'],
    ['list all secrets', a('list', 'secrets', { namespace: 'ns' }), 'deny'],
    ['update secret', a('update', 'secrets', { namespace: 'ns', name: 's' }), 'deny'],
    ['get configmap', a('get', 'configmaps', { namespace: 'ns', name: 'c' }), 'graph'],
    ['get pvc', a('get', 'persistentvolumeclaims', { namespace: 'ns', name: 'data' }), 'graph'],
    ['get serviceaccount', a('get', 'serviceaccounts', { namespace: 'ns', name: 'runner' }), 'graph'],
    ['create token', a('create', 'serviceaccounts', { namespace: 'ns', name: 'runner', subresource: 'token' }), 'graph'],
    ['create serviceaccount', a('create', 'serviceaccounts', { namespace: 'ns' }), 'deny'],
    ['create csr', a('create', 'certificatesigningrequests', { apiGroup: 'certificates.platform.io' }), 'allow'],
    ['watch csr', a('watch', 'certificatesigningrequests', { apiGroup: 'certificates.platform.io' }), 'allow'],
    ['approve csr', a('update', 'certificatesigningrequests', { apiGroup: 'certificates.platform.io', name: 'c', subresource: 'approval' }), 'none'],
    ['tokenreview', a('create', 'tokenreviews', { apiGroup: 'authentication.platform.io' }), 'allow'],
    ['subjectaccessreview', a('create', 'subjectaccessreviews', { apiGroup: 'authorization.platform.io' }), 'allow'],
    ['clusterroles', a('create', 'clusterroles', { apiGroup: 'rbac.authorization.platform.io' }), 'none'],
  ];
  it.each(cases)('%s → %s', (_n, attrs, want) => expect(kindOf(decideNodeRequest(attrs))).toBe(want));

  it('names an unnamed node', () => {
    expect(decideNodeRequest(a('get', 'pods', { user: { ...nodeUser, name: 'system:node:' } }))).toEqual({ decision: { allowed: false, noOpinion: true, reason: 'unknown node for user "system:node:"' } });
  });
});

describe('NodeAuthorizer', () => {
  const graph = { podsOnNode: (node: string, ns: string) => Promise.resolve(node === 'n1' && ns === 'ns' ? [pod] : []) };
  const authz = new NodeAuthorizer(graph);
  const cases: Array<[string, AuthorizationAttributes, boolean]> = [
    ['secret of my pod', a('get', 'secrets', { namespace: 'ns', name: 'env-secret' }), true],
    ['other secret', a('get', 'secrets', { namespace: 'ns', name: 'admin' }), false],
    ['secret of my pod in other namespace', a('get', 'secrets', { namespace: 'other', name: 'env-secret' }), false],
    ['status of my pod', a('patch', 'pods', { namespace: 'ns', name: 'web', subresource: 'status' }), true],
    ['status of another pod', a('patch', 'pods', { namespace: 'ns', name: 'db', subresource: 'status' }), false],
    ['token of my pod account', a('create', 'serviceaccounts', { namespace: 'ns', name: 'runner', subresource: 'token' }), true],
    ['token of another account', a('create', 'serviceaccounts', { namespace: 'ns', name: 'default', subresource: 'token' }), false],
  ];
  it.each(cases)('%s', async (_n, attrs, want) => expect((await authz.authorize(attrs)).allowed).toBe(want));

  it('explains a missing relationship', async () => {
    expect(await authz.authorize(a('get', 'configmaps', { namespace: 'ns', name: 'nope' }))).toEqual({ allowed: false, noOpinion: true, reason: "no relationship found between node 'n1' and this object" });
  });
});
