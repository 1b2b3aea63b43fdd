import { describe, expect, it } from 'vitest';
import { buildSummary, mergeMemory, podTotals, type FilesystemsRaw, type NodeRaw, type PodRaw } from '../../../src/stats/build.js';

const T = new Date('2026-01-01T00:00:10.250Z');
const fs = (capacityBytes: number, availableBytes: number) => ({ capacityBytes, availableBytes, usedBytes: capacityBytes - availableBytes, inodes: 1000, inodesFree: 400 });

describe('mergeMemory', () => {
  it.each([
    ['neither', undefined, undefined, undefined],
    ['runtime only', { timestamp: 1n, workingSetBytes: 5 }, undefined, { workingSetBytes: 5 }],
    ['cgroup only', undefined, { usageBytes: 9, workingSetBytes: 4 }, { usageBytes: 9, workingSetBytes: 4 }],
    ['runtime wins, cgroup fills the gaps', { timestamp: 1n, workingSetBytes: 5 }, { usageBytes: 9, workingSetBytes: 4, rssBytes: 3, limitBytes: 100 }, { usageBytes: 9, workingSetBytes: 5, rssBytes: 3, limitBytes: 100 }],
  ])('%s', (_n, cri, cg, want) => {
    expect(mergeMemory(cri, cg)).toEqual(want);
  });
});

describe('podTotals', () => {
  const c = (cpu?: number, ws?: number) => ({ name: 'c', startTime: T, time: T, ...(cpu === undefined ? {} : { cpu: { usageCoreNanoSeconds: cpu, usageNanoCores: cpu / 10 } }), ...(ws === undefined ? {} : { memory: { workingSetBytes: ws } }) });
  const pod = (containers: PodRaw['containers'], whole: Partial<PodRaw> = {}): PodRaw => ({ ref: { name: 'p', namespace: 'n', uid: 'u' }, startTime: T, time: T, volumes: [], containers, ...whole });
  it.each([
    ['sums the containers', pod([c(10, 1), c(20, 2)]), { cpu: { usageCoreNanoSeconds: 30, usageNanoCores: 3 }, memory: { workingSetBytes: 3 } }],
    ['a container without figures adds nothing', pod([c(10, 1), c()]), { cpu: { usageCoreNanoSeconds: 10, usageNanoCores: 1 }, memory: { workingSetBytes: 1 } }],
    ['no containers: nothing', pod([]), {}],
    ['measured as a whole wins', pod([c(10, 1)], { cpu: { usageCoreNanoSeconds: 99 }, memory: { workingSetBytes: 77 } }), { cpu: { usageCoreNanoSeconds: 99 }, memory: { workingSetBytes: 77 } }],
  ])('%s', (_n, p, want) => {
    expect(podTotals(p)).toEqual(want);
  });
});

describe('buildSummary', () => {
  const node: NodeRaw = {
    nodeName: 'n1', startTime: new Date('2025-12-31T00:00:00Z'), time: T,
    cpu: { usageCoreNanoSeconds: 5e9, usageNanoCores: 1e8 },
    memory: { usageBytes: 800, workingSetBytes: 600, rssBytes: 300, pageFaults: 1, majorPageFaults: 0 },
    memTotalBytes: 1000,
    network: { interfaces: [{ name: 'eth0', rxBytes: 1, rxErrors: 0, txBytes: 2, txErrors: 0 }, { name: 'eth1', rxBytes: 3, rxErrors: 0, txBytes: 4, txErrors: 0 }], defaultInterface: 'eth1' },
    maxPid: 100, curProc: 10,
    systemContainers: [{ name: 'agent', startTime: T, time: T, cpu: { usageCoreNanoSeconds: 1 }, memory: { workingSetBytes: 2 } }],
  };
  const fss: FilesystemsRaw = { root: fs(10_000, 4_000), image: fs(50_000, 20_000), imageUsage: { usedBytes: 123, inodesUsed: 7 } };
  const pod: PodRaw = {
    ref: { name: 'web', namespace: 'default', uid: 'u1' }, startTime: new Date('2026-01-01T00:00:00Z'), time: T,
    network: { interfaces: [{ name: 'eth0', rxBytes: 5, rxErrors: 0, txBytes: 6, txErrors: 0 }], defaultInterface: 'eth0' },
    processCount: 2,
    volumes: [{ name: 'scratch', usage: { usedBytes: 100, inodesUsed: 2 } }, { name: 'shm', usage: { usedBytes: 50, inodesUsed: 1 }, fs: fs(64, 14) }],
    containers: [{
      name: 'app', startTime: new Date('2026-01-01T00:00:01Z'), time: T,
      cpu: { usageCoreNanoSeconds: 2e9, usageNanoCores: 5e8 },
      memory: { usageBytes: 400, workingSetBytes: 300, limitBytes: 1000 },
      rootfs: { usedBytes: 10, inodesUsed: 3 }, logs: { usedBytes: 20, inodesUsed: 4 },
    }],
  };

  it('gives the kubelet shape, with RFC 3339 second times and derived figures', () => {
    const s = buildSummary(node, [pod], fss);
    expect(s.node).toEqual({
      nodeName: 'n1', startTime: '2025-12-31T00:00:00Z',
      systemContainers: [{ name: 'agent', startTime: '2026-01-01T00:00:10Z', cpu: { time: '2026-01-01T00:00:10Z', usageCoreNanoSeconds: 1 }, memory: { time: '2026-01-01T00:00:10Z', workingSetBytes: 2 } }],
      cpu: { time: '2026-01-01T00:00:10Z', usageNanoCores: 1e8, usageCoreNanoSeconds: 5e9 },
      memory: { time: '2026-01-01T00:00:10Z', availableBytes: 400, usageBytes: 800, workingSetBytes: 600, rssBytes: 300, pageFaults: 1, majorPageFaults: 0 },
      network: { time: '2026-01-01T00:00:10Z', name: 'eth1', rxBytes: 3, rxErrors: 0, txBytes: 4, txErrors: 0, interfaces: [{ name: 'eth0', rxBytes: 1, rxErrors: 0, txBytes: 2, txErrors: 0 }, { name: 'eth1', rxBytes: 3, rxErrors: 0, txBytes: 4, txErrors: 0 }] },
      fs: { time: '2026-01-01T00:00:10Z', availableBytes: 4000, capacityBytes: 10000, usedBytes: 6000, inodesFree: 400, inodes: 1000, inodesUsed: 600 },
      runtime: { imageFs: { time: '2026-01-01T00:00:10Z', availableBytes: 20000, capacityBytes: 50000, usedBytes: 123, inodesFree: 400, inodes: 1000, inodesUsed: 7 } },
      rlimit: { time: '2026-01-01T00:00:10Z', maxpid: 100, curproc: 10 },
    });
    const p = s.pods[0];
    expect(p?.podRef).toEqual({ name: 'web', namespace: 'default', uid: 'u1' });
    expect(p?.containers[0]).toEqual({
      name: 'app', startTime: '2026-01-01T00:00:01Z',
      cpu: { time: '2026-01-01T00:00:10Z', usageNanoCores: 5e8, usageCoreNanoSeconds: 2e9 },
      memory: { time: '2026-01-01T00:00:10Z', availableBytes: 700, usageBytes: 400, workingSetBytes: 300 },
      rootfs: { time: '2026-01-01T00:00:10Z', availableBytes: 20000, capacityBytes: 50000, usedBytes: 10, inodesFree: 400, inodes: 1000, inodesUsed: 3 },
      logs: { time: '2026-01-01T00:00:10Z', availableBytes: 4000, capacityBytes: 10000, usedBytes: 20, inodesFree: 400, inodes: 1000, inodesUsed: 4 },
    });
    expect(p?.cpu).toEqual({ time: '2026-01-01T00:00:10Z', usageNanoCores: 5e8, usageCoreNanoSeconds: 2e9 });
    expect(p?.network).toMatchObject({ name: 'eth0', rxBytes: 5 });
    expect(p?.volume).toEqual([
      { time: '2026-01-01T00:00:10Z', availableBytes: 4000, capacityBytes: 10000, usedBytes: 100, inodesFree: 400, inodes: 1000, inodesUsed: 2, name: 'scratch' },
      { time: '2026-01-01T00:00:10Z', availableBytes: 14, capacityBytes: 64, usedBytes: 50, inodesFree: 400, inodes: 1000, inodesUsed: 1, name: 'shm' },
    ]);
    // Ephemeral storage: writable layer + logs + disk-backed volumes (not the tmpfs one).
    expect(p?.['ephemeral-storage']).toMatchObject({ usedBytes: 130, inodesUsed: 9, capacityBytes: 10000 });
    expect(p?.process_stats).toEqual({ process_count: 2 });
  });

  it('only_cpu_and_memory leaves out network, filesystems, volumes and rlimit', () => {
    const s = buildSummary(node, [pod], fss, true);
    expect(Object.keys(s.node).sort()).toEqual(['cpu', 'memory', 'nodeName', 'startTime', 'systemContainers']);
    expect(Object.keys(s.pods[0] ?? {}).sort()).toEqual(['containers', 'cpu', 'memory', 'podRef', 'startTime']);
    expect(Object.keys(s.pods[0]?.containers[0] ?? {}).sort()).toEqual(['cpu', 'memory', 'name', 'startTime']);
  });

  it('an unmeasured figure is absent, not 0', () => {
    const s = buildSummary({ nodeName: 'n', startTime: T, time: T, systemContainers: [] }, [{ ...pod, containers: [], volumes: [], network: undefined } as unknown as PodRaw], {});
    expect(s.node).toEqual({ nodeName: 'n', startTime: '2026-01-01T00:00:10Z' });
    expect(s.pods[0]).toEqual({ podRef: pod.ref, startTime: '2026-01-01T00:00:00Z', containers: [], process_stats: { process_count: 2 } });
  });
});
