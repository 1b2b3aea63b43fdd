// The kubelet's stats summary (statsapi v1alpha1) as the node serves it at
// /stats/summary: field names and nesting exactly as the kubelet's JSON, since
// metrics-server and node tools parse it. Times are RFC 3339 strings. A field
// the agent could not measure is absent, never 0.

export interface CPUStats {
  time: string;
  usageNanoCores?: number;
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface InterfaceStats {
  name: string;
  rxBytes?: number;
  rxErrors?: number;
  txBytes?: number;
  txErrors?: number;
}

/** The default interface's counters inline, every interface in `interfaces`. */
export interface NetworkStats extends Partial<InterfaceStats> {
  time: string;
  interfaces?: InterfaceStats[];
}

export interface FsStats {
  time: string;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}

export interface RuntimeStats {
  imageFs?: FsStats;
  containerFs?: FsStats;
}

export interface RlimitStats {
  time: string;
  maxpid?: number;
  curproc?: number;
}

export interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  rootfs?: FsStats;
  logs?: FsStats;
}

export interface NodeStats {
  nodeName: string;
  systemContainers?: ContainerStats[];
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  fs?: FsStats;
  runtime?: RuntimeStats;
  rlimit?: RlimitStats;
}

export interface PodReference {
  name: string;
  namespace: string;
  uid: string;
}

export interface VolumeStats extends FsStats {
  name: string;
}

export interface PodStats {
  podRef: PodReference;
  startTime: string;
  containers: ContainerStats[];
  cpu?: CPUStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  volume?: VolumeStats[];
  'ephemeral-storage'?: FsStats;
  process_stats?: { process_count?: number };
}

export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

/** What /metrics/cadvisor needs beyond the summary: the runtime's identity of each container. */
export interface ContainerIdentity {
  podUid: string;
  /** The container's name in the pod. */
  container: string;
  /** The runtime's container ID. */
  id: string;
  image: string;
  /** The container's cgroup path below the hierarchy root ('' when not found). */
  cgroup: string;
}

/** One refresh's result. */
export interface StatsSnapshot {
  summary: Summary;
  containers: readonly ContainerIdentity[];
  /** Some source failed during the refresh (the summary holds what the others gave). */
  scrapeError: boolean;
}
