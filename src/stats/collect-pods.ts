// The pods' readings for one refresh, as the kubelet's CRI stats provider
// gathers them: the runtime's container (and, where served, sandbox) stats
// first, the containers' cgroups for what the runtime leaves out, the pod's
// log directory and emptyDir volumes measured on disk.
import { readlinkSync } from 'node:fs';
import type { Container, ContainerStats as CriContainerStats, PodSandbox, PodSandboxStats } from '../cri/types.js';
import { LABEL_POD_UID } from '../runtime-view/labels.js';
import type { PodWithStatus } from '../status/store.js';
import { EMPTY_DIR_PLUGIN, volumeDir } from '../volumes/paths.js';
import { mergeMemory, type ContainerRaw, type CpuReading, type PodRaw, type Usage, type VolumeRaw } from './build.js';
import { withRate } from './collect-node.js';
import type { CgroupReader } from './cgroup-reader.js';
import { readText, statfsReading, treeUsage, type CgroupLocator } from './files.js';
import { parseNetDev } from './parse.js';
import type { RateCache } from './rates.js';
import type { ContainerIdentity } from './types.js';

export interface RuntimeReadings {
  sandboxes: PodSandbox[];
  containers: Container[];
  containerStats: CriContainerStats[];
  /** undefined when the runtime does not serve ListPodSandboxStats (or it failed). */
  sandboxStats: PodSandboxStats[] | undefined;
}

export interface PodSources {
  rootDir: string;
  podLogsDir: string;
  procRoot: string;
  locator: CgroupLocator;
  cgroups: CgroupReader;
  rates: RateCache;
  pods: readonly PodWithStatus[];
  /** Measures a log directory or a volume on disk; default: a fresh walk each time (files.ts UsageCache caches them). */
  usage?: (dir: string, signal: AbortSignal) => Promise<Usage | undefined>;
}

/** The newest ready sandbox of each pod UID (an older attempt may linger until the sync removes it). */
export function latestSandboxes(sandboxes: readonly PodSandbox[]): PodSandbox[] {
  const byUid = new Map<string, PodSandbox>();
  for (const s of sandboxes) {
    if (s.state !== 'READY') continue;
    const uid = s.metadata.uid !== '' ? s.metadata.uid : (s.labels[LABEL_POD_UID] ?? '');
    const prev = byUid.get(uid);
    if (prev === undefined || s.createdAt > prev.createdAt) byUid.set(uid, s);
  }
  return [...byUid.values()];
}

const nsToDate = (ns: bigint): Date => new Date(Number(ns / 1_000_000n));

export async function collectPods(
  s: PodSources,
  r: RuntimeReadings,
  now: Date,
  signal: AbortSignal,
): Promise<{ pods: PodRaw[]; identities: ContainerIdentity[]; live: Set<string> }> {
  const sandboxes = latestSandboxes(r.sandboxes);
  const running = r.containers.filter((c) => c.state === 'RUNNING' && sandboxes.some((sb) => sb.id === c.podSandboxId));
  const cgroups = await s.locator.locate([...running.map((c) => c.id), ...sandboxes.map((sb) => sb.id)], signal);
  const criById = new Map(r.containerStats.map((c) => [c.id, c]));
  const sbStatsById = new Map((r.sandboxStats ?? []).map((x) => [x.id, x]));
  const statusByUid = new Map(s.pods.map((p) => [p.pod.metadata.uid, p]));
  const ts = BigInt(now.getTime()) * 1_000_000n;
  const live = new Set<string>();
  // The root cgroup is the node's (collect-node.ts reads it through the same reader).
  const liveCgroups = new Set<string>(['']);
  // hostNetwork pods share the node's namespace: its counters are read once per refresh, not once per pod.
  const netByNs = new Map<string, PodRaw['network']>();
  const identities: ContainerIdentity[] = [];
  const pods: PodRaw[] = [];

  for (const sb of sandboxes) {
    // Kernel files are read synchronously (files.ts readText): give the event loop a turn
    // between pods so a refresh of 110 pods is many short stretches, not one long one.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const m = sb.metadata;
    const dir = `${s.podLogsDir}/${m.namespace}_${m.name}_${m.uid}`;
    const containers: ContainerRaw[] = [];
    for (const c of running.filter((x) => x.podSandboxId === sb.id)) {
      const cg = cgroups.get(c.id);
      const cri = criById.get(c.id);
      // containerd reports a container's CPU and working set; usage, rss and faults come from its cgroup.
      const reading = cg === undefined ? undefined : await s.cgroups.read(cg, { cpu: cri?.cpu?.usageCoreNanoSeconds === undefined, memory: !fullMemory(cri?.memory) });
      if (cg !== undefined) liveCgroups.add(cg);
      live.add(c.id);
      identities.push({ podUid: m.uid, container: c.metadata.name, id: c.id, image: c.image, cgroup: cg ?? '' });
      const raw: ContainerRaw = { name: c.metadata.name, startTime: nsToDate(c.createdAt), time: now };
      const criCum = cri?.cpu?.usageCoreNanoSeconds;
      const cpu = cpuOf(s.rates, c.id, criCum !== undefined && cri?.cpu?.timestamp ? cri.cpu.timestamp : ts, criCum ?? reading?.cpuNanos, cri?.cpu?.usageNanoCores);
      if (cpu !== undefined) raw.cpu = cpu;
      const memory = mergeMemory(cri?.memory, reading?.memory);
      if (memory !== undefined) raw.memory = memory;
      if (cri?.writableLayer !== undefined) raw.rootfs = { usedBytes: cri.writableLayer.usedBytes, inodesUsed: cri.writableLayer.inodesUsed };
      const logs = await (s.usage ?? treeUsage)(`${dir}/${c.metadata.name}`, signal);
      if (logs !== undefined) raw.logs = logs;
      containers.push(raw);
    }
    const status = statusByUid.get(m.uid);
    const startTime = status?.status.startTime !== undefined ? new Date(status.status.startTime) : nsToDate(sb.createdAt);
    const pod: PodRaw = { ref: { name: m.name, namespace: m.namespace, uid: m.uid }, startTime, time: now, containers, volumes: await volumesOf(s, status, signal) };
    live.add(`pod:${m.uid}`);
    const sbStats = sbStatsById.get(sb.id);
    const sbCg = cgroups.get(sb.id);
    wholePod(s, pod, sbStats, ts);
    const podCg = sbCg === undefined ? undefined : podCgroupOf(sbCg, m.uid);
    if (podCg !== undefined) liveCgroups.add(podCg);
    if (pod.cpu === undefined && podCg !== undefined) await podFromCgroup(s, pod, podCg, ts);
    if (pod.network === undefined && sbCg !== undefined) {
      liveCgroups.add(sbCg);
      await podNetworkFromPause(s, pod, await s.cgroups.firstPid(sbCg), netByNs);
    }
    pods.push(pod);
  }
  s.cgroups.retain(liveCgroups);
  return { pods, identities, live };
}

function cpuOf(rates: RateCache, key: string, ts: bigint, cumulative: number | undefined, runtimeRate: number | undefined): CpuReading | undefined {
  if (cumulative === undefined) return runtimeRate === undefined ? undefined : { usageNanoCores: runtimeRate };
  const derived = rates.update(key, { timestampNs: ts, usageCoreNanoSeconds: cumulative });
  // The kubelet takes the runtime's own rate when it reports one, and derives it from two samples otherwise.
  return withRate({ usageCoreNanoSeconds: cumulative }, runtimeRate ?? derived);
}

/** Pod-level figures from the runtime's sandbox stats, when it serves them. */
function wholePod(s: PodSources, pod: PodRaw, sb: PodSandboxStats | undefined, ts: bigint): void {
  if (sb === undefined) return;
  const cpu = cpuOf(s.rates, `pod:${pod.ref.uid}`, sb.cpu?.timestamp ? sb.cpu.timestamp : ts, sb.cpu?.usageCoreNanoSeconds, sb.cpu?.usageNanoCores);
  if (cpu !== undefined) pod.cpu = cpu;
  const memory = mergeMemory(sb.memory, undefined);
  if (memory !== undefined && Object.keys(memory).length > 0) pod.memory = memory;
  const n = sb.network;
  if (n !== undefined) {
    const all = [...(n.defaultInterface === undefined ? [] : [n.defaultInterface]), ...n.interfaces];
    const interfaces = all.map((i) => ({ name: i.name, rxBytes: i.rxBytes ?? 0, rxErrors: i.rxErrors ?? 0, txBytes: i.txBytes ?? 0, txErrors: i.txErrors ?? 0 }));
    if (interfaces.length > 0) pod.network = n.defaultInterface === undefined ? { interfaces } : { interfaces, defaultInterface: n.defaultInterface.name };
  }
  if (sb.processCount !== undefined) pod.processCount = sb.processCount;
}

/**
 * The pod's own cgroup: the parent of its sandbox's when that is named
 * `pod<uid>` (the agent makes one for --pod-max-pids, and the runtime then
 * puts the sandbox and every container below it). Pure.
 */
export function podCgroupOf(sandboxCgroup: string, uid: string): string | undefined {
  const parent = sandboxCgroup.slice(0, sandboxCgroup.lastIndexOf('/'));
  return uid !== '' && parent.endsWith(`/pod${uid}`) ? parent : undefined;
}

/** Pod-level figures from the pod's cgroup (pause process included), as the kubelet reads its pod cgroups. */
async function podFromCgroup(s: PodSources, pod: PodRaw, cg: string, ts: bigint): Promise<void> {
  const r = await s.cgroups.read(cg, { cpu: true, memory: true });
  if (r === undefined) return;
  const cpu = cpuOf(s.rates, `pod:${pod.ref.uid}`, ts, r.cpuNanos, undefined);
  if (cpu !== undefined) pod.cpu = cpu;
  if (pod.memory === undefined && r.memory.usageBytes !== undefined) pod.memory = r.memory;
}

/** Without sandbox stats: the pause process's network namespace counters (what cAdvisor reads for the kubelet). */
async function podNetworkFromPause(s: PodSources, pod: PodRaw, pid: number | undefined, byNs: Map<string, PodRaw['network']>): Promise<void> {
  if (pid === undefined) return;
  const ns = netNamespaceOf(s.procRoot, pid);
  if (ns !== undefined && byNs.has(ns)) {
    const known = byNs.get(ns);
    if (known !== undefined) pod.network = known;
    return;
  }
  const interfaces = parseNetDev((await readText(`${s.procRoot}/${pid}/net/dev`)) ?? '');
  const network = interfaces.length > 0 ? { interfaces, defaultInterface: 'eth0' } : undefined;
  if (ns !== undefined) byNs.set(ns, network);
  if (network !== undefined) pod.network = network;
}

/** The process's network namespace (`net:[inode]`); undefined where /proc does not say (then nothing is shared). */
function netNamespaceOf(procRoot: string, pid: number): string | undefined {
  try {
    return readlinkSync(`${procRoot}/${pid}/ns/net`);
  } catch {
    return undefined;
  }
}

/** Whether the runtime reported every memory figure the summary shows (then the cgroup is read for the limit alone). */
function fullMemory(m: CriContainerStats['memory']): boolean {
  return m?.usageBytes !== undefined && m.workingSetBytes !== undefined && m.rssBytes !== undefined && m.pageFaults !== undefined && m.majorPageFaults !== undefined;
}

/** emptyDir volumes measured on disk; a memory-backed one reports its tmpfs. */
async function volumesOf(s: PodSources, p: PodWithStatus | undefined, signal: AbortSignal): Promise<VolumeRaw[]> {
  const out: VolumeRaw[] = [];
  for (const v of p?.pod.spec.volumes ?? []) {
    if (v.emptyDir === undefined) continue;
    const dir = volumeDir(s.rootDir, p?.pod.metadata.uid ?? '', EMPTY_DIR_PLUGIN, v.name);
    if (v.emptyDir.medium === 'Memory') {
      const fs = await statfsReading(dir);
      if (fs !== undefined) out.push({ name: v.name, fs, usage: { usedBytes: fs.usedBytes, inodesUsed: fs.inodes - fs.inodesFree } });
      continue;
    }
    const usage = await (s.usage ?? treeUsage)(dir, signal);
    if (usage !== undefined) out.push({ name: v.name, usage });
  }
  return out;
}
