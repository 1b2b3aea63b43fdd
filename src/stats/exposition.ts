// /metrics/resource and /metrics/cadvisor as Prometheus text exposition
// (format 0.0.4), rendered from the last stats snapshot. Pure. Samples carry
// the time they were measured (ms), as the kubelet's resource metrics and
// cAdvisor's do, so a scraper never mistakes a 10 s old reading for a new one.
import type { ContainerIdentity, CPUStats, MemoryStats, StatsSnapshot, Summary } from './types.js';
import { compareStrings } from '../util/compare.js';

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

interface Sample {
  labels: ReadonlyArray<readonly [string, string]>;
  value: number;
  /** ms since the epoch; absent: no timestamp. */
  timeMs?: number;
}

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  samples: Sample[];
}

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** The text of `families`; a family without samples still gets its HELP and TYPE (as client_golang writes none: left out). */
export function renderFamilies(families: readonly Family[]): string {
  const out: string[] = [];
  for (const f of families) {
    if (f.samples.length === 0) continue;
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) {
      // Sorted by name, as client_golang writes them (tools diffing scrapes rely on it).
      const sorted = [...s.labels].sort(([a], [b]) => compareStrings(a, b));
      const labels = sorted.length === 0 ? '' : `{${sorted.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
      out.push(`${f.name}${labels} ${formatValue(s.value)}${s.timeMs === undefined ? '' : ` ${s.timeMs}`}`);
    }
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

const ms = (t: string): number => Date.parse(t);
const cpuSeconds = (c: CPUStats | undefined): number | undefined => (c?.usageCoreNanoSeconds === undefined ? undefined : c.usageCoreNanoSeconds / 1e9);

function push(f: Family, labels: Sample['labels'], value: number | undefined, time: string | undefined): void {
  if (value === undefined) return;
  f.samples.push(time === undefined ? { labels, value } : { labels, value, timeMs: ms(time) });
}

/** The kubelet's resource metrics (what metrics-server scrapes). */
export function resourceMetrics(summary: Summary | undefined, scrapeError: boolean): string {
  const fam = (name: string, help: string, type: Family['type']): Family => ({ name, help, type, samples: [] });
  const nodeCpu = fam('node_cpu_usage_seconds_total', '[STABLE] Cumulative cpu time consumed by the node in core-seconds', 'counter');
  const nodeMem = fam('node_memory_working_set_bytes', '[STABLE] Current working set of the node in bytes', 'gauge');
  const ctrCpu = fam('container_cpu_usage_seconds_total', '[STABLE] Cumulative cpu time consumed by the container in core-seconds', 'counter');
  const ctrMem = fam('container_memory_working_set_bytes', '[STABLE] Current working set of the container in bytes', 'gauge');
  const ctrStart = fam('container_start_time_seconds', '[STABLE] Start time of the container since unix epoch in seconds', 'gauge');
  const podCpu = fam('pod_cpu_usage_seconds_total', '[STABLE] Cumulative cpu time consumed by the pod in core-seconds', 'counter');
  const podMem = fam('pod_memory_working_set_bytes', '[STABLE] Current working set of the pod in bytes', 'gauge');
  const scrape = fam('scrape_error', '[ALPHA] 1 if there was an error while getting container metrics, 0 otherwise', 'gauge');
  if (summary !== undefined) {
    const n = summary.node;
    push(nodeCpu, [], cpuSeconds(n.cpu), n.cpu?.time);
    push(nodeMem, [], n.memory?.workingSetBytes, n.memory?.time);
    for (const p of summary.pods) {
      const pl: Array<[string, string]> = [['namespace', p.podRef.namespace], ['pod', p.podRef.name]];
      for (const c of p.containers) {
        const cl: Array<[string, string]> = [['container', c.name], ...pl];
        push(ctrCpu, cl, cpuSeconds(c.cpu), c.cpu?.time);
        push(ctrMem, cl, c.memory?.workingSetBytes, c.memory?.time);
        push(ctrStart, cl, Date.parse(c.startTime) / 1000, c.cpu?.time);
      }
      push(podCpu, pl, cpuSeconds(p.cpu), p.cpu?.time);
      push(podMem, pl, p.memory?.workingSetBytes, p.memory?.time);
    }
  }
  scrape.samples.push({ labels: [], value: summary === undefined || scrapeError ? 1 : 0 });
  return renderFamilies([ctrCpu, ctrMem, ctrStart, nodeCpu, nodeMem, podCpu, podMem, scrape]);
}

type Labels = Array<[string, string]>;

/** cAdvisor's label set of a container row: container, id (cgroup path), image, name (runtime ID), namespace, pod. */
function cadvisorLabels(c: { container: string; id: string; image: string; name: string; namespace: string; pod: string }): Labels {
  return [['container', c.container], ['id', c.id], ['image', c.image], ['name', c.name], ['namespace', c.namespace], ['pod', c.pod]];
}

/** The cAdvisor container_* families the summary's figures support, for the node's root cgroup and each container. */
export function cadvisorMetrics(snap: StatsSnapshot | undefined): string {
  const fam = (name: string, help: string, type: Family['type']): Family => ({ name, help, type, samples: [] });
  const cpu = fam('container_cpu_usage_seconds_total', 'Cumulative cpu time consumed in seconds.', 'counter');
  const ws = fam('container_memory_working_set_bytes', 'Current working set in bytes.', 'gauge');
  const usage = fam('container_memory_usage_bytes', 'Current memory usage in bytes, including all memory regardless of when it was accessed', 'gauge');
  const rss = fam('container_memory_rss', 'Size of RSS in bytes.', 'gauge');
  const faults = fam('container_memory_failures_total', 'Cumulative count of memory allocation failures.', 'counter');
  const fsUsage = fam('container_fs_usage_bytes', 'Number of bytes that are consumed by the container on this filesystem.', 'gauge');
  // cAdvisor's container_fs_inodes_total is a gauge named like a counter, which promtool refuses: left out.
  const fsLimit = fam('container_fs_limit_bytes', 'Number of bytes that can be consumed by the container on this filesystem.', 'gauge');
  const rx = fam('container_network_receive_bytes_total', 'Cumulative count of bytes received', 'counter');
  const rxErr = fam('container_network_receive_errors_total', 'Cumulative count of errors encountered while receiving', 'counter');
  const tx = fam('container_network_transmit_bytes_total', 'Cumulative count of bytes transmitted', 'counter');
  const txErr = fam('container_network_transmit_errors_total', 'Cumulative count of errors encountered while transmitting', 'counter');
  const start = fam('container_start_time_seconds', 'Start time of the container since unix epoch in seconds.', 'gauge');
  const scrape = fam('container_scrape_error', '1 if there was an error while getting container metrics, 0 otherwise', 'gauge');

  const memRows = (l: Labels, m: MemoryStats | undefined): void => {
    push(ws, l, m?.workingSetBytes, m?.time);
    push(usage, l, m?.usageBytes, m?.time);
    push(rss, l, m?.rssBytes, m?.time);
    push(faults, [...l, ['failure_type', 'pgfault'], ['scope', 'container']], m?.pageFaults, m?.time);
    push(faults, [...l, ['failure_type', 'pgmajfault'], ['scope', 'container']], m?.majorPageFaults, m?.time);
  };
  if (snap !== undefined) {
    const n = snap.summary.node;
    const root = cadvisorLabels({ container: '', id: '/', image: '', name: '', namespace: '', pod: '' });
    push(cpu, [...root.slice(0, 1), ['cpu', 'total'], ...root.slice(1)], cpuSeconds(n.cpu), n.cpu?.time);
    memRows(root, n.memory);
    push(start, root, Date.parse(n.startTime) / 1000, undefined);
    for (const i of n.network?.interfaces ?? []) {
      const l: Labels = [...root.slice(0, 2), ['image', ''], ['interface', i.name], ...root.slice(3)];
      push(rx, l, i.rxBytes, n.network?.time);
      push(rxErr, l, i.rxErrors, n.network?.time);
      push(tx, l, i.txBytes, n.network?.time);
      push(txErr, l, i.txErrors, n.network?.time);
    }
    const ids = new Map<string, ContainerIdentity>(snap.containers.map((c) => [`${c.podUid}/${c.container}`, c]));
    for (const p of snap.summary.pods) {
      for (const c of p.containers) {
        const ident = ids.get(`${p.podRef.uid}/${c.name}`);
        const l = cadvisorLabels({ container: c.name, id: ident?.cgroup || `/${ident?.id ?? ''}`, image: ident?.image ?? '', name: ident?.id ?? '', namespace: p.podRef.namespace, pod: p.podRef.name });
        push(cpu, [l[0] as [string, string], ['cpu', 'total'], ...l.slice(1)], cpuSeconds(c.cpu), c.cpu?.time);
        memRows(l, c.memory);
        push(fsUsage, [l[0] as [string, string], ['device', ''], ...l.slice(1)], c.rootfs?.usedBytes, c.rootfs?.time);
        push(fsLimit, [l[0] as [string, string], ['device', ''], ...l.slice(1)], c.rootfs?.capacityBytes, c.rootfs?.time);
        push(start, l, Date.parse(c.startTime) / 1000, undefined);
      }
    }
  }
  scrape.samples.push({ labels: [], value: snap === undefined || snap.scrapeError ? 1 : 0 });
  return renderFamilies([cpu, fsLimit, fsUsage, faults, rss, usage, ws, rx, rxErr, tx, txErr, scrape, start]);
}
