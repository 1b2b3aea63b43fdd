// issue 18 F: stats. What FakeRuntime reports from ListContainerStats and
// ListPodSandboxStats: usage a test sets per container (default all zero),
// stamped with the fake's clock. A sandbox's usage is the sum of its running
// containers', as a pod cgroup holding only them would be. Pure data.
import type { ContainerStats, ContainerStatsFilter, CpuUsage, MemoryUsage, PodSandboxStats, PodSandboxStatsFilter } from './types.js';
import { labelsMatch, type FakeContainer, type FakeSandbox } from './fake-records.js';

/** A container's usage as a test stages it; absent fields are unreported by the "runtime". */
export interface FakeUsage {
  cpuCoreNanoSeconds?: number;
  usageNanoCores?: number;
  workingSetBytes?: number;
  usageBytes?: number;
  rssBytes?: number;
  availableBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
  writableLayerBytes?: number;
}

export class FakeStatsTable {
  private readonly usage = new Map<string, FakeUsage>();

  /** Sets (merges into) what the runtime reports for container `id`. */
  set(id: string, u: FakeUsage): void {
    this.usage.set(id, { ...this.usage.get(id), ...u });
  }

  /** ListContainerStats: the running containers the filter selects. */
  listContainers(containers: Iterable<FakeContainer>, filter: ContainerStatsFilter | undefined, now: bigint): ContainerStats[] {
    return [...containers]
      .filter((c) => c.state === 'RUNNING' && (filter?.id === undefined || c.id === filter.id) && (filter?.podSandboxId === undefined || c.podSandboxId === filter.podSandboxId) && labelsMatch(c.config.labels, filter?.labelSelector))
      .map((c) => this.containerStats(c, now));
  }

  /** ListPodSandboxStats: the ready sandboxes the filter selects, each with its running containers. */
  listSandboxes(sandboxes: Iterable<FakeSandbox>, containers: Iterable<FakeContainer>, filter: PodSandboxStatsFilter | undefined, now: bigint): PodSandboxStats[] {
    const running = [...containers].filter((c) => c.state === 'RUNNING');
    return [...sandboxes]
      .filter((s) => s.state === 'READY' && (filter?.id === undefined || s.id === filter.id) && labelsMatch(s.config.labels, filter?.labelSelector))
      .map((s) => this.sandboxStats(s, running.filter((c) => c.podSandboxId === s.id).map((c) => this.containerStats(c, now)), now));
  }

  containerStats(c: FakeContainer, now: bigint): ContainerStats {
    const u = this.usage.get(c.id) ?? {};
    const out: ContainerStats = {
      id: c.id,
      metadata: { ...c.config.metadata },
      labels: { ...c.config.labels },
      annotations: { ...c.config.annotations },
      cpu: pick<CpuUsage>({ timestamp: now, usageCoreNanoSeconds: u.cpuCoreNanoSeconds ?? 0, usageNanoCores: u.usageNanoCores }),
      memory: pick<MemoryUsage>({
        timestamp: now,
        workingSetBytes: u.workingSetBytes ?? 0,
        usageBytes: u.usageBytes ?? u.workingSetBytes ?? 0,
        rssBytes: u.rssBytes,
        availableBytes: u.availableBytes,
        pageFaults: u.pageFaults,
        majorPageFaults: u.majorPageFaults,
      }),
    };
    if (u.writableLayerBytes !== undefined) out.writableLayer = { mountpoint: `/var/lib/fake-runtime/rootfs/${c.id}`, usedBytes: u.writableLayerBytes, inodesUsed: 1 };
    return out;
  }

  sandboxStats(s: FakeSandbox, containers: readonly ContainerStats[], now: bigint): PodSandboxStats {
    const sum = (f: (c: ContainerStats) => number | undefined): number => containers.reduce((a, c) => a + (f(c) ?? 0), 0);
    return {
      id: s.id,
      metadata: { ...s.config.metadata },
      labels: { ...s.config.labels },
      annotations: { ...s.config.annotations },
      cpu: { timestamp: now, usageCoreNanoSeconds: sum((c) => c.cpu?.usageCoreNanoSeconds) },
      memory: { timestamp: now, workingSetBytes: sum((c) => c.memory?.workingSetBytes), usageBytes: sum((c) => c.memory?.usageBytes) },
      network: { timestamp: now, defaultInterface: { name: 'eth0', rxBytes: 0, rxErrors: 0, txBytes: 0, txErrors: 0 }, interfaces: [] },
      processCount: containers.length,
      containers: [...containers],
    };
  }
}

function pick<T extends object>(src: { [K in keyof T]: T[K] | undefined }): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) if (v !== undefined) out[k] = v;
  return out as T;
}
