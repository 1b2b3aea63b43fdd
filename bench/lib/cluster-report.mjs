// bench/cluster.mjs's verdicts and table: pure functions of the run's raw
// records (no I/O), so the report can be re-rendered from the JSON's `raw`.
import { machineLine, round3, table } from './common.mjs';
import { counterDelta } from './prom-text.mjs';

export const TARGETS = { batchFactor: 1.15, requestsPerMinute: 8, cpuPercent: 2, rssMB: 90 };
/** The issue's kubelet 1.20 figures on these machines, at 110 pods. */
export const PEER = { name: 'kubelet 1.20 (issue 19)', cpuPercent: 7.8, rssMB: 110, leaseEveryS: 10 };

export const byteProxyNote = 'a TCP proxy on 127.0.0.1 inside the benchmark between the agent and the server: TLS passes through unchanged; bytes counted each way (agent->server "up", server->agent "down") and connections accepted';

const min = (xs, key) => xs.reduce((b, x) => (b === undefined || x[key] < b[key] ? x : b), undefined);
const median = (xs) => {
  const a = [...xs].sort((x, y) => x - y);
  const m = Math.floor((a.length - 1) / 2);
  return a.length === 0 ? NaN : a.length % 2 === 1 ? a[m] : (a[m] + a[m + 1]) / 2;
};

function steadySummary(sd) {
  const perMin = (n) => round3(n / (sd.windowS / 60));
  const byMethodCode = counterDelta(sd.clientMetric.before, sd.clientMetric.after, (l) => `${l.method} ${l.code}`);
  const clientTotal = Object.values(byMethodCode).reduce((a, b) => a + b, 0);
  const p0 = sd.proxy.before;
  const p1 = sd.proxy.after;
  const up = p1.up - p0.up;
  const down = p1.down - p0.down;
  const leasePuts = sd.serverLog.byKind['PUT leases'] ?? 0;
  return {
    windowS: sd.windowS,
    client: { total: clientTotal, perMinute: perMin(clientTotal), byMethodCode },
    server: { total: sd.serverLog.count, perMinute: perMin(sd.serverLog.count), byKind: sd.serverLog.byKind, watchesEnded: sd.serverLog.watchesEnded },
    bytes: { up, down, perMinute: perMin(up + down), upPerMinute: perMin(up), downPerMinute: perMin(down), connectionsOpened: p1.connections - p0.connections, openAtEnd: p1.open },
    leaseEveryS: leasePuts > 0 ? round3(sd.windowS / leasePuts) : null,
    cpuPercent: sd.agentCpuPercent,
    rssMB: sd.rssMB,
    apiserverCpuPercent: sd.apiserverCpuPercent,
  };
}

/** Verdicts and the numbers behind them. */
export function summarize(opts, out) {
  const floorBest = min(out.floor, 'totalMs');
  const staticBest = min(out.static, 'totalMs');
  const apiBest = min(out.api, 'apiAllRunningMs');
  const apiRuntimeBest = min(out.api, 'runtimeAllRunningMs');
  const ratio = apiBest.apiAllRunningMs / staticBest.totalMs;
  const paired = out.api.map((a) => {
    const s = out.static.find((x) => x.tag === a.tag);
    return s ? round3(a.apiAllRunningMs / s.totalMs) : null;
  });
  const batchRequests = out.api.map((a) => counterDelta(a.requestsDuringBatch.before, a.requestsDuringBatch.after, (l) => `${l.method} ${l.code}`));
  const steady = out.steady ? steadySummary(out.steady) : undefined;
  return {
    targets: TARGETS,
    peer: PEER,
    floorBestMs: floorBest?.totalMs ?? null,
    floorBestConcurrency: floorBest?.concurrency ?? null,
    staticBestMs: staticBest.totalMs,
    apiBestMs: apiBest.apiAllRunningMs,
    apiRuntimeBestMs: apiRuntimeBest.runtimeAllRunningMs,
    apiOverStatic: round3(ratio),
    apiOverStaticPaired: paired,
    apiOverStaticMedian: round3(median(out.api.map((a) => a.apiAllRunningMs)) / median(out.static.map((s) => s.totalMs))),
    batchVerdict: ratio <= TARGETS.batchFactor ? 'PASS' : 'MISS',
    batchRequests,
    steady,
    requestsVerdict: steady && steady.client.perMinute <= TARGETS.requestsPerMinute ? 'PASS' : 'MISS',
    cpuVerdict: steady && steady.cpuPercent <= TARGETS.cpuPercent ? 'PASS' : 'MISS',
    rssVerdict: steady && steady.rssMB.max <= TARGETS.rssMB ? 'PASS' : 'MISS',
  };
}

const f = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? '—' : Number(x).toFixed(d));
const s2 = (msv) => `${f(msv / 1000, 2)} s`;
const kinds = (o) =>
  Object.entries(o)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';

export function renderReport(opts, out, sum, meta) {
  const n = opts.pods;
  const reps = out.api.length > 1 ? `, best of ${out.api.length}` : '';
  const sd = sum.steady;
  const rows = [
    [`floor: ${n} pods through CRI, concurrency ${sum.floorBestConcurrency}${out.floor.length > 1 ? `, best of ${out.floor.length}` : ''}`, s2(sum.floorBestMs), '—', 'baseline'],
    [`static pod files: ${n} manifests -> all RUNNING${reps}`, s2(sum.staticBestMs), '—', 'baseline'],
    [`API: ${n} pods posted -> all Running in the API${reps}`, `${s2(sum.apiBestMs)} = ${f(sum.apiOverStatic, 2)}×`, `≤ ${TARGETS.batchFactor}× static`, sum.batchVerdict],
    [`API: same -> all containers RUNNING (runtime)${reps}`, s2(sum.apiRuntimeBestMs), '—', 'info'],
    [`API: all ${n} POSTs answered (best batch)`, s2(Math.min(...out.api.map((a) => a.postsAnsweredMs))), '—', 'info'],
  ];
  if (sd) {
    rows.push(
      [`steady ${out.steady.pods} API pods: requests/min (rest_client_requests_total)`, f(sd.client.perMinute, 2), `≤ ${TARGETS.requestsPerMinute}`, sum.requestsVerdict],
      ['  same, the server\'s request log of system:node:bench', f(sd.server.perMinute, 2), '—', 'info'],
      ['  bytes/min both ways (proxy), up / down', `${f(sd.bytes.perMinute / 1000, 1)} kB (${f(sd.bytes.upPerMinute / 1000, 1)} / ${f(sd.bytes.downPerMinute / 1000, 1)})`, '—', 'info'],
      ['  connections opened in the window / open', `${sd.bytes.connectionsOpened} / ${sd.bytes.openAtEnd}`, '—', 'info'],
      ['  lease renewed every', sd.leaseEveryS === null ? '—' : `${f(sd.leaseEveryS, 1)} s`, '—', 'info'],
      [`  agent CPU over ${f(sd.windowS, 0)} s`, `${f(sd.cpuPercent, 2)} % core`, `≤ ${TARGETS.cpuPercent} %`, sum.cpuVerdict],
      [`  agent RSS max (mean ${f(sd.rssMB.mean)})`, `${f(sd.rssMB.max)} MB`, `≤ ${TARGETS.rssMB} MB`, sum.rssVerdict],
      ['  platform-apiserver CPU, same window', `${f(sd.apiserverCpuPercent, 2)} % core`, '—', 'info'],
    );
  }
  rows.push([`peer: ${PEER.name}, 110 pods`, `${PEER.cpuPercent} % core, ${PEER.rssMB} MB, lease every ${PEER.leaseEveryS} s`, '—', 'peer']);
  const lines = [];
  lines.push(`cluster benchmark — ${meta.date} (${f(meta.durationS)} s)${opts.quick ? ' — QUICK smoke run, not a valid result' : ''}`);
  lines.push(`${machineLine(meta.machine)} (at the end; at the start ${meta.loadavgStart.join(' ')})`);
  lines.push(`platform-apiserver in memory; agent as system:node:bench through a byte-counting proxy; ${n} host-network busybox pods; ${opts.repeats} repeat(s); settle ${opts.settle} s, window ${opts.window} s`);
  if (opts.agentArgs.length || opts.agentNodeArgs.length) lines.push(`note: extra agent options: node ${opts.agentNodeArgs.join(' ')} bin/agent.js … ${opts.agentArgs.join(' ')} (not a standard run)`);
  lines.push('');
  lines.push(table(['case', 'value', 'target', 'verdict'], rows));
  lines.push('');
  lines.push(`batches (s): floor ${out.floor.map((x) => `c${x.concurrency} ${f(x.totalMs / 1000, 2)}`).join(', ')}; static ${out.static.map((x) => f(x.totalMs / 1000, 2)).join(' / ')}; API Running ${out.api.map((x) => f(x.apiAllRunningMs / 1000, 2)).join(' / ')} (runtime ${out.api.map((x) => f(x.runtimeAllRunningMs / 1000, 2)).join(' / ')})`);
  lines.push(`API over static, paired by repeat: ${sum.apiOverStaticPaired.map((r) => f(r, 2)).join(' / ')}; medians: ${f(sum.apiOverStaticMedian, 2)}; teardown (s): static ${out.static.map((x) => f(x.teardownMs / 1000, 2)).join(' / ')}, API ${out.api.map((x) => f(x.teardownMs / 1000, 2)).join(' / ')}`);
  lines.push(`agent requests during the first API batch (client metric): ${kinds(sum.batchRequests[0] ?? {})}`);
  if (sd) {
    lines.push(`steady window, client metric by method and code: ${kinds(sd.client.byMethodCode)}`);
    lines.push(`steady window, server log by verb and resource: ${kinds(sd.server.byKind)} (a watch is logged when it ends)`);
    const mem = out.steady.memoryAfter ?? {};
    const mb = (k) => f((mem[k] ?? NaN) / 1e6, 1);
    lines.push(`agent memory after the window (its /metrics, MB): RSS ${mb('process_resident_memory_bytes')}, V8 heap ${mb('nodejs_heap_size_used_bytes')} used of ${mb('nodejs_heap_size_total_bytes')}, external ${mb('nodejs_external_memory_bytes')}`);
    lines.push(`steady window: ${out.steady.containersRunningAfter}/${out.steady.containersRunningBefore} containers still running, ${out.steady.containersReplaced} replaced; ${out.steady.apiPodsRunningAfter} pods Running in the API; bytes up ${sd.bytes.up}, down ${sd.bytes.down}`);
  }
  lines.push('');
  lines.push(`JSON: ${meta.jsonPath}; logs: ${meta.logs.agent}, ${meta.logs.apiserver}`);
  return lines.join('\n');
}
