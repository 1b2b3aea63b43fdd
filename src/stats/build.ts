// Assembles the summary from one refresh's readings (collect.ts gathers them).
// Pure: which source wins for each field, and how pod, ephemeral-storage and
// filesystem figures are derived, is decided here and tested with tables.
import type { MemoryUsage } from '../cri/types.js';
import type { InterfaceCounters, MemoryReading } from './parse.js';
import type { ContainerStats, CPUStats, FsStats, MemoryStats, NetworkStats, PodReference, PodStats, Summary, VolumeStats } from './types.js';

/** statfs of a filesystem, in bytes and inodes. */
export interface FsReading {
  capacityBytes: number;
  availableBytes: number;
  usedBytes: number;
  inodes: number;
  inodesFree: number;
}

export interface CpuReading {
  usageCoreNanoSeconds?: number;
  usageNanoCores?: number;
}

/** Bytes and inodes a set of files takes (a writable layer, a log directory, a volume). */
export interface Usage {
  usedBytes: number;
  inodesUsed: number;
}

export interface ContainerRaw {
  name: string;
  startTime: Date;
  time: Date;
  cpu?: CpuReading;
  memory?: MemoryReading;
  rootfs?: Usage;
  logs?: Usage;
}

export interface VolumeRaw {
  name: string;
  usage?: Usage;
  /** The volume's own filesystem (a memory-backed emptyDir); absent: on the root filesystem. */
  fs?: FsReading;
}

export interface NetworkRaw {
  interfaces: InterfaceCounters[];
  /** The interface the kubelet reports inline (eth0 for a pod; the default route's for the node). */
  defaultInterface?: string;
}

export interface PodRaw {
  ref: PodReference;
  startTime: Date;
  time: Date;
  /** Measured for the pod as a whole (sandbox stats or the pod's cgroup); absent: the sum of its containers. */
  cpu?: CpuReading;
  memory?: MemoryReading;
  network?: NetworkRaw;
  processCount?: number;
  volumes: VolumeRaw[];
  containers: ContainerRaw[];
}

export interface NodeRaw {
  nodeName: string;
  startTime: Date;
  time: Date;
  cpu?: CpuReading;
  memory?: MemoryReading;
  /** MemTotal: the node's available memory is this minus the working set. */
  memTotalBytes?: number;
  network?: NetworkRaw;
  maxPid?: number;
  curProc?: number;
  systemContainers: ContainerRaw[];
}

export interface FilesystemsRaw {
  /** --root-dir's filesystem: node fs, logs and ephemeral storage capacity. */
  root?: FsReading;
  /** The image filesystem: statfs of the runtime's image mountpoint, usage from ImageFsInfo. */
  image?: FsReading;
  imageUsage?: Usage;
}

/** Memory from the runtime first, the cgroup filling what it left out (containerd 1.6 reports the working set only). */
export function mergeMemory(cri: MemoryUsage | undefined, cg: MemoryReading | undefined): MemoryReading | undefined {
  if (cri === undefined && cg === undefined) return undefined;
  const out: MemoryReading = { ...cg };
  for (const k of ['usageBytes', 'workingSetBytes', 'rssBytes', 'pageFaults', 'majorPageFaults'] as const) {
    const v = cri?.[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

const iso = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

function cpuStats(time: Date, c: CpuReading | undefined): CPUStats | undefined {
  if (c === undefined || (c.usageCoreNanoSeconds === undefined && c.usageNanoCores === undefined)) return undefined;
  return strip({ time: iso(time), usageNanoCores: c.usageNanoCores, usageCoreNanoSeconds: c.usageCoreNanoSeconds });
}

/** Available memory: limit minus working set when there is a limit (for the node: MemTotal), as cAdvisor reports it. */
function memoryStats(time: Date, m: MemoryReading | undefined, limit?: number): MemoryStats | undefined {
  if (m === undefined) return undefined;
  const cap = m.limitBytes ?? limit;
  const available = cap !== undefined && m.workingSetBytes !== undefined ? Math.max(0, cap - m.workingSetBytes) : undefined;
  return strip({
    time: iso(time),
    availableBytes: available,
    usageBytes: m.usageBytes,
    workingSetBytes: m.workingSetBytes,
    rssBytes: m.rssBytes,
    pageFaults: m.pageFaults,
    majorPageFaults: m.majorPageFaults,
  });
}

function networkStats(time: Date, n: NetworkRaw | undefined): NetworkStats | undefined {
  if (n === undefined || n.interfaces.length === 0) return undefined;
  const interfaces = n.interfaces.map((i) => ({ name: i.name, rxBytes: i.rxBytes, rxErrors: i.rxErrors, txBytes: i.txBytes, txErrors: i.txErrors }));
  const def = interfaces.find((i) => i.name === n.defaultInterface);
  return { time: iso(time), ...def, interfaces };
}

/** A filesystem's figures, with `usage` (what a set of files takes) replacing the whole filesystem's used figures. */
function fsStats(time: Date, fs: FsReading | undefined, usage?: Usage): FsStats | undefined {
  if (fs === undefined && usage === undefined) return undefined;
  return strip({
    time: iso(time),
    availableBytes: fs?.availableBytes,
    capacityBytes: fs?.capacityBytes,
    usedBytes: usage?.usedBytes ?? fs?.usedBytes,
    inodesFree: fs?.inodesFree,
    inodes: fs?.inodes,
    inodesUsed: usage?.inodesUsed ?? (fs === undefined ? undefined : fs.inodes - fs.inodesFree),
  });
}

function containerStats(c: ContainerRaw, fss: FilesystemsRaw, onlyCpuAndMemory: boolean): ContainerStats {
  const out: ContainerStats = { name: c.name, startTime: iso(c.startTime) };
  const cpu = cpuStats(c.time, c.cpu);
  if (cpu !== undefined) out.cpu = cpu;
  const mem = memoryStats(c.time, c.memory);
  if (mem !== undefined) out.memory = mem;
  if (onlyCpuAndMemory) return out;
  if (c.rootfs !== undefined) out.rootfs = fsStats(c.time, fss.image, c.rootfs) as FsStats;
  if (c.logs !== undefined) out.logs = fsStats(c.time, fss.root, c.logs) as FsStats;
  return out;
}

const sum = (xs: ReadonlyArray<number | undefined>): number | undefined => (xs.some((x) => x !== undefined) ? xs.reduce<number>((a, x) => a + (x ?? 0), 0) : undefined);

/** The pod's figures when it was not measured as a whole: its containers' added up (the kubelet's fallback without a pod cgroup). */
export function podTotals(p: PodRaw): { cpu?: CpuReading; memory?: MemoryReading } {
  const cpu = p.cpu ?? strip<CpuReading>({ usageCoreNanoSeconds: sum(p.containers.map((c) => c.cpu?.usageCoreNanoSeconds)), usageNanoCores: sum(p.containers.map((c) => c.cpu?.usageNanoCores)) });
  const memory =
    p.memory ??
    strip<MemoryReading>({
      usageBytes: sum(p.containers.map((c) => c.memory?.usageBytes)),
      workingSetBytes: sum(p.containers.map((c) => c.memory?.workingSetBytes)),
      rssBytes: sum(p.containers.map((c) => c.memory?.rssBytes)),
      pageFaults: sum(p.containers.map((c) => c.memory?.pageFaults)),
      majorPageFaults: sum(p.containers.map((c) => c.memory?.majorPageFaults)),
    });
  return { ...(Object.keys(cpu).length > 0 ? { cpu } : {}), ...(Object.keys(memory).length > 0 ? { memory } : {}) };
}

/** Ephemeral storage as the kubelet counts it: writable layers, logs and volumes on the node's disk. */
function ephemeralStorage(p: PodRaw, fss: FilesystemsRaw): FsStats | undefined {
  const parts: Array<Usage | undefined> = [
    ...p.containers.flatMap((c) => [c.rootfs, c.logs]),
    ...p.volumes.filter((v) => v.fs === undefined).map((v) => v.usage),
  ];
  const used = parts.filter((u): u is Usage => u !== undefined);
  if (used.length === 0) return undefined;
  return fsStats(p.time, fss.root, { usedBytes: used.reduce((a, u) => a + u.usedBytes, 0), inodesUsed: used.reduce((a, u) => a + u.inodesUsed, 0) });
}

function podStats(p: PodRaw, fss: FilesystemsRaw, onlyCpuAndMemory: boolean): PodStats {
  const out: PodStats = { podRef: { ...p.ref }, startTime: iso(p.startTime), containers: p.containers.map((c) => containerStats(c, fss, onlyCpuAndMemory)) };
  const t = podTotals(p);
  const cpu = cpuStats(p.time, t.cpu);
  if (cpu !== undefined) out.cpu = cpu;
  const mem = memoryStats(p.time, t.memory);
  if (mem !== undefined) out.memory = mem;
  if (onlyCpuAndMemory) return out;
  const net = networkStats(p.time, p.network);
  if (net !== undefined) out.network = net;
  const volumes = p.volumes
    .filter((v) => v.usage !== undefined)
    .map((v): VolumeStats => ({ ...(fsStats(p.time, v.fs ?? fss.root, v.usage) as FsStats), name: v.name }));
  if (volumes.length > 0) out.volume = volumes;
  const eph = ephemeralStorage(p, fss);
  if (eph !== undefined) out['ephemeral-storage'] = eph;
  if (p.processCount !== undefined) out.process_stats = { process_count: p.processCount };
  return out;
}

/** The summary of one refresh; `onlyCpuAndMemory` gives the ?only_cpu_and_memory=true view. */
export function buildSummary(node: NodeRaw, pods: readonly PodRaw[], fss: FilesystemsRaw, onlyCpuAndMemory = false): Summary {
  const n: Summary['node'] = { nodeName: node.nodeName, startTime: iso(node.startTime) };
  if (node.systemContainers.length > 0) n.systemContainers = node.systemContainers.map((c) => containerStats(c, fss, true));
  const cpu = cpuStats(node.time, node.cpu);
  if (cpu !== undefined) n.cpu = cpu;
  const mem = memoryStats(node.time, node.memory, node.memTotalBytes);
  if (mem !== undefined) n.memory = mem;
  if (!onlyCpuAndMemory) {
    const net = networkStats(node.time, node.network);
    if (net !== undefined) n.network = net;
    const fs = fsStats(node.time, fss.root);
    if (fs !== undefined) n.fs = fs;
    const imageFs = fsStats(node.time, fss.image, fss.imageUsage);
    if (imageFs !== undefined) n.runtime = { imageFs };
    if (node.maxPid !== undefined || node.curProc !== undefined) n.rlimit = strip({ time: iso(node.time), maxpid: node.maxPid, curproc: node.curProc });
  }
  return { node: n, pods: pods.map((p) => podStats(p, fss, onlyCpuAndMemory)) };
}

/** Drops undefined fields, so absent measurements are absent in the JSON and in deep-equality checks. */
export function strip<T extends object>(o: { [K in keyof T]: T[K] | undefined }): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}
