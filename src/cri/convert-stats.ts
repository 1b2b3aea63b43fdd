// issue 18 F: stats. Wire <-> domain conversions of ListContainerStats and
// ListPodSandboxStats. An unset UInt64Value stays absent (the runtime did not
// measure it), which the summary must not confuse with a measured 0.
import { copyMap, fromInt64, toInt64 } from './convert-config.js';
import { decodeFilesystemUsage, encodeFilesystemUsage } from './convert-status.js';
import type {
  ContainerStats,
  ContainerStatsFilter,
  CpuUsage,
  MemoryUsage,
  NetworkInterfaceUsage,
  PodSandboxStats,
  PodSandboxStatsFilter,
} from './types.js';
import type {
  WContainerStats,
  WContainerStatsFilter,
  WCpuUsage,
  WMemoryUsage,
  WNetworkInterfaceUsage,
  WPodSandboxStats,
  WPodSandboxStatsFilter,
  WUInt64Value,
} from './wire.js';

const u64 = (v: WUInt64Value | null): number | undefined => (v === null ? undefined : fromInt64(v.value));
const w64 = (n: number | undefined, what: string): WUInt64Value | null => (n === undefined ? null : { value: toInt64(n, what) });

/** Copies the defined entries of `src` (optional fields stay absent rather than `undefined`, for exactOptionalPropertyTypes-style equality). */
function defined<T extends object>(src: { [K in keyof T]: T[K] | undefined }): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) if (v !== undefined) out[k] = v;
  return out as T;
}

function decodeCpu(w: WCpuUsage | null): CpuUsage | undefined {
  if (w === null) return undefined;
  return defined<CpuUsage>({ timestamp: w.timestamp, usageCoreNanoSeconds: u64(w.usageCoreNanoSeconds), usageNanoCores: u64(w.usageNanoCores) });
}

function encodeCpu(c: CpuUsage | undefined): WCpuUsage | null {
  if (c === undefined) return null;
  return { timestamp: c.timestamp, usageCoreNanoSeconds: w64(c.usageCoreNanoSeconds, 'usageCoreNanoSeconds'), usageNanoCores: w64(c.usageNanoCores, 'usageNanoCores') };
}

function decodeMemory(w: WMemoryUsage | null): MemoryUsage | undefined {
  if (w === null) return undefined;
  return defined<MemoryUsage>({
    timestamp: w.timestamp,
    workingSetBytes: u64(w.workingSetBytes),
    availableBytes: u64(w.availableBytes),
    usageBytes: u64(w.usageBytes),
    rssBytes: u64(w.rssBytes),
    pageFaults: u64(w.pageFaults),
    majorPageFaults: u64(w.majorPageFaults),
  });
}

function encodeMemory(m: MemoryUsage | undefined): WMemoryUsage | null {
  if (m === undefined) return null;
  return {
    timestamp: m.timestamp,
    workingSetBytes: w64(m.workingSetBytes, 'workingSetBytes'),
    availableBytes: w64(m.availableBytes, 'availableBytes'),
    usageBytes: w64(m.usageBytes, 'usageBytes'),
    rssBytes: w64(m.rssBytes, 'rssBytes'),
    pageFaults: w64(m.pageFaults, 'pageFaults'),
    majorPageFaults: w64(m.majorPageFaults, 'majorPageFaults'),
  };
}

export function decodeContainerStats(w: WContainerStats): ContainerStats {
  const a = w.attributes;
  return defined<ContainerStats>({
    id: a?.id ?? '',
    metadata: { name: a?.metadata?.name ?? '', attempt: a?.metadata?.attempt ?? 0 },
    labels: copyMap(a?.labels),
    annotations: copyMap(a?.annotations),
    cpu: decodeCpu(w.cpu),
    memory: decodeMemory(w.memory),
    writableLayer: w.writableLayer === null ? undefined : decodeFilesystemUsage(w.writableLayer),
  });
}

export function encodeContainerStats(s: ContainerStats): WContainerStats {
  return {
    attributes: { id: s.id, metadata: { ...s.metadata }, labels: copyMap(s.labels), annotations: copyMap(s.annotations) },
    cpu: encodeCpu(s.cpu),
    memory: encodeMemory(s.memory),
    writableLayer: s.writableLayer === undefined ? null : encodeFilesystemUsage(s.writableLayer, s.cpu?.timestamp ?? 0n),
  };
}

function decodeIface(w: WNetworkInterfaceUsage): NetworkInterfaceUsage {
  return defined<NetworkInterfaceUsage>({ name: w.name, rxBytes: u64(w.rxBytes), rxErrors: u64(w.rxErrors), txBytes: u64(w.txBytes), txErrors: u64(w.txErrors) });
}

function encodeIface(i: NetworkInterfaceUsage): WNetworkInterfaceUsage {
  return { name: i.name, rxBytes: w64(i.rxBytes, 'rxBytes'), rxErrors: w64(i.rxErrors, 'rxErrors'), txBytes: w64(i.txBytes, 'txBytes'), txErrors: w64(i.txErrors, 'txErrors') };
}

export function decodePodSandboxStats(w: WPodSandboxStats): PodSandboxStats {
  const a = w.attributes;
  const l = w.linux;
  const net = l?.network ?? null;
  return defined<PodSandboxStats>({
    id: a?.id ?? '',
    metadata: { name: a?.metadata?.name ?? '', uid: a?.metadata?.uid ?? '', namespace: a?.metadata?.namespace ?? '', attempt: a?.metadata?.attempt ?? 0 },
    labels: copyMap(a?.labels),
    annotations: copyMap(a?.annotations),
    cpu: decodeCpu(l?.cpu ?? null),
    memory: decodeMemory(l?.memory ?? null),
    network:
      net === null
        ? undefined
        : defined({ timestamp: net.timestamp, defaultInterface: net.defaultInterface === null ? undefined : decodeIface(net.defaultInterface), interfaces: net.interfaces.map(decodeIface) }),
    processCount: u64(l?.process?.processCount ?? null),
    containers: (l?.containers ?? []).map(decodeContainerStats),
  });
}

export function encodePodSandboxStats(s: PodSandboxStats): WPodSandboxStats {
  const n = s.network;
  return {
    attributes: { id: s.id, metadata: { ...s.metadata }, labels: copyMap(s.labels), annotations: copyMap(s.annotations) },
    linux: {
      cpu: encodeCpu(s.cpu),
      memory: encodeMemory(s.memory),
      network:
        n === undefined
          ? null
          : { timestamp: n.timestamp, defaultInterface: n.defaultInterface === undefined ? null : encodeIface(n.defaultInterface), interfaces: n.interfaces.map(encodeIface) },
      process: s.processCount === undefined ? null : { timestamp: s.cpu?.timestamp ?? 0n, processCount: w64(s.processCount, 'processCount') },
      containers: s.containers.map(encodeContainerStats),
    },
  };
}

export function encodeContainerStatsFilter(f: ContainerStatsFilter | undefined): WContainerStatsFilter | null {
  if (f === undefined) return null;
  return { id: f.id ?? '', podSandboxId: f.podSandboxId ?? '', labelSelector: copyMap(f.labelSelector) };
}

export function decodeContainerStatsFilter(w: WContainerStatsFilter | null): ContainerStatsFilter | undefined {
  if (w === null) return undefined;
  return defined<ContainerStatsFilter>({
    id: w.id === '' ? undefined : w.id,
    podSandboxId: w.podSandboxId === '' ? undefined : w.podSandboxId,
    labelSelector: Object.keys(w.labelSelector).length === 0 ? undefined : copyMap(w.labelSelector),
  });
}

export function encodePodSandboxStatsFilter(f: PodSandboxStatsFilter | undefined): WPodSandboxStatsFilter | null {
  if (f === undefined) return null;
  return { id: f.id ?? '', labelSelector: copyMap(f.labelSelector) };
}

export function decodePodSandboxStatsFilter(w: WPodSandboxStatsFilter | null): PodSandboxStatsFilter | undefined {
  if (w === null) return undefined;
  return defined<PodSandboxStatsFilter>({
    id: w.id === '' ? undefined : w.id,
    labelSelector: Object.keys(w.labelSelector).length === 0 ? undefined : copyMap(w.labelSelector),
  });
}
