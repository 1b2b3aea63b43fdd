#!/usr/bin/env node
// Probe cost (issue 15): in one run, on a private containerd, the agent with
// N host-network pods (busybox httpd each on its own loopback port), measured
// twice with a fresh agent each time:
//   (a) baseline: the pods without probes;
//   (b) probes: the same pods, each with an exec readiness probe and an
//       httpGet liveness probe every --period seconds.
// Per phase, after every pod runs and a settle: the agent's CPU (% of one
// core) and RSS over a --window seconds window, containerd's and its shims'
// CPU beside it. For (b): how many probes ran, and their timing jitter
// (scheduled vs actual start, from the agent's "Prober stopped" line).
// Prints a table, writes JSON (bench/results/probes.json) and keeps the
// agent's log (bench/results/probes-agent.log). A missed target is a result;
// the exit code is non-zero only when the benchmark could not measure.
// Root only; loopback only (every pod is host-network on 127.0.0.1).
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { BenchError, machine, ms, now, phase, progress, round3, runMain, sleep, stats, table } from './lib/common.mjs';
import { GRACE_S, IMAGE } from './lib/pod-manifest.mjs';
import { procRssKiB, procTicks } from './lib/proc.mjs';
import { createSession, REPO } from './lib/session.mjs';

const NODE_NAME = 'bench';
const LABEL_MANAGED = 'io.platform.agent.managed';
const TARGETS = { cpuPercentAdded: 1, rssMBAdded: 15, jitterP99Ms: 50 };
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const RUNNING_TIMEOUT_MS = 300_000; // all pods RUNNING
const LIST_POLL_MS = 250;
const PORT_BASE = 21_000;

function parseArgs(argv) {
  const o = { pods: 110, window: 120, settle: 30, period: 10, json: join(REPO, 'bench/results/probes.json'), agentNodeArgs: [], only: undefined };
  for (const arg of argv) {
    const nodeArgs = /^--agent-node-args=(.*)$/.exec(arg);
    const only = /^--only=(baseline|probes)$/.exec(arg);
    if (nodeArgs) o.agentNodeArgs = nodeArgs[1].split(' ').filter(Boolean);
    else if (only) o.only = only[1];
    else if (arg === '--quick') Object.assign(o, { pods: 10, window: 20, settle: 12, period: 5 });
    else {
      const m = /^--(pods|window|settle|period|json)=(.+)$/.exec(arg);
      if (!m) throw new BenchError(`usage: node bench/probes.mjs [--quick] [--pods=N] [--window=S] [--settle=S] [--period=S] [--json=PATH] [--agent-node-args="ARGS"] [--only=baseline|probes]\nunknown argument: ${arg}`);
      o[m[1]] = m[1] === 'json' ? m[2] : Number(m[2]);
      if (m[1] !== 'json' && !(Number.isInteger(o[m[1]]) && o[m[1]] > 0 && o[m[1]] <= 3600)) throw new BenchError(`--${m[1]} must be an integer in 1..3600`);
    }
  }
  if (o.pods > 500) throw new BenchError('--pods must be at most 500');
  return o;
}

/** A pod serving HTTP on 127.0.0.1:port; with probes: exec readiness (cat the page) and httpGet liveness on it. */
function manifest(i, withProbes, period) {
  const port = PORT_BASE + i;
  const serve = `mkdir -p /tmp/www && echo ok > /tmp/www/index.html && exec httpd -f -p 127.0.0.1:${port} -h /tmp/www`;
  const probes = withProbes
    ? [
        '    readinessProbe:',
        `      exec: { command: ["cat", "/tmp/www/index.html"] }`,
        `      periodSeconds: ${period}`,
        '    livenessProbe:',
        `      httpGet: { path: /index.html, port: ${port} }`,
        `      periodSeconds: ${period}`,
      ]
    : [];
  return [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    `  name: probe-${String(i).padStart(3, '0')}`,
    'spec:',
    '  hostNetwork: true',
    `  terminationGracePeriodSeconds: ${GRACE_S}`,
    '  containers:',
    '  - name: web',
    `    image: ${IMAGE}`,
    '    imagePullPolicy: IfNotPresent',
    `    command: ["sh", "-c", ${JSON.stringify(serve)}]`,
    ...probes,
    '',
  ].join('\n');
}

const session = createSession('probes benchmark');
const st = session.state;

/** Ticks of containerd and of every shim serving it (their command line names its socket). */
function runtimeTicks(containerdPid) {
  let total = procTicks(containerdPid);
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes('containerd-shim') && cmd.includes(st.rtDir)) total += procTicks(Number(pid));
    } catch {
      /* gone */
    }
  }
  return total;
}

async function waitRunning(n, what) {
  const t0 = now();
  for (let i = 0; ms(t0, now()) < RUNNING_TIMEOUT_MS && i < 10_000; i++) {
    const running = (await st.cri.listContainers({ state: 'RUNNING', labelSelector: { [LABEL_MANAGED]: 'true' } })).length;
    progress(`${what}: ${running}/${n} running`);
    if (running >= n) return ms(t0, now());
    if (st.agent?.gone) throw new BenchError(`the agent exited during ${what}\n${session.logTail()}`);
    await sleep(LIST_POLL_MS);
  }
  throw new BenchError(`${what}: not all ${n} pods running within ${RUNNING_TIMEOUT_MS} ms\n${session.logTail()}`);
}

/** Removes every pod the agent made, straight through the CRI (the agent is stopped). */
async function clearPods() {
  const sandboxes = await st.cri.listPodSandbox({ labelSelector: { [LABEL_MANAGED]: 'true' } });
  for (const s of sandboxes) {
    await st.cri.stopPodSandbox(s.id);
    await st.cri.removePodSandbox(s.id);
  }
}

/**
 * The floor: the same probes at the same rate from a bare Node.js process
 * (lib/probe-floor.mjs) against the pods running now; its CPU over the window.
 */
async function measureFloor(opts, endpoint, name, kinds) {
  const containers = await st.cri.listContainers({ state: 'RUNNING', labelSelector: { [LABEL_MANAGED]: 'true' } });
  const targets = containers.map((c) => `${c.id}:${PORT_BASE + Number(/^probe-(\d+)-/.exec(c.labels['io.platform.pod.name'] ?? '')?.[1] ?? NaN)}`);
  if (targets.some((t) => t.endsWith(':NaN'))) throw new BenchError('floor: a running container is not one of the benchmark pods');
  const child = spawn(process.execPath, [join(REPO, 'bench/lib/probe-floor.mjs'), endpoint, String(opts.period), kinds, ...targets], { stdio: ['ignore', 'pipe', 'inherit'] });
  st.closers.push(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  const exited = new Promise((res) => child.once('exit', res));
  for (let i = 0; i < 600 && !out.includes('ready\n'); i++) await sleep(50);
  if (!out.includes('ready\n')) throw new BenchError('floor: the probe process did not start');
  // One full period first: every target's first probe (spread over the period) has run.
  for (let s = opts.period + 2; s > 0; s--) {
    progress(`${name}: floor (${kinds}) settle ${s} s`);
    await sleep(1000);
  }
  const f0 = procTicks(child.pid);
  const t0 = now();
  for (let s = 1; s <= opts.window; s++) {
    await sleep(Math.max(0, s * 1000 - ms(t0, now())));
    progress(`${name}: floor (${kinds}) window ${s}/${opts.window} s`);
  }
  const cpu = ((procTicks(child.pid) - f0) / CLK_TCK / (ms(t0, now()) / 1000)) * 100;
  child.kill('SIGTERM');
  await exited;
  const last = JSON.parse(out.trim().split('\n').at(-1));
  return { cpuPercent: round3(cpu), probes: last.probes, failures: last.failures };
}

/** One phase: a fresh agent, the pods, a settle, the window. */
async function measurePhase(opts, endpoint, withProbes, name) {
  phase(`${name}: ${opts.pods} pods${withProbes ? `, exec readiness + httpGet liveness every ${opts.period} s` : ', no probes'}`);
  const manifests = session.dir(name, 'manifests');
  const staging = session.dir(name, 'staging');
  const root = session.dir(name, 'root');
  const { pid } = await session.startAgent([
    `--pod-manifest-path=${manifests}`,
    `--container-runtime-endpoint=${endpoint}`,
    `--root-dir=${root}`,
    `--hostname-override=${NODE_NAME}`,
    '--node-ip=127.0.0.1',
    '--healthz-port=0',
    '--read-only-port=0',
    '--logging-format=json',
  ], { nodeArgs: opts.agentNodeArgs });
  for (let i = 0; i < opts.pods; i++) {
    const file = `probe-${i}.yaml`;
    writeFileSync(join(staging, file), manifest(i, withProbes, opts.period));
    renameSync(join(staging, file), join(manifests, file));
  }
  const upMs = await waitRunning(opts.pods, name);
  for (let s = opts.settle; s > 0; s--) {
    progress(`${name}: settle ${s} s`);
    await sleep(1000);
  }
  const containerdPid = Number(readFileSync(join(st.rtDir, 'containerd.pid'), 'utf8').trim());
  const a0 = procTicks(pid);
  const r0 = runtimeTicks(containerdPid);
  const t0 = now();
  const rss = [];
  for (let s = 1; s <= opts.window; s++) {
    await sleep(Math.max(0, s * 1000 - ms(t0, now())));
    rss.push(procRssKiB(pid) * 1024 / 1e6);
    progress(`${name}: window ${s}/${opts.window} s`);
  }
  const wallS = ms(t0, now()) / 1000;
  const agentCpu = ((procTicks(pid) - a0) / CLK_TCK / wallS) * 100;
  const runtimeCpu = ((runtimeTicks(containerdPid) - r0) / CLK_TCK / wallS) * 100;
  const stillRunning = (await st.cri.listContainers({ state: 'RUNNING', labelSelector: { [LABEL_MANAGED]: 'true' } })).length;
  // The floor, and its two halves: what each kind of probe costs Node.js itself.
  const floor = withProbes ? undefined : { both: await measureFloor(opts, endpoint, name, 'exec,http'), exec: await measureFloor(opts, endpoint, name, 'exec'), http: await measureFloor(opts, endpoint, name, 'http') };
  const logBefore = readFileSync(st.agent.logFile, 'utf8').length;
  const exit = await session.stopAgent();
  const stopLines = readFileSync(st.agent.logFile, 'utf8').slice(logBefore).split('\n').filter((l) => l.includes('"Prober stopped"'));
  const prober = stopLines.length > 0 ? JSON.parse(stopLines.at(-1)) : undefined;
  progress('');
  await clearPods();
  return { name, pods: opts.pods, upMs: round3(upMs), windowS: round3(wallS), agentCpuPercent: round3(agentCpu), runtimeCpuPercent: round3(runtimeCpu), rssMB: stats(rss), stillRunning, agentExit: exit, prober, ...(floor ? { floor } : {}) };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (process.getuid?.() !== 0) throw new BenchError('the benchmark runs containerd: run it as root');
  const meta = machine({ clkTck: CLK_TCK });
  phase('starting a private containerd');
  const endpoint = await session.startRuntime();
  // --only: one phase, for profiling (the other's numbers are then zero and the verdicts meaningless).
  const skipped = { agentCpuPercent: 0, runtimeCpuPercent: 0, rssMB: { mean: 0, max: 0 }, prober: undefined };
  const base = opts.only === 'probes' ? skipped : await measurePhase(opts, endpoint, false, 'baseline');
  const probed = opts.only === 'baseline' ? skipped : await measurePhase(opts, endpoint, true, 'probes');
  const expectedProbes = Math.floor((2 * opts.pods * opts.window) / opts.period);
  const p = probed.prober ?? {};
  const rows = [
    ['floor: the same probes from bare Node.js (% of one core)', '-', base.floor?.both.cpuPercent ?? 'n/a', '', 'floor', ''],
    ['  of which exec (ExecSync over the CRI client) alone', '-', base.floor?.exec.cpuPercent ?? 'n/a', '', 'floor', ''],
    ['  of which httpGet (node:http, new connection) alone', '-', base.floor?.http.cpuPercent ?? 'n/a', '', 'floor', ''],
    ['agent CPU added over the floor (% of one core)', '-', base.floor ? round3(probed.agentCpuPercent - base.agentCpuPercent - base.floor.both.cpuPercent) : 'n/a', '', 'info', ''],
    ['agent CPU (% of one core)', base.agentCpuPercent, probed.agentCpuPercent, round3(probed.agentCpuPercent - base.agentCpuPercent), `added ≤ ${TARGETS.cpuPercentAdded}`, probed.agentCpuPercent - base.agentCpuPercent <= TARGETS.cpuPercentAdded ? 'PASS' : 'MISS'],
    ['agent RSS mean (MB)', base.rssMB.mean, probed.rssMB.mean, round3(probed.rssMB.mean - base.rssMB.mean), `added ≤ ${TARGETS.rssMBAdded}`, probed.rssMB.mean - base.rssMB.mean <= TARGETS.rssMBAdded ? 'PASS' : 'MISS'],
    ['agent RSS max (MB)', base.rssMB.max, probed.rssMB.max, round3(probed.rssMB.max - base.rssMB.max), 'info', ''],
    ['containerd + shims CPU (% of one core)', base.runtimeCpuPercent, probed.runtimeCpuPercent, round3(probed.runtimeCpuPercent - base.runtimeCpuPercent), 'info', ''],
    ['probe start jitter p50 / p99 / max (ms)', '-', p.latenessP50Ms === undefined ? 'n/a' : `${p.latenessP50Ms} / ${p.latenessP99Ms} / ${p.latenessMaxMs}`, '', `p99 ≤ ${TARGETS.jitterP99Ms}`, p.latenessP99Ms !== undefined && p.latenessP99Ms <= TARGETS.jitterP99Ms ? 'PASS' : 'MISS'],
    ['probes run (whole life of the agent)', '-', p.probes ?? 'n/a', '', `≥ ${expectedProbes} in the window`, (p.probes ?? 0) >= expectedProbes ? 'ok' : 'LOW'],
  ];
  console.log(`\nprobe cost, ${opts.pods} pods, window ${opts.window} s after ${opts.settle} s settle, period ${opts.period} s (${meta.cores} cores, ${meta.cpuModel})`);
  console.log(table(['measure', 'baseline', 'probes', 'delta', 'target', 'verdict'], rows));
  const out = { benchmark: 'probes', date: new Date().toISOString(), machine: meta, options: opts, targets: TARGETS, baseline: base, probes: probed, expectedProbes, rows };
  mkdirSync(dirname(opts.json), { recursive: true });
  writeFileSync(opts.json, JSON.stringify(out, null, 2) + '\n');
  copyFileSync(st.agent.logFile, join(dirname(opts.json), 'probes-agent.log'));
  console.log(`JSON: ${relative(process.cwd(), opts.json)}`);
}

runMain('probes benchmark', main, { cleanup: () => session.cleanupSync(), agentLog: () => st.agent?.logFile, logDest: () => join(REPO, 'bench/results/probes-agent.log') });
