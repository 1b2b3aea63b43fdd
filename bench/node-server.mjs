#!/usr/bin/env node
// The node's HTTP surface under load (issue 18 "Performance"): in one run, on
// a private containerd, the agent with --pods (110) host-network pods and its
// health (10248) and read-only (10255) ports on loopback, and `wrk` (Debian)
// as the load:
//   (a) floor: a bare node:http server answering `ok`, its own process;
//       `/healthz` on the agent's health port beside it (same wrk settings,
//       five alternating rounds, the best of each side compared);
//   (b) `/pods` and `/stats/summary` on the read-only port: requests/s and
//       latency p50/p99 (wrk --latency);
//   (c) `/metrics` scrape time: sequential GETs, p50/p99;
//   (d) the sync loop under load: a manifest edit → the container restarted
//       (a new container RUNNING), unloaded, then while wrk loads /pods and
//       /stats/summary.
// Every load is bounded (wrk -d, request counts). Prints a table, writes JSON
// (bench/results/node-server.json) and keeps the agent's log. Root only;
// loopback only.
//
//   node bench/node-server.mjs [--quick] [--pods=110] [--duration=10] [--edits=5] [--scrapes=50] [--json=PATH]
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { dirname, join, relative } from 'node:path';
import { BenchError, machine, ms, now, phase, progress, quantile, round3, runMain, sleep, stats, table } from './lib/common.mjs';
import { GRACE_S, IMAGE } from './lib/pod-manifest.mjs';
import { freePort } from './lib/proc.mjs';
import { createSession, REPO } from './lib/session.mjs';

const NODE_NAME = 'bench';
const LABEL_MANAGED = 'io.platform.agent.managed';
const LABEL_POD = 'io.platform.pod.name';
const TARGETS = { healthzRatio: 0.75, podsP99Ms: 10, summaryP99Ms: 30, metricsMs: 20, syncRatio: 2 };
const RUNNING_TIMEOUT_MS = 300_000;
const EDIT_TIMEOUT_MS = 60_000;
const WRK_CONNECTIONS = 8;
const HEALTHZ_ROUNDS = 5;
const SETTLE_S = 10;

function parseArgs(argv) {
  const o = { pods: 110, duration: 10, edits: 5, scrapes: 50, json: join(REPO, 'bench/results/node-server.json') };
  for (const arg of argv) {
    if (arg === '--quick') Object.assign(o, { pods: 10, duration: 4, edits: 3, scrapes: 20 });
    else {
      const m = /^--(pods|duration|edits|scrapes|json)=(.+)$/.exec(arg);
      if (!m) throw new BenchError(`usage: node bench/node-server.mjs [--quick] [--pods=N] [--duration=S] [--edits=N] [--scrapes=N] [--json=PATH]\nunknown argument: ${arg}`);
      o[m[1]] = m[1] === 'json' ? m[2] : Number(m[2]);
      if (m[1] !== 'json' && !(Number.isInteger(o[m[1]]) && o[m[1]] > 0 && o[m[1]] <= 1000)) throw new BenchError(`--${m[1]} must be an integer in 1..1000`);
    }
  }
  if (o.pods > 250) throw new BenchError('--pods must be at most 250');
  return o;
}

function manifest(i, gen) {
  return [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    `  name: srv-${String(i).padStart(3, '0')}`,
    'spec:',
    '  hostNetwork: true',
    `  terminationGracePeriodSeconds: ${GRACE_S}`,
    '  containers:',
    '  - name: c',
    `    image: ${IMAGE}`,
    '    imagePullPolicy: IfNotPresent',
    `    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`,
    '    env:',
    '    - name: GEN',
    `      value: "${gen}"`,
    '',
  ].join('\n');
}

const session = createSession('node-server benchmark');
const st = session.state;

/** Runs wrk for `seconds` against `url`; { rps, p50Ms, p99Ms, requests, errors }. */
async function wrk(url, seconds) {
  const out = await new Promise((resolve, reject) => {
    const child = spawn('wrk', ['-t1', `-c${WRK_CONNECTIONS}`, `-d${seconds}s`, '--latency', '--timeout', '5s', url], { stdio: ['ignore', 'pipe', 'pipe'] });
    st.closers.push(() => child.kill('SIGKILL'));
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (text += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (text += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      code === 0 ? resolve(text) : reject(new BenchError(`wrk ${url} exited ${code}:\n${text}`));
    });
  });
  const unit = (v, u) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 }[u] ?? NaN);
  const lat = (q) => {
    const m = new RegExp(`^\\s+${q}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out);
    return m ? round3(unit(m[1], m[2])) : null;
  };
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const requests = /(\d+) requests in/.exec(out);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const sockErr = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  if (!rps) throw new BenchError(`wrk ${url}: no Requests/sec in its output:\n${out}`);
  return { rps: round3(Number(rps[1])), p50Ms: lat(50), p99Ms: lat(99), requests: Number(requests?.[1] ?? 0), non2xx: Number(non2xx?.[1] ?? 0), socketErrors: sockErr ? sockErr.slice(1).reduce((a, b) => a + Number(b), 0) : 0 };
}

/** One GET; resolves { ms, status, bytes }. */
function timedGet(url) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const req = get(url, { agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (d) => (bytes += d.length));
      res.on('end', () => resolve({ ms: ms(t0, now()), status: res.statusCode, bytes }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${url}: no answer within 10 s`)));
    req.once('error', reject);
  });
}

async function waitRunning(n) {
  const t0 = now();
  for (let i = 0; ms(t0, now()) < RUNNING_TIMEOUT_MS && i < 10_000; i++) {
    const running = (await st.cri.listContainers({ state: 'RUNNING', labelSelector: { [LABEL_MANAGED]: 'true' } })).length;
    progress(`pods: ${running}/${n} running`);
    if (running >= n) return ms(t0, now());
    if (st.agent?.gone) throw new BenchError(`the agent exited while starting pods\n${session.logTail()}`);
    await sleep(250);
  }
  throw new BenchError(`not all ${n} pods running within ${RUNNING_TIMEOUT_MS} ms\n${session.logTail()}`);
}

/** Edits pod `i`'s manifest (a new env value: a new container hash) and waits for a new container RUNNING; ms. */
async function editAndWait(dirs, i, gen) {
  const name = `srv-${String(i).padStart(3, '0')}`;
  // A static pod's name carries the node's name.
  const podName = `${name}-${NODE_NAME}`;
  const before = new Set((await st.cri.listContainers({ labelSelector: { [LABEL_POD]: podName } })).map((c) => c.id));
  if (before.size === 0) throw new BenchError(`edit of ${name}: the runtime has no container of pod ${podName}`);
  writeFileSync(join(dirs.staging, `${name}.yaml`), manifest(i, gen));
  const t0 = now();
  renameSync(join(dirs.staging, `${name}.yaml`), join(dirs.manifests, `${name}.yaml`));
  for (let k = 0; ms(t0, now()) < EDIT_TIMEOUT_MS && k < 100_000; k++) {
    const running = await st.cri.listContainers({ state: 'RUNNING', labelSelector: { [LABEL_POD]: podName } });
    if (running.some((c) => !before.has(c.id))) return ms(t0, now());
    await sleep(5);
  }
  throw new BenchError(`edit of ${name}: no new container running within ${EDIT_TIMEOUT_MS} ms\n${session.logTail()}`);
}

async function edits(opts, dirs, first, gen) {
  const out = [];
  for (let k = 0; k < opts.edits; k++) out.push(await editAndWait(dirs, (first + k) % opts.pods, gen));
  return out;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (process.getuid?.() !== 0) throw new BenchError('the benchmark runs containerd: run it as root');
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (e) {
    if (e.code === 'ENOENT') throw new BenchError('wrk is not installed (Debian: apt-get install wrk)');
  }
  const meta = machine();
  phase('starting a private containerd');
  const endpoint = await session.startRuntime();
  const dirs = { manifests: session.dir('manifests'), staging: session.dir('staging'), root: session.dir('root') };
  const [healthzPort, roPort, mainPort, floorPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  phase(`agent with ${opts.pods} pods (health :${healthzPort}, read-only :${roPort})`);
  await session.startAgent([
    `--pod-manifest-path=${dirs.manifests}`,
    `--container-runtime-endpoint=${endpoint}`,
    `--root-dir=${dirs.root}`,
    `--cert-dir=${session.dir('pki')}`,
    `--hostname-override=${NODE_NAME}`,
    '--node-ip=127.0.0.1',
    '--address=127.0.0.1',
    `--port=${mainPort}`,
    `--healthz-port=${healthzPort}`,
    `--read-only-port=${roPort}`,
    '--logging-format=json',
  ]);
  for (let i = 0; i < opts.pods; i++) {
    writeFileSync(join(dirs.staging, `srv-${i}.yaml`), manifest(i, 0));
    renameSync(join(dirs.staging, `srv-${i}.yaml`), join(dirs.manifests, `srv-${String(i).padStart(3, '0')}.yaml`));
  }
  const upMs = await waitRunning(opts.pods);
  // Stats are refreshed on the provider's schedule: wait for a summary that has every pod.
  for (let k = 0; k < 120; k++) {
    const r = await timedGet(`http://127.0.0.1:${roPort}/stats/summary`).catch(() => undefined);
    progress(`waiting for /stats/summary (${r?.status ?? 'no answer'})`);
    if (r?.status === 200) break;
    await sleep(1000);
  }

  // As bench/pods.mjs: let the start burst end (the agent's after-burst collection, the
  // first stats refreshes) before anything is measured.
  progress(`settling ${SETTLE_S} s`);
  await sleep(SETTLE_S * 1000);
  phase(`floor: bare node:http answering ok, beside /healthz on the health port (${HEALTHZ_ROUNDS} alternating rounds)`);
  const floor = spawn(process.execPath, ['-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(${floorPort}, '127.0.0.1', () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
  st.closers.push(() => floor.kill('SIGKILL'));
  await new Promise((r) => floor.stdout.once('data', r));
  // Alternating short rounds and the best of each side: on a shared 2-core machine a burst of
  // someone else's work during one long run would otherwise decide the ratio.
  const roundSeconds = Math.max(2, Math.round(opts.duration / 3));
  const bareRuns = [];
  const healthzRuns = [];
  for (let r = 0; r < HEALTHZ_ROUNDS; r++) {
    bareRuns.push(await wrk(`http://127.0.0.1:${floorPort}/`, roundSeconds));
    healthzRuns.push(await wrk(`http://127.0.0.1:${healthzPort}/healthz`, roundSeconds));
  }
  floor.kill('SIGTERM');
  const best = (runs) => runs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const bare = { ...best(bareRuns), rounds: bareRuns.map((r) => r.rps) };
  const healthz = { ...best(healthzRuns), rounds: healthzRuns.map((r) => r.rps) };
  phase('/pods on the read-only port');
  const pods = await wrk(`http://127.0.0.1:${roPort}/pods`, opts.duration);
  phase('/stats/summary on the read-only port');
  const summary = await wrk(`http://127.0.0.1:${roPort}/stats/summary`, opts.duration);
  phase(`/metrics: ${opts.scrapes} sequential scrapes`);
  const scrapes = [];
  for (let k = 0; k < opts.scrapes; k++) {
    const r = await timedGet(`http://127.0.0.1:${roPort}/metrics`);
    if (r.status !== 200) throw new BenchError(`/metrics answered ${r.status}`);
    scrapes.push(r);
  }
  const scrapeMs = scrapes.map((r) => r.ms);
  const metrics = { ...stats(scrapeMs), p99: round3(quantile([...scrapeMs].sort((a, b) => a - b), 0.99)) };

  phase(`sync loop: ${opts.edits} manifest edits, unloaded`);
  const quiet = stats(await edits(opts, dirs, 0, 1));
  phase(`sync loop: ${opts.edits} manifest edits under wrk load on /pods and /stats/summary`);
  const loadSeconds = Math.max(opts.duration, Math.ceil((quiet.max * opts.edits * 4) / 1000) + 5);
  const loads = [wrk(`http://127.0.0.1:${roPort}/pods`, loadSeconds), wrk(`http://127.0.0.1:${roPort}/stats/summary`, loadSeconds)];
  await sleep(1000);
  const loadedSamples = await edits(opts, dirs, opts.edits, 2);
  const [podsLoad, summaryLoad] = await Promise.all(loads);
  const loaded = stats(loadedSamples);
  progress('');

  const ratio = round3(healthz.rps / bare.rps);
  const syncRatio = round3(loaded.p50 / quiet.p50);
  const rows = [
    ['bare node:http ok: requests/s (best round; rounds)', `${bare.rps}; ${bare.rounds.join(', ')}`, 'floor', ''],
    ['/healthz (health port): requests/s (best; rounds)', `${healthz.rps}; ${healthz.rounds.join(', ')}`, '', ''],
    ['/healthz / bare (best rounds)', ratio, `≥ ${TARGETS.healthzRatio}`, ratio >= TARGETS.healthzRatio ? 'PASS' : 'MISS'],
    ['/pods (read-only): requests/s; p50 ms', `${pods.rps}; ${pods.p50Ms}`, 'info', ''],
    ['/pods p99 ms', pods.p99Ms, `≤ ${TARGETS.podsP99Ms}`, pods.p99Ms !== null && pods.p99Ms <= TARGETS.podsP99Ms ? 'PASS' : 'MISS'],
    ['/stats/summary (read-only): requests/s; p50 ms', `${summary.rps}; ${summary.p50Ms}`, 'info', ''],
    ['/stats/summary p99 ms', summary.p99Ms, `≤ ${TARGETS.summaryP99Ms}`, summary.p99Ms !== null && summary.p99Ms <= TARGETS.summaryP99Ms ? 'PASS' : 'MISS'],
    ['/metrics scrape ms p50 / p99 (bytes)', `${metrics.p50} / ${metrics.p99} (${scrapes.at(-1)?.bytes})`, `≤ ${TARGETS.metricsMs}`, metrics.p99 <= TARGETS.metricsMs ? 'PASS' : 'MISS'],
    ['manifest edit → restarted, unloaded p50 / max ms', `${quiet.p50} / ${quiet.max}`, 'baseline', ''],
    ['manifest edit → restarted, under load p50 / max ms', `${loaded.p50} / ${loaded.max}`, '', ''],
    ['under load / unloaded (p50)', syncRatio, `≤ ${TARGETS.syncRatio}`, syncRatio <= TARGETS.syncRatio ? 'PASS' : 'MISS'],
    ['load during the edits: /pods, /stats/summary requests/s', `${podsLoad.rps}, ${summaryLoad.rps}`, 'info', ''],
    ['non-2xx or socket errors (all wrk runs)', [...bareRuns, ...healthzRuns, pods, summary, podsLoad, summaryLoad].reduce((a, r) => a + r.non2xx + r.socketErrors, 0), '0', ''],
  ];
  console.log(`\nnode HTTP surface, ${opts.pods} pods (up in ${round3(upMs)} ms), wrk -t1 -c${WRK_CONNECTIONS} -d${opts.duration}s (${meta.cores} cores, ${meta.cpuModel})`);
  console.log(table(['measure', 'value', 'target', 'verdict'], rows));
  const out = { benchmark: 'node-server', date: new Date().toISOString(), machine: meta, options: opts, targets: TARGETS, bare, healthz, pods, summary, metrics, sync: { quiet, loaded, podsLoad, summaryLoad }, rows };
  mkdirSync(dirname(opts.json), { recursive: true });
  writeFileSync(opts.json, `${JSON.stringify(out, null, 2)}\n`);
  await session.stopAgent();
  copyFileSync(st.agent.logFile, join(dirname(opts.json), 'node-server-agent.log'));
  console.log(`JSON: ${relative(process.cwd(), opts.json)}`);
}

runMain('node-server benchmark', main, { cleanup: () => session.cleanupSync(), agentLog: () => st.agent?.logFile, logDest: () => join(REPO, 'bench/results/node-server-agent.log') });
