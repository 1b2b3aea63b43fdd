import { describe, expect, it } from 'vitest';
import { buildNodeStatus, nodeStatusChanged, statusImages, type StatusFacts } from '../../../src/node-status/status.js';

const Gi = 1024 ** 3;
const facts: StatusFacts = {
  capacity: { cpu: 2000, memory: 4 * Gi, pods: 110, 'ephemeral-storage': 50 * Gi },
  allocatable: { cpu: 2000, memory: 4 * Gi - 100 * 1024 ** 2, pods: 110, 'ephemeral-storage': 45 * Gi },
  addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'n1' }],
  port: 10250,
  nodeInfo: { machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.1', osImage: 'Test OS', containerRuntimeVersion: 'containerd://1.7.0', kubeletVersion: 'v0.1.0', kubeProxyVersion: 'v0.1.0', operatingSystem: 'linux', architecture: 'amd64' },
  images: [{ names: ['r/a:1'], sizeBytes: 10 }],
  conditions: { notReady: [], memoryPressure: false, diskPressure: false, pidPressure: false },
};
const T0 = '2026-11-24T10:00:00Z';
const T1 = '2026-11-24T10:00:10Z';

describe('buildNodeStatus', () => {
  it('writes capacity, allocatable, conditions, addresses, daemon endpoint, nodeInfo and images', () => {
    const { status } = buildNodeStatus(undefined, facts, T0);
    expect(status).toMatchObject({
      capacity: { cpu: '2', memory: '4Gi', pods: '110', 'ephemeral-storage': '50Gi' },
      allocatable: { cpu: '2', memory: '3996Mi', pods: '110', 'ephemeral-storage': '45Gi' },
      addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'n1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { containerRuntimeVersion: 'containerd://1.7.0', kubeletVersion: 'v0.1.0', osImage: 'Test OS', bootID: 'b' },
      images: [{ names: ['r/a:1'], sizeBytes: 10 }],
    });
    expect((status['conditions'] as Array<{ type: string; status: string }>).find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'AgentReady' });
  });
  it('is not Ready while a required capacity is missing, or health says why', () => {
    const { memory: _m, ...noMemory } = facts.capacity;
    const ready = (f: StatusFacts): unknown => (buildNodeStatus(undefined, f, T0).status['conditions'] as Array<{ type: string }>).find((c) => c.type === 'Ready');
    expect(ready({ ...facts, capacity: noMemory })).toMatchObject({ status: 'False', reason: 'AgentNotReady', message: 'missing node capacity for resources: memory' });
    expect(ready({ ...facts, conditions: { ...facts.conditions, notReady: ['container runtime is down'] } })).toMatchObject({ status: 'False', message: 'container runtime is down' });
  });
  it('keeps the server addresses, images and runtime version when unknown this time', () => {
    const first = buildNodeStatus(undefined, facts, T0).status;
    const { status } = buildNodeStatus(first, { ...facts, addresses: undefined, images: undefined, nodeInfo: { ...facts.nodeInfo, containerRuntimeVersion: '' } }, T1);
    expect(status['addresses']).toEqual(first['addresses']);
    expect(status['images']).toEqual(first['images']);
    expect((status['nodeInfo'] as Record<string, unknown>)['containerRuntimeVersion']).toBe('containerd://1.7.0');
  });
});

describe('nodeStatusChanged', () => {
  const first = buildNodeStatus(undefined, facts, T0).status;
  it.each([
    ['only heartbeats moved', buildNodeStatus(first, facts, T1).status, false],
    ['an image more', buildNodeStatus(first, { ...facts, images: [...(facts.images ?? []), { names: ['r/b:1'], sizeBytes: 5 }] }, T1).status, true],
    ['NotReady', buildNodeStatus(first, { ...facts, conditions: { ...facts.conditions, notReady: ['x'] } }, T1).status, true],
    ['allocatable', buildNodeStatus(first, { ...facts, allocatable: { ...facts.allocatable, pods: 10 } }, T1).status, true],
  ])('%s → %s', (_name, next, want) => {
    expect(nodeStatusChanged(first, next)).toBe(want);
  });
});

describe('statusImages', () => {
  const img = (id: string, size: number, tags: string[], digests: string[] = []): { id: string; size: number; repoTags: string[]; repoDigests: string[] } => ({ id, size, repoTags: tags, repoDigests: digests });
  it('sorts by size, largest first, caps the count, digests then tags, at most 5 names', () => {
    const images = [img('a', 1, ['a:1']), img('b', 3, ['b:1', 'b:2', 'b:3', 'b:4'], ['b@sha256:1', 'b@sha256:2']), img('c', 2, ['c:1'])];
    expect(statusImages(images, 2)).toEqual([
      { names: ['b@sha256:1', 'b@sha256:2', 'b:1', 'b:2', 'b:3'], sizeBytes: 3 },
      { names: ['c:1'], sizeBytes: 2 },
    ]);
    expect(statusImages(images, -1)).toHaveLength(3);
    expect(statusImages(images, 0)).toEqual([]);
  });
});
