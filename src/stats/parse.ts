// Parsers of the kernel files the stats come from (/proc and cgroup v1).
// Pure: each takes the file's text and returns numbers, or undefined for a
// field the text lacks, so a kernel without a field leaves it unreported
// rather than failing the whole refresh.

/** `key value` lines (memory.stat, cpu.stat): every integer value by key. */
export function parseKeyValues(text: string): Map<string, number> {
  // Scanned by hand: memory.stat is ~35 lines, read for every pod and container each refresh.
  const out = new Map<string, number>();
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const sp = text.indexOf(' ', at);
    if (sp > at && sp < end) {
      const value = text.slice(sp + 1, end).trim();
      if (value !== '' && isDigits(value)) out.set(text.slice(at, sp), Number(value));
    }
    at = end + 1;
  }
  return out;
}

function isDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** One integer file (cpuacct.usage, memory.usage_in_bytes, pid_max). */
export function parseInteger(text: string): number | undefined {
  const t = text.trim();
  return /^\d+$/.test(t) ? Number(t) : undefined;
}

/** cgroup v1 reports "no limit" as a page-aligned value near 2^63; anything this large is no limit. */
export const UNLIMITED_THRESHOLD = 2 ** 60;

export interface MemoryReading {
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
  /** The limit, when there is one. */
  limitBytes?: number;
}

/**
 * cAdvisor's reading of a v1 memory cgroup: working set = usage minus the
 * inactive file cache (floored at 0), rss = total_rss, faults from
 * total_pgfault / total_pgmajfault.
 */
export function memoryFromCgroupV1(files: { usage?: string; stat?: string; limit?: string }): MemoryReading {
  const usage = files.usage === undefined ? undefined : parseInteger(files.usage);
  const stat = parseKeyValues(files.stat ?? '');
  const inactive = stat.get('total_inactive_file');
  const limit = files.limit === undefined ? undefined : parseInteger(files.limit);
  const out: MemoryReading = {};
  if (usage !== undefined) {
    out.usageBytes = usage;
    out.workingSetBytes = inactive === undefined ? usage : Math.max(0, usage - inactive);
  }
  const rss = stat.get('total_rss');
  if (rss !== undefined) out.rssBytes = rss;
  const pf = stat.get('total_pgfault');
  if (pf !== undefined) out.pageFaults = pf;
  const mpf = stat.get('total_pgmajfault');
  if (mpf !== undefined) out.majorPageFaults = mpf;
  if (limit !== undefined && limit < UNLIMITED_THRESHOLD) out.limitBytes = limit;
  return out;
}

/** cgroup v2's reading of the same figures: memory.current, memory.stat's inactive_file, anon, pgfault, pgmajfault, memory.max. */
export function memoryFromCgroupV2(files: { current?: string; stat?: string; max?: string }): MemoryReading {
  const usage = files.current === undefined ? undefined : parseInteger(files.current);
  const stat = parseKeyValues(files.stat ?? '');
  const inactive = stat.get('inactive_file');
  const limit = files.max === undefined ? undefined : parseInteger(files.max);
  const out: MemoryReading = {};
  if (usage !== undefined) {
    out.usageBytes = usage;
    out.workingSetBytes = inactive === undefined ? usage : Math.max(0, usage - inactive);
  }
  const rss = stat.get('anon');
  if (rss !== undefined) out.rssBytes = rss;
  const pf = stat.get('pgfault');
  if (pf !== undefined) out.pageFaults = pf;
  const mpf = stat.get('pgmajfault');
  if (mpf !== undefined) out.majorPageFaults = mpf;
  if (limit !== undefined && limit < UNLIMITED_THRESHOLD) out.limitBytes = limit;
  return out;
}

/** cgroup v2's cpu.stat usage_usec, in ns. */
export function cpuNanosFromCgroupV2(stat: string): number | undefined {
  const us = parseKeyValues(stat).get('usage_usec');
  return us === undefined ? undefined : us * 1000;
}

/** USER_HZ: /proc/stat counts in 1/100 s on every Linux architecture the agent runs on. */
const NS_PER_TICK = 10_000_000;

/** /proc/stat's aggregate `cpu` line: busy time (all but idle and iowait) in ns. */
export function cpuNanosFromProcStat(text: string): number | undefined {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (line === undefined) return undefined;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  if (f.length < 4 || f.some((x) => !Number.isFinite(x))) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is already in user).
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = f;
  return (user + nice + system + irq + softirq + steal) * NS_PER_TICK;
}

/** /proc/meminfo in bytes by key (the file says kB). */
export function parseMeminfo(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([\w()]+):\s+(\d+)(?:\s+kB)?\s*$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined) out.set(m[1], Number(m[2]) * (line.includes('kB') ? 1024 : 1));
  }
  return out;
}

export interface InterfaceCounters {
  name: string;
  rxBytes: number;
  rxErrors: number;
  txBytes: number;
  txErrors: number;
}

/** Interfaces cAdvisor leaves out of a network namespace's counters: loopback and the host ends of container links. */
const IGNORED_INTERFACE = /^(lo$|veth|docker|nerdctl)/;

/** /proc/net/dev (or /proc/<pid>/net/dev): every interface cAdvisor counts (not loopback, veth, docker or nerdctl ones). */
export function parseNetDev(text: string): InterfaceCounters[] {
  const out: InterfaceCounters[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([^:\s]+):\s*(.*)$/.exec(line);
    if (m?.[1] === undefined || m[2] === undefined || IGNORED_INTERFACE.test(m[1])) continue;
    const f = m[2].trim().split(/\s+/).map(Number);
    if (f.length < 16 || f.some((x) => !Number.isFinite(x))) continue;
    // receive: bytes packets errs drop fifo frame compressed multicast; transmit: bytes packets errs ...
    out.push({ name: m[1], rxBytes: f[0] ?? 0, rxErrors: f[2] ?? 0, txBytes: f[8] ?? 0, txErrors: f[10] ?? 0 });
  }
  return out;
}

/** /proc/net/route: the interface of the default route (destination 0), if any. */
export function defaultRouteInterface(text: string): string | undefined {
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 8 && f[1] === '00000000' && f[7] === '00000000') return f[0];
  }
  return undefined;
}

/** /proc/loadavg's 4th field `running/total`: the total number of tasks (what sysinfo's procs counts). */
export function tasksFromLoadavg(text: string): number | undefined {
  const m = /^\S+\s+\S+\s+\S+\s+\d+\/(\d+)\s/.exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** /proc/<pid>/stat: utime + stime in ns (fields 14 and 15, counted after the parenthesised command name). */
export function processCpuNanos(text: string): number | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const f = text.slice(close + 2).trim().split(/\s+/);
  const utime = Number(f[11]);
  const stime = Number(f[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) * NS_PER_TICK : undefined;
}

/** /proc/<pid>/status VmRSS in bytes. */
export function processRssBytes(text: string): number | undefined {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]) * 1024;
}
