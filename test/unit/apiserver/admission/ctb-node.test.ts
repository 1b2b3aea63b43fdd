import { describe, expect, it } from 'vitest';
import { admitClusterTrustBundle } from '../../../../src/apiserver/admission/ctb-attest.js';
import { admitNodeCreate, nodePodCreateReason } from '../../../../src/apiserver/admission/node-restriction.js';
import type { AuthorizationAttributes, Authorizer, UserInfo } from '../../../../src/apiserver/types.js';

const user: UserInfo = { name: 'alice', uid: '', groups: [], extra: {} };
/** Allows attest on the given signer names; records what it was asked. */
const signerAuthz = (names: string[], asked: AuthorizationAttributes[] = []): Authorizer => ({
  authorize: (a) => {
    asked.push(a);
    return Promise.resolve(a.verb === 'attest' && a.resource === 'signers' && a.apiGroup === 'certificates.platform.io' && names.includes(a.name) ? { allowed: true, reason: '' } : { allowed: false, noOpinion: true, reason: '' });
  },
});
const bundle = (signerName: string | undefined, trustBundle = 'PEM') => ({ metadata: { name: 'example.com:signer:a' }, spec: { ...(signerName === undefined ? {} : { signerName }), trustBundle } });

describe('ClusterTrustBundle attest admission', () => {
  it.each<[string, string[], string | undefined, boolean]>([
    ['no signer', [], undefined, true],
    ['exact permission', ['example.com/signer'], 'example.com/signer', true],
    ['domain wildcard permission', ['example.com/*'], 'example.com/signer', true],
    ['no permission', ['other.com/signer'], 'example.com/signer', false],
  ])('%s', async (_n, names, signer, ok) => {
    const e = await admitClusterTrustBundle(signerAuthz(names), user, bundle(signer), undefined);
    expect(e === undefined).toBe(ok);
    if (!ok) expect([e?.code, e?.message]).toEqual([403, 'clustertrustbundles.certificates.platform.io "example.com:signer:a" is forbidden: user not permitted to attest for signerName "example.com/signer"']);
  });
  it('skips metadata-only updates and checks content changes', async () => {
    const asked: AuthorizationAttributes[] = [];
    expect(await admitClusterTrustBundle(signerAuthz([], asked), user, bundle('example.com/signer'), bundle('example.com/signer'))).toBeUndefined();
    expect(asked).toEqual([]);
    expect(await admitClusterTrustBundle(signerAuthz([], asked), user, bundle('example.com/signer', 'NEW'), bundle('example.com/signer'))).toBeDefined();
    expect(asked[0]).toMatchObject({ verb: 'attest', resource: 'signers', name: 'example.com/signer', namespace: '', isResourceRequest: true });
  });
});

describe('NodeRestriction (body)', () => {
  const owner = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u', controller: true };
  const mirror = (o: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => ({ metadata: { name: 'static-n1', annotations: { 'platform.io/config.mirror': 'h' }, ownerReferences: [owner], ...o }, spec: { nodeName: 'n1', containers: [{ name: 'c' }], ...spec } });
  it.each<[string, ReturnType<typeof mirror>, string | undefined]>([
    ['good mirror pod', mirror(), undefined],
    ['not a mirror pod', { ...mirror(), metadata: { name: 'x', ownerReferences: [owner] } } as never, 'pod does not have "platform.io/config.mirror" annotation, node "n1" can only create mirror pods'],
    ['other node', mirror({}, { nodeName: 'n2' }), 'node "n1" can only create pods with spec.nodeName set to itself'],
    ['no owner', mirror({ ownerReferences: [] }), 'node "n1" can only create pods with an owner reference set to itself'],
    ['two owners', mirror({ ownerReferences: [owner, owner] }), 'node "n1" can only create pods with a single owner reference set to itself'],
    ['not controller', mirror({ ownerReferences: [{ ...owner, controller: false }] }), 'node "n1" can only create pods with a controller owner reference set to itself'],
    ['blockOwnerDeletion', mirror({ ownerReferences: [{ ...owner, blockOwnerDeletion: true }] }), 'node "n1" must not set blockOwnerDeletion on an owner reference'],
    ['service account', mirror({}, { serviceAccountName: 'sa' }), 'node "n1" can not create pods that reference a service account'],
    ['secret', mirror({}, { volumes: [{ name: 'v', secret: { secretName: 's' } }] }), 'node "n1" can not create pods that reference secrets'],
    ['configmap', mirror({}, { volumes: [{ name: 'v', configMap: { name: 'c' } }] }), 'node "n1" can not create pods that reference configmaps'],
    ['pvc', mirror({}, { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] }), 'node "n1" can not create pods that reference persistentvolumeclaims'],
  ])('%s', (_n, pod, want) => expect(nodePodCreateReason('n1', pod)).toBe(want));

  it('applies to node users only, and to their own Node', () => {
    const node: UserInfo = { name: 'system:node:n1', uid: '', groups: ['system:nodes'], extra: {} };
    expect(admitNodeCreate(user, 'pods', { metadata: { name: 'x' } })).toBeUndefined();
    expect(admitNodeCreate(node, 'pods', { metadata: { name: 'x' } })?.code).toBe(403);
    expect(admitNodeCreate(node, 'nodes', { metadata: { name: 'n1' } })).toBeUndefined();
    expect(admitNodeCreate(node, 'nodes', { metadata: { name: 'n2' } })?.message).toBe('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
  });
});
