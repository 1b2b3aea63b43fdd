import { describe, expect, it } from 'vitest';
import { initialNode, reconcileExistingNode, type RegistrationInput } from '../../../src/node-status/registration.js';

const base: RegistrationInput = {
  nodeName: 'n1',
  hostname: 'n1',
  os: 'linux',
  arch: 'amd64',
  nodeLabels: {},
  registerWithTaints: [],
  registerSchedulable: true,
  providerID: '',
  controllerAttachDetach: true,
};

describe('initialNode', () => {
  it('labels the node with hostname, os, arch and the beta os/arch; the attach/detach annotation', () => {
    expect(initialNode(base)).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'n1',
        labels: { 'platform.io/hostname': 'n1', 'platform.io/os': 'linux', 'platform.io/arch': 'amd64', 'beta.platform.io/os': 'linux', 'beta.platform.io/arch': 'amd64' },
        annotations: { 'volumes.platform.io/controller-managed-attach-detach': 'true' },
      },
      spec: {},
    });
  });
  it.each([
    ['--node-labels are added and may override a default', { nodeLabels: { 'node.platform.io/role': 'edge', 'platform.io/hostname': 'other' } }, { metadata: { labels: { 'node.platform.io/role': 'edge', 'platform.io/hostname': 'other' } } }],
    ['--register-with-taints', { registerWithTaints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' as const }, { key: 'k', effect: 'NoExecute' as const }] }, { spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, { key: 'k', effect: 'NoExecute' }] } }],
    ['--register-schedulable=false: unschedulable with the taint', { registerSchedulable: false }, { spec: { unschedulable: true, taints: [{ key: 'node.platform.io/unschedulable', effect: 'NoSchedule' }] } }],
    ['--provider-id', { providerID: 'aws:///us-east-1a/i-1' }, { spec: { providerID: 'aws:///us-east-1a/i-1' } }],
    [
      '--cloud-provider=external: the uninitialized taint and the provided node IP',
      { externalCloudProvider: true, nodeIP: '10.0.0.5' },
      { metadata: { annotations: { 'alpha.platform.io/provided-node-ip': '10.0.0.5' } }, spec: { taints: [{ key: 'node.cloudprovider.platform.io/uninitialized', value: 'true', effect: 'NoSchedule' }] } },
    ],
  ])('%s', (_name, over, want) => {
    expect(initialNode({ ...base, ...over })).toMatchObject(want);
  });
  it('no annotation without the attach/detach controller', () => {
    expect(initialNode({ ...base, controllerAttachDetach: false }).metadata.annotations).toBeUndefined();
  });
});

describe('reconcileExistingNode (the 409 path)', () => {
  const desired = initialNode({ ...base, nodeLabels: { 'node.platform.io/role': 'edge' } });
  const existing = (labels: Record<string, string>, annotations?: Record<string, string>): Record<string, unknown> => ({
    metadata: { name: 'n1', uid: 'u1', labels, ...(annotations === undefined ? {} : { annotations }) },
    spec: { unschedulable: false },
  });
  const same = { ...desired.metadata.labels };
  const cmad = { 'volumes.platform.io/controller-managed-attach-detach': 'true' };
  it.each([
    ['in line: nothing to send', existing(same, cmad), [], same, cmad],
    ['a changed hostname label is put back', existing({ ...same, 'platform.io/hostname': 'old' }, cmad), ['label platform.io/hostname=n1 (was old)'], same, cmad],
    ['a missing arch label is set', existing({ ...same, 'platform.io/arch': undefined as unknown as string }, cmad), ['label platform.io/arch=amd64'], same, cmad],
    ['the annotation is set when missing', existing(same), ['annotation volumes.platform.io/controller-managed-attach-detach set'], same, cmad],
    ['labels the agent does not set are left alone', existing({ ...same, 'topology.platform.io/zone': 'z1', team: 'a' }, cmad), [], { ...same, 'topology.platform.io/zone': 'z1', team: 'a' }, cmad],
    ['--node-labels are registration-only: a removed one is not put back', existing({ ...same, 'node.platform.io/role': undefined as unknown as string }, cmad), [], { ...same, 'node.platform.io/role': undefined }, cmad],
  ])('%s', (_name, node, changes, labels, annotations) => {
    const clean = (o: Record<string, string | undefined>): Record<string, string> => Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => e[1] !== undefined));
    const r = reconcileExistingNode(desired, JSON.parse(JSON.stringify(node)) as Record<string, unknown>);
    expect(r.changes).toEqual(changes);
    expect((r.node['metadata'] as Record<string, unknown>)['labels']).toEqual(clean(labels));
    expect((r.node['metadata'] as Record<string, unknown>)['annotations']).toEqual(annotations);
    expect(r.node['spec']).toEqual({ unschedulable: false });
  });
  it('removes the annotation when the attach/detach controller is off', () => {
    const r = reconcileExistingNode(initialNode({ ...base, controllerAttachDetach: false }), existing(same, cmad));
    expect(r.changes).toEqual(['annotation volumes.platform.io/controller-managed-attach-detach removed']);
    expect((r.node['metadata'] as Record<string, unknown>)['annotations']).toEqual({});
  });
});
