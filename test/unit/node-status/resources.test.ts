import { describe, expect, it } from 'vitest';
import { formatBinary, formatMilliCpu, nodeAllocatable, nodeCapacity, nodeReservation, toResourceList } from '../../../src/node-status/resources.js';

const Mi = 1024 ** 2;
const Gi = 1024 ** 3;

describe('quantities as the API server prints them', () => {
  it.each([
    [0, '0'],
    [1000, '1000'],
    [1024, '1Ki'],
    [16318480 * 1024, '16318480Ki'],
    [2 * Mi, '2Mi'],
    [Gi, '1Gi'],
    [1536, '1536'],
  ])('bytes %d → %s', (b, want) => expect(formatBinary(b)).toBe(want));
  it.each([
    [4000, '4'],
    [3900, '3900m'],
    [0, '0'],
    [-5, '0'],
  ])('millicores %d → %s', (m, want) => expect(formatMilliCpu(m)).toBe(want));
});

const reservation = { platformReserved: {}, systemReserved: {}, reservedCpuCount: 0, evictionHard: {}, ignoreEviction: false };

describe('capacity and allocatable', () => {
  const capacity = nodeCapacity({ cpus: 4, memoryBytes: 8 * Gi, hugePages: [{ pageSize: 2 * Mi, pages: 10 }, { pageSize: Gi, pages: 0 }], rootFsBytes: 100 * Gi, maxPods: 110 });
  it('reports cpu, memory, pods, ephemeral-storage and every hugepage size', () => {
    expect(toResourceList(capacity)).toEqual({ cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi', 'hugepages-2Mi': '20Mi', 'hugepages-1Gi': '0' });
  });
  it('leaves out what could not be read', () => {
    expect(Object.keys(nodeCapacity({ cpus: 2, memoryBytes: undefined, hugePages: [], rootFsBytes: undefined, maxPods: 10 })).sort()).toEqual(['cpu', 'pods']);
  });
  it.each([
    ['nothing reserved: memory less hugepages', reservation, { cpu: '4', memory: '8172Mi', pods: '110', 'ephemeral-storage': '100Gi' }],
    [
      'platform + system reserved add up',
      { ...reservation, platformReserved: { cpu: '100m', memory: '500Mi' }, systemReserved: { cpu: '200m', memory: '1Gi', 'ephemeral-storage': '1Gi' } },
      { cpu: '3700m', memory: `${8192 - 20 - 500 - 1024}Mi`, pods: '110', 'ephemeral-storage': '99Gi' },
    ],
    [
      'hard eviction thresholds: quantity and percentage',
      { ...reservation, evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%', 'imagefs.available': '15%' } },
      { cpu: '4', memory: `${8192 - 20 - 100}Mi`, pods: '110', 'ephemeral-storage': String(100 * Gi - 10737418400) },
    ],
    ['--experimental-allocatable-ignore-eviction', { ...reservation, ignoreEviction: true, evictionHard: { 'memory.available': '100Mi' } }, { cpu: '4', memory: '8172Mi', pods: '110', 'ephemeral-storage': '100Gi' }],
    ['--reserved-cpus replaces the cpu of both reservations', { ...reservation, reservedCpuCount: 2, systemReserved: { cpu: '500m' } }, { cpu: '2', memory: '8172Mi', pods: '110', 'ephemeral-storage': '100Gi' }],
    ['never below zero', { ...reservation, systemReserved: { cpu: '8', memory: '100Gi' } }, { cpu: '0', memory: '0', pods: '110', 'ephemeral-storage': '100Gi' }],
  ])('%s', (_name, r, want) => {
    const alloc = toResourceList(nodeAllocatable(capacity, nodeReservation(r, capacity)));
    expect(alloc).toMatchObject(want);
    expect(alloc['hugepages-2Mi']).toBe('20Mi');
  });
});
