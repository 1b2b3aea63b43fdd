// The table and summary of bench/sources.mjs, from its raw phase records:
// every load compared with the quiet phases of the same run.
import { machineLine, quantile, round3, table } from './common.mjs';

const f = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? '—' : x === Infinity ? '∞' : x.toFixed(d));
const sorted = (xs) => xs.filter((x) => typeof x === 'number' && !Number.isNaN(x)).sort((a, b) => a - b);
/** Quantile that keeps Infinity (a pod that never ran) instead of interpolating it into NaN. */
const q = (xs, p) => {
  const s = sorted(xs);
  if (s.length === 0) return null;
  const pos = (s.length - 1) * p;
  if (s[Math.ceil(pos)] === Infinity) return pos === Math.floor(pos) || s[Math.floor(pos)] === Infinity ? s[Math.floor(pos)] : Infinity;
  return quantile(s, p);
};
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** /healthz (or the floor's `key`) over some phases: latencies (a timeout counts at the timeout, a lower bound), failures. */
function healthz(phases, key = 'healthz') {
  const samples = phases.flatMap((p) => p[key] ?? []);
  const lat = samples.map((s) => s.ms);
  return { n: samples.length, p50: q(lat, 0.5), p99: q(lat, 0.99), max: samples.length ? Math.max(...lat) : null, failures: samples.filter((s) => !s.ok).length, timeouts: samples.filter((s) => s.error === 'timeout').length };
}

/** New pods over some phases: a pod that never ran counts as infinitely slow. */
function probes(phases) {
  const all = phases.flatMap((p) => p.probes);
  const up = all.map((p) => (p.upMs === null ? Infinity : p.upMs));
  return { n: all.length, timedOut: all.filter((p) => p.timedOut).length, p50: q(up, 0.5), max: up.length ? Math.max(...up) : null };
}

/** A load median that is infinite fails; a quiet one leaves nothing to compare with (the quiet node failed already). */
function newPodVerdict(phases, loadP50, limit) {
  if (phases.length === 0 || loadP50 === null) return 'not measured';
  if (loadP50 === Infinity) return 'FAIL';
  if (limit === null || limit === Infinity) return 'no baseline';
  return loadP50 <= limit ? 'PASS' : 'FAIL';
}

export function report(opts, out, meta, targets) {
  const quiet = out.phases.filter((p) => p.kind === 'quiet');
  const loads = { a: out.phases.filter((p) => p.kind === 'a'), b: out.phases.filter((p) => p.kind === 'b') };
  const hq = healthz(quiet);
  // A quantile at the timeout is a lower bound: the answer never came in time.
  const hz = (x) => (x !== null && x >= opts.healthzTimeout ? `≥ ${f(x)}` : f(x));
  const pq = probes(quiet);
  // RSS baseline: the first quiet phase, before any load touched the heap.
  const rssQuiet = mean(quiet[0]?.rss ?? []);
  const rows = [];
  const add = (id, name, quietV, loadV, targetText, verdict, extra = {}) => rows.push({ id, name, quiet: quietV, load: loadV, targetText, verdict, ...extra });
  const measured = (xs, ok) => (xs.length === 0 ? 'not measured' : ok ? 'PASS' : 'FAIL');

  for (const k of ['a', 'b']) {
    const h = healthz(loads[k]);
    add(`healthzP99_${k}`, `/healthz p99, load (${k})`, `${hz(hq.p99)} ms`, `${hz(h.p99)} ms${h.failures ? ` (${h.failures}/${h.n} failed)` : ''}`, `≤ ${targets.healthzP99Ms} ms`, measured(loads[k], h.p99 !== null && h.p99 <= targets.healthzP99Ms), { quietStats: hq, loadStats: h });
  }
  const fq = healthz(quiet, 'floor');
  for (const k of ['a', 'b']) {
    const fl = healthz(loads[k], 'floor');
    add(`floorP99_${k}`, `  floor: minimal HTTP server p99, (${k})`, `${hz(fq.p99)} ms`, `${hz(fl.p99)} ms${fl.failures ? ` (${fl.failures}/${fl.n} failed)` : ''}`, '—', loads[k].length ? 'baseline' : 'not measured', { quietStats: fq, loadStats: fl });
  }
  for (const k of ['a', 'b']) {
    const p = probes(loads[k]);
    const limit = pq.p50 === null ? null : pq.p50 * targets.newPodFactor;
    add(`newPod_${k}`, `new pod -> RUNNING, median, load (${k})`, `${f(pq.p50)} ms`, `${f(p.p50)} ms${p.timedOut ? ` (${p.timedOut}/${p.n} never ran)` : ''}`, `≤ ${f(limit)} ms (${targets.newPodFactor} ×)`, newPodVerdict(loads[k], p.p50, limit), { quietStats: pq, loadStats: p, targetMs: limit });
  }
  for (const k of ['a', 'b']) {
    const rss = loads[k].flatMap((p) => p.rss);
    const max = rss.length ? Math.max(...rss) : null;
    const limit = rssQuiet === null ? null : rssQuiet * targets.rssFactor;
    add(`rssMax_${k}`, `agent RSS max, load (${k})`, `${f(rssQuiet)} MB`, `${f(max)} MB`, `≤ ${f(limit)} MB (${targets.rssFactor} ×)`, measured(rss, max !== null && limit !== null && max <= limit), { quietMB: rssQuiet, maxMB: max, targetMB: limit });
  }
  const rec = out.recovery ?? [];
  const tail = rec.filter((x) => x.s >= opts.recovery - 5).map((x) => x.mb);
  const recMB = q(tail, 0.5);
  const recLimit = rssQuiet === null ? null : rssQuiet * targets.rssRecoveryFactor;
  add('rssRecovery', `agent RSS ${opts.recovery} s after the loads`, `${f(rssQuiet)} MB`, `${f(recMB)} MB`, `≤ ${f(recLimit)} MB (${targets.rssRecoveryFactor} ×)`, measured(tail, recMB !== null && recLimit !== null && recMB <= recLimit), { quietMB: rssQuiet, afterMB: recMB, targetMB: recLimit });
  for (const k of ['a', 'b']) {
    const lost = loads[k].map((p) => p.base.expected - p.base.running).reduce((a, b) => Math.max(a, b), 0);
    const replaced = loads[k].map((p) => p.base.replaced).reduce((a, b) => a + b, 0);
    const exp = loads[k][0]?.base.expected;
    add(`basePods_${k}`, `base pods after load (${k})`, `${exp ?? '—'} running`, `${exp === undefined ? '—' : exp - lost} running, ${replaced} replaced`, 'all, none replaced', measured(loads[k], lost === 0 && replaced === 0), { lost, replaced });
  }
  add('agentAlive', 'agent alive to the end', '', out.agentExited ?? 'yes', 'yes', out.agentExited ? 'FAIL' : 'PASS');

  const lines = [];
  lines.push(`sources benchmark — ${meta.date} (${f(meta.durationS)} s)${opts.quick ? ' — QUICK smoke run, not a valid result' : ''}`);
  lines.push(`${machineLine(meta.machine)} (at the end; at the start ${meta.loadavgStart.join(' ')})`);
  lines.push(`node: ${opts.pods} host-network busybox pods (${opts.pods - opts.urlPods} files, ${opts.urlPods} from the URL, body ${f(meta.urlBodyBytes / 1e6)} MB JSON), --http-check-frequency ${opts.httpCheck}s; load window ${opts.load} s; ${opts.probes} new pods a phase; /healthz every ${opts.healthzInterval} ms, timeout ${opts.healthzTimeout} ms`);
  lines.push(`phases: ${out.phases.map((p) => p.label).join(', ')}; "quiet" = the quiet phases of this run pooled (RSS: the first, before any load)`);
  lines.push(`start: agent ready ${f(out.agentStart.readyMs / 1000, 2)} s, ${opts.pods} pods RUNNING ${f(out.agentStart.basePodsMs / 1000, 2)} s, idle after ${f(out.agentStart.settle.ms / 1000, 1)} s`);
  lines.push('');
  lines.push(table(['case', 'quiet (same run)', 'under load', 'target', 'verdict'], rows.map((r) => [r.name, r.quiet, r.load, r.targetText, r.verdict])));
  lines.push('');
  lines.push('per phase (window s): /healthz p50/p99/max ms (failed/n) | floor p99 | new pods ms | RSS mean/max MB | URL fetches (complete) | agent log: bytes, E/W lines, longest line | idle after');
  for (const p of out.phases) {
    const h = healthz([p]);
    const pr = p.probes.map((x) => (x.upMs === null ? 'never' : f(x.upMs, 0))).join(' ');
    lines.push(
      `  ${`${p.label} #${p.index}`.padEnd(13)} (${f(p.windowMs / 1000)}) ${f(h.p50)}/${f(h.p99)}/${f(h.max)} (${h.failures}/${h.n}) | ${f(healthz([p], 'floor').p99)} | ${pr} | ${f(mean(p.rss))}/${f(p.rss.length ? Math.max(...p.rss) : null)} | ${p.url.length} (${p.url.filter((u) => u.complete).length}) | ${p.log.bytes} B, ${p.log.errorLines ?? 0}/${p.log.warningLines ?? 0}, ${p.log.longestLine ?? 0} | ${p.settle ? `${f(p.settle.ms / 1000)} s${p.settle.settled ? '' : ' (not idle)'}` : '—'}`,
    );
  }
  if (out.recovery?.length) lines.push(`recovery (RSS MB at s after the last load): ${out.recovery.filter((_, i, a) => i % Math.max(1, Math.ceil(a.length / 12)) === 0 || i === a.length - 1).map((x) => `${f(x.s, 0)}s ${f(x.mb)}`).join(', ')}`);
  if (out.agentExited) lines.push(`THE AGENT EXITED during the run: ${out.agentExited}; later phases were not measured (see the agent log)`);
  lines.push('');
  lines.push(`JSON: ${meta.json}; agent log: ${meta.agentLogCopy}`);

  const method = {
    node: 'private containerd (packaging/local-runtime/containerd.sh), the agent started as bin/agent.js starts (its shebang environment and node options), base pods from files and from a PodList at --manifest-url served by the benchmark',
    phases: 'quiet, load (a), quiet, load (b) per round, then RSS until --recovery s after the last load, then a last quiet phase; the agent must be idle (< 25 % of a core over 1 s, bounded by --settle-max) before each phase',
    loadA: 'bad entries prepared in a staging directory, renamed one at a time evenly over the load window, removed after the phase',
    loadB: 'the URL body is re-stamped at every request (same pods, other padding in an unknown metadata field); in quiet phases it is byte-identical',
    floor: 'the same sampling, at the same time, of the smallest Node HTTP server in a child process: what the machine alone costs a request',
    healthz: 'GET /healthz from a worker thread every --healthz-interval ms (not waiting for earlier answers), a fresh connection each, --healthz-timeout per request; a timeout counts at the timeout value',
    newPod: `manifest (pod whose shell exits on SIGTERM) renamed into the manifest directory at even slots of the load window -> first ListContainers(RUNNING, pod name) answer listing it, polled every 2 ms; the manifest is deleted right after; a pod not RUNNING within --probe-timeout counts as infinitely slow and ends the phase's probing`,
    rss: `VmRSS of the agent every 200 ms during each phase; baseline: the mean of the first quiet phase; recovery: the median of the samples in the last 5 s before --recovery s after the last load ended`,
    quantiles: 'linear interpolation between closest ranks',
  };
  return { rows: rows.map((r) => JSON.parse(JSON.stringify(r, (k, v) => (v === Infinity ? 'Infinity' : typeof v === 'number' ? round3(v) : v)))), text: lines.join('\n'), method };
}
