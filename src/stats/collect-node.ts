// The node's own readings for one refresh: CPU and memory of the root cgroup
// (/proc when the cgroup files are absent), network counters, boot time,
// PID limits, and the agent process as a system container.
import type { ContainerRaw, CpuReading, NodeRaw } from './build.js';
import type { CgroupReader } from './cgroup-reader.js';
import { readText } from './files.js';
import {
  cpuNanosFromProcStat,
  defaultRouteInterface,
  parseInteger,
  parseMeminfo,
  parseNetDev,
  processCpuNanos,
  processRssBytes,
  tasksFromLoadavg,
  type MemoryReading,
} from './parse.js';
import type { RateCache } from './rates.js';

export interface NodeSources {
  nodeName: string;
  /** /proc (a fixture directory in tests). */
  procRoot: string;
  /** The cgroup mount's reader (/sys/fs/cgroup); the root cgroup ('') is the node's. */
  cgroups: CgroupReader;
  rates: RateCache;
  /** When the agent process started. */
  agentStart: Date;
}

/** System container name of the agent process (the kubelet's "kubelet"). */
export const AGENT_SYSTEM_CONTAINER = 'agent';

export async function collectNode(s: NodeSources, now: Date): Promise<{ node: NodeRaw; errors: string[] }> {
  const errors: string[] = [];
  const p = s.procRoot;
  const [procStat, meminfo, netDev, route, pidMax, loadavg, selfStat, selfStatus, rootCg] = await Promise.all([
    readText(`${p}/stat`),
    readText(`${p}/meminfo`),
    readText(`${p}/net/dev`),
    readText(`${p}/net/route`),
    readText(`${p}/sys/kernel/pid_max`),
    readText(`${p}/loadavg`),
    readText(`${p}/self/stat`),
    readText(`${p}/self/status`),
    s.cgroups.read('', { cpu: true, memory: true }),
  ]);
  const ts = BigInt(now.getTime()) * 1_000_000n;
  const mem = parseMeminfo(meminfo ?? '');
  const memTotal = mem.get('MemTotal');

  const cpuNs = rootCg?.cpuNanos ?? cpuNanosFromProcStat(procStat ?? '');
  let cpu: CpuReading | undefined;
  if (cpuNs !== undefined) cpu = withRate({ usageCoreNanoSeconds: cpuNs }, s.rates.update('node', { timestampNs: ts, usageCoreNanoSeconds: cpuNs }));
  else errors.push('node cpu: neither cpuacct.usage nor /proc/stat readable');

  let memory: MemoryReading | undefined = rootCg?.memory.usageBytes !== undefined ? { ...rootCg.memory } : undefined;
  if (memory === undefined && memTotal !== undefined) {
    const free = mem.get('MemFree');
    const available = mem.get('MemAvailable');
    memory = {};
    if (free !== undefined) memory.usageBytes = memTotal - free;
    if (available !== undefined) memory.workingSetBytes = memTotal - available;
  }
  if (memory === undefined) errors.push('node memory: neither the memory cgroup nor /proc/meminfo readable');
  // The root cgroup has no limit of its own; MemTotal is the node's.
  if (memory !== undefined) delete memory.limitBytes;

  const btime = /^btime\s+(\d+)/m.exec(procStat ?? '')?.[1];
  const node: NodeRaw = {
    nodeName: s.nodeName,
    startTime: btime === undefined ? s.agentStart : new Date(Number(btime) * 1000),
    time: now,
    systemContainers: [agentContainer(s, now, ts, selfStat, selfStatus)],
  };
  if (cpu !== undefined) node.cpu = cpu;
  if (memory !== undefined) node.memory = memory;
  if (memTotal !== undefined) node.memTotalBytes = memTotal;
  const interfaces = parseNetDev(netDev ?? '');
  if (interfaces.length > 0) {
    const def = defaultRouteInterface(route ?? '') ?? interfaces[0]?.name;
    node.network = def === undefined ? { interfaces } : { interfaces, defaultInterface: def };
  }
  const maxPid = parseInteger(pidMax ?? '');
  if (maxPid !== undefined) node.maxPid = maxPid;
  const curProc = tasksFromLoadavg(loadavg ?? '');
  if (curProc !== undefined) node.curProc = curProc;
  return { node, errors };
}

function agentContainer(s: NodeSources, now: Date, ts: bigint, stat: string | undefined, status: string | undefined): ContainerRaw {
  const c: ContainerRaw = { name: AGENT_SYSTEM_CONTAINER, startTime: s.agentStart, time: now };
  const cpuNs = processCpuNanos(stat ?? '');
  if (cpuNs !== undefined) c.cpu = withRate({ usageCoreNanoSeconds: cpuNs }, s.rates.update(`system:${AGENT_SYSTEM_CONTAINER}`, { timestampNs: ts, usageCoreNanoSeconds: cpuNs }));
  const rss = processRssBytes(status ?? '');
  if (rss !== undefined) c.memory = { usageBytes: rss, workingSetBytes: rss, rssBytes: rss };
  return c;
}

export function withRate(c: CpuReading, rate: number | undefined): CpuReading {
  return rate === undefined ? c : { ...c, usageNanoCores: rate };
}
