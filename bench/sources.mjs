#!/usr/bin/env node
// Pod sources under bad input (issue 13): the agent with 110 pods running on a
// private containerd, measured quiet and under two loads in the same run
// (see bench/README.md, "sources.mjs"):
//   (a) 200 bad entries renamed into --pod-manifest-path over 10 s;
//   (b) the --manifest-url PodList (5 pods, padded to 9 MB) different at every fetch.
// Per phase: /healthz latency (sampled from a worker thread), manifest ->
// RUNNING of new pods, the agent's RSS; after the loads, RSS for 60 s.
// Prints a table, writes JSON (bench/results/sources.json) and keeps the
// agent's log (bench/results/sources-agent.log). A missed target, or an agent
// that loses pods or dies, is a result: the exit code is non-zero only when
// the benchmark could not measure. Root only; loopback only.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { prepareBadEntries, checkBadTexts } from './lib/bad-manifests.mjs';
import { BenchError, machine, ms, now, phase, progress, round3, runMain, sleep } from './lib/common.mjs';
import { startHealthzSampler } from './lib/healthz-sampler.mjs';
import { startManifestServer } from './lib/manifest-url.mjs';
import { manifest, podObject } from './lib/pod-manifest.mjs';
import { freePort, procRssKiB, procTicks, run } from './lib/proc.mjs';
import { createSession, REPO } from './lib/session.mjs';
import { parseArgs } from './lib/sources-options.mjs';
import { report } from './lib/sources-report.mjs';

const NODE_NAME = 'bench';
const LABEL_POD_NAME = 'io.platform.pod.name';
const LABEL_MANAGED = 'io.platform.agent.managed';
const POD_LOGS_DIR = '/var/log/pods';
const TARGETS = { healthzP99Ms: 50, newPodFactor: 1.5, rssFactor: 2, rssRecoveryFactor: 1.1 };

// Bounds: every wait has a deadline and a maximum number of attempts.
const BASE_TIMEOUT_MS = 300_000; // all base pods RUNNING
const GONE_TIMEOUT_MS = 30_000; // probe pods gone after a phase
const POLL_MS = 2; // probe watcher, as bench/pods.mjs
const LIST_POLL_MS = 200;
const MAX_POLLS = 100_000;
const RSS_EVERY_MS = 200;
const QUIET_CPU = 0.25; // settled: the agent used < 25 % of a core over the last second
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

// ---------------------------------------------------------------- the node under test

const session = createSession('sources benchmark');
const st = session.state;
let dist;
let server;
let dirs;

const fullName = (name) => `${name}-${NODE_NAME}`;
const pad = (i) => String(i).padStart(3, '0');

/** Notes the pod's log directory under /var/log/pods for the clean-up, from the project's decoder (same UID). */
function noteLogDir(text, location, url) {
  const ctx = { node: NODE_NAME, source: url ? 'http' : 'file', location, now: new Date() };
  const res = url ? dist.podsFromUrlBody(text, ctx) : dist.podFromFile(text, ctx);
  if (!res.ok) throw new BenchError(`benchmark manifest rejected by the project's decoder: ${res.error}`);
  for (const p of res.pods) st.logDirs.add(join(POD_LOGS_DIR, `${p.metadata.namespace}_${p.metadata.name}_${p.metadata.uid}`));
}

function agentGone() {
  return st.agent?.gone ? `the agent exited (${st.agent.gone.signal ?? `code ${st.agent.gone.code}`})` : undefined;
}

/** Running containers the agent manages: pod name -> container id. */
async function runningPods() {
  const list = await st.cri.listContainers({ state: 'RUNNING', labelSelector: { [LABEL_MANAGED]: 'true' } });
  return new Map(list.map((c) => [c.labels[LABEL_POD_NAME], c.id]));
}

async function waitBase(want, timeoutMs) {
  const t0 = now();
  for (let i = 0; i < MAX_POLLS && ms(t0, now()) < timeoutMs && !agentGone(); i++) {
    const running = await runningPods();
    const up = want.filter((n) => running.has(n)).length;
    progress(`base pods: ${up}/${want.length} RUNNING`);
    if (up === want.length) return { ms: ms(t0, now()), ids: new Map(want.map((n) => [n, running.get(n)])) };
    await sleep(LIST_POLL_MS);
  }
  throw new BenchError(`only some of the ${want.length} base pods ran within ${timeoutMs} ms${agentGone() ? `; ${agentGone()}` : ''}\n--- agent log (tail) ---\n${session.logTail()}`);
}

/** The agent's RSS in MB (10^6 bytes, as bench/pods.mjs reports it), null once it is gone. */
function rssMB(pid) {
  try {
    return (procRssKiB(pid) * 1024) / 1e6;
  } catch {
    return null;
  }
}

/** Waits (bounded) until the agent used less than QUIET_CPU of a core over one second. */
async function settle(pid, maxS) {
  const t0 = now();
  try {
    while (ms(t0, now()) < maxS * 1000 && !agentGone()) {
      const a = procTicks(pid);
      await sleep(1000);
      if ((procTicks(pid) - a) / CLK_TCK < QUIET_CPU) return { ms: round3(ms(t0, now())), settled: true };
    }
  } catch {
    /* the agent is gone: the caller sees it */
  }
  return { ms: round3(ms(t0, now())), settled: false };
}

/** manifest renamed in -> the runtime lists its container RUNNING (as bench/pods.mjs times one pod); the manifest is deleted again. */
async function probe(name, timeoutMs) {
  const text = manifest(name, 'trap');
  const staged = join(dirs.staging, `${name}.yaml`);
  const final = join(dirs.manifests, `${name}.yaml`);
  writeFileSync(staged, text);
  noteLogDir(text, final);
  const t0 = now();
  renameSync(staged, final);
  let polls = 0;
  try {
    while (polls < MAX_POLLS && ms(t0, now()) < timeoutMs && !agentGone()) {
      polls++;
      const list = await st.cri.listContainers({ state: 'RUNNING', labelSelector: { [LABEL_POD_NAME]: fullName(name) } });
      const at = now();
      if (list.length > 0) return { name, upMs: round3(ms(t0, at)), polls };
      await sleep(POLL_MS);
    }
    return { name, upMs: null, timedOut: true, polls };
  } finally {
    rmSync(final, { force: true });
  }
}

async function waitProbesGone(timeoutMs) {
  const t0 = now();
  for (let i = 0; i < MAX_POLLS && ms(t0, now()) < timeoutMs && !agentGone(); i++) {
    const sel = { labelSelector: { [LABEL_MANAGED]: 'true' } };
    const [sbs, cts] = await Promise.all([st.cri.listPodSandbox(sel), st.cri.listContainers(sel)]);
    const left = [...sbs, ...cts].filter((x) => x.labels[LABEL_POD_NAME]?.startsWith('sq-'));
    if (left.length === 0) return { ms: round3(ms(t0, now())), left: 0 };
    await sleep(LIST_POLL_MS);
  }
  return { ms: round3(ms(t0, now())), left: null };
}

/** What the agent logged during a phase: bytes, error and warning lines, the longest line. */
function logSince(offset) {
  let text;
  try {
    text = readFileSync(st.agent.logFile).subarray(offset).toString('utf8');
  } catch {
    return { bytes: 0 };
  }
  const lines = text.split('\n');
  return { bytes: Buffer.byteLength(text), errorLines: lines.filter((l) => l.startsWith('E')).length, warningLines: lines.filter((l) => l.startsWith('W')).length, longestLine: Math.max(0, ...lines.map((l) => l.length)) };
}

const logSize = () => {
  try {
    return readFileSync(st.agent.logFile).length;
  } catch {
    return 0;
  }
};

/**
 * The smallest Node HTTP server, in a child process, sampled next to /healthz
 * in every phase: what this machine's scheduling alone costs a request.
 */
async function startFloor() {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', `require('http').createServer((q,s)=>s.end('ok')).listen(${port},'127.0.0.1')`], { stdio: 'ignore' });
  child.once('error', () => {});
  st.closers.push(() => child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(url).then((r) => r.text().then(() => r.ok), () => false);
    if (ok) return url;
    await sleep(50);
  }
  throw new BenchError('the floor HTTP server did not answer within 10 s');
}

/** Waits (bounded) until a request from `fromIndex` on was answered with the quiet body in full. */
async function waitQuietBody(fromIndex, timeoutMs) {
  const t0 = now();
  for (let i = 0; i < MAX_POLLS && ms(t0, now()) < timeoutMs && !agentGone(); i++) {
    if (server.requests.slice(fromIndex).some((r) => r.gen === 0 && r.complete)) return round3(ms(t0, now()));
    await sleep(LIST_POLL_MS);
  }
  return null;
}

// ---------------------------------------------------------------- phases

/** Load (a): the prepared bad entries renamed in one at a time, evenly over `loadS`. */
async function dropBad(entries, loadS, t0) {
  const every = (loadS * 1000) / Math.max(1, entries.length);
  for (const [i, e] of entries.entries()) {
    const wait = i * every - ms(t0, now());
    if (wait > 0) await sleep(wait);
    renameSync(e.staged, join(dirs.manifests, e.name));
    progress(`load (a): ${i + 1}/${entries.length} bad entries in`);
  }
}

/**
 * One phase: the load (none, 'a' or 'b') over `opts.load` s, /healthz sampled
 * and RSS read all along, `opts.probes` new pods started at even slots; then
 * the load is taken away and the node checked: probe pods gone, base pods
 * still running with the same containers.
 */
async function runPhase(opts, kind, index, ctx) {
  const label = kind === 'quiet' ? 'quiet' : `load (${kind})`;
  phase(`${label} #${index}: ${opts.load} s${kind === 'a' ? `, ${opts.bad} bad entries` : kind === 'b' ? `, a new ${opts.bodyMb} MB body at every fetch` : ''}, ${opts.probes} new pods`);
  const entries = kind === 'a' ? prepareBadEntries(join(dirs.staging, `bad-${index}`), opts.bad) : [];
  const rec = { kind, index, label, probes: [], rss: [] };
  const logAt = logSize();
  const reqAt = server.requests.length;
  const rssTimer = setInterval(() => {
    const mb = rssMB(ctx.pid);
    if (mb !== null) rec.rss.push(mb);
  }, RSS_EVERY_MS);
  const sampler = startHealthzSampler(ctx.healthzUrl, { intervalMs: opts.healthzInterval, timeoutMs: opts.healthzTimeout });
  const floor = startHealthzSampler(ctx.floorUrl, { intervalMs: opts.healthzInterval, timeoutMs: opts.healthzTimeout });
  const t0 = now();
  rec.startedAt = new Date().toISOString();
  if (kind === 'b') server.setChurn(true);
  const load = kind === 'a' ? dropBad(entries, opts.load, t0) : sleep(opts.load * 1000);
  load.catch(() => {}); // awaited below, after the probes
  let stopProbing = false;
  for (let i = 0; i < opts.probes && !stopProbing && !agentGone(); i++) {
    const wait = ((i + 0.25) * opts.load * 1000) / opts.probes - ms(t0, now());
    if (wait > 0) await sleep(wait);
    progress(`${label}: new pod ${i + 1}/${opts.probes}`);
    const p = await probe(`sq-${kind}${index}-${i}`, opts.probeTimeout * 1000);
    rec.probes.push(p);
    // One pod that never ran says what the rest would: the phase stops probing.
    if (p.timedOut) stopProbing = true;
  }
  await load;
  rec.loadMs = round3(ms(t0, now()));
  if (kind === 'b') server.setChurn(false);
  const reqEnd = server.requests.length;
  rec.healthz = await sampler.stop();
  rec.floor = await floor.stop();
  clearInterval(rssTimer);
  rec.windowMs = round3(ms(t0, now()));
  for (const e of entries) rmSync(join(dirs.manifests, e.name), { recursive: true, force: true });
  if (kind !== 'quiet') ctx.loadEnd = now();
  rmSync(join(dirs.staging, `bad-${index}`), { recursive: true, force: true });
  if (entries.length) {
    const byKind = new Map();
    for (const e of entries) byKind.set(e.kind, { kind: e.kind, count: (byKind.get(e.kind)?.count ?? 0) + 1, bytes: (byKind.get(e.kind)?.bytes ?? 0) + e.bytes });
    rec.bad = [...byKind.values()];
  }
  rec.url = server.requests.slice(reqAt).map((r) => ({ gen: r.gen, bytes: r.bytes, ms: r.doneAt === null ? null : r.doneAt - r.at, complete: r.complete }));
  rec.gone = await waitProbesGone(GONE_TIMEOUT_MS);
  const running = agentGone() ? new Map() : await runningPods();
  rec.base = { expected: ctx.baseIds.size, running: [...ctx.baseIds.keys()].filter((n) => running.has(n)).length, replaced: [...ctx.baseIds].filter(([n, id]) => running.has(n) && running.get(n) !== id).length };
  rec.log = logSince(logAt);
  // The quiet body served once after the churn: the next phase must not pay for the switch back.
  if (kind === 'b' && !agentGone()) rec.quietBodyServedMs = await waitQuietBody(reqEnd, (opts.httpCheck * 3 + 10) * 1000);
  rec.agentExited = agentGone() ?? null;
  progress('');
  return rec;
}

/** RSS once a second until `recoveryS` after the last load ended. */
async function recovery(opts, ctx) {
  phase(`recovery: RSS until ${opts.recovery} s after the last load ended`);
  const samples = [];
  for (let i = 0; i < opts.recovery * 10 && !agentGone(); i++) {
    const at = ms(ctx.loadEnd, now()) / 1000;
    samples.push({ s: round3(at), mb: rssMB(ctx.pid) });
    if (at >= opts.recovery) break;
    progress(`recovery: ${Math.floor(at)}/${opts.recovery} s`);
    await sleep(Math.min(1000, (opts.recovery - at) * 1000 + 1));
  }
  progress('');
  return samples;
}

// ---------------------------------------------------------------- main

let resultsDir = join(REPO, 'bench/results');

async function main() {
  const opts = parseArgs(process.argv.slice(2), REPO);
  resultsDir = dirname(opts.json);
  if (process.platform !== 'linux' || process.getuid?.() !== 0) throw new BenchError('needs Linux and root (it runs a private containerd)');
  for (const f of ['dist/cri/grpc-client.js', 'dist/sources/manifest.js', 'dist/bundle/agent.cjs']) if (!existsSync(join(REPO, f))) throw new BenchError(`${f} is missing: build first (npm run build, or npm run bench:sources which builds)`);
  for (const bin of ['containerd', 'ctr', 'runc', 'mkfifo']) if ((await run('bash', ['-c', `command -v ${bin}`])).code !== 0) throw new BenchError(`${bin} is not installed (packaging/local-runtime/install-deps.sh)`);
  const startedAt = new Date();
  const loadavgStart = os.loadavg().map((x) => round3(x));
  const tStart = now();
  dist = await import(pathToFileURL(join(REPO, 'dist/sources/manifest.js')).href);
  const badErrors = checkBadTexts(dist.podFromFile, NODE_NAME);

  phase('building images (cached) and starting a private containerd');
  const endpoint = await session.startRuntime();
  dirs = { manifests: session.dir('agent/manifests'), staging: session.dir('agent/staging'), root: session.dir('agent/root') };

  const filePods = Array.from({ length: opts.pods - opts.urlPods }, (_, i) => `sp-${pad(i)}`);
  const urlPods = Array.from({ length: opts.urlPods }, (_, i) => `su-${pad(i)}`);
  server = await startManifestServer(urlPods.map((n) => podObject(n)), opts.bodyMb * 1e6);
  st.closers.push(() => server.close());
  noteLogDir(JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: urlPods.map((n) => podObject(n)) }), server.url, true);
  for (const n of filePods) {
    const text = manifest(n);
    writeFileSync(join(dirs.manifests, `${n}.yaml`), text);
    noteLogDir(text, join(dirs.manifests, `${n}.yaml`));
  }

  phase(`starting the agent with ${filePods.length} file pods and ${urlPods.length} URL pods (${(server.bodyBytes / 1e6).toFixed(1)} MB body)`);
  const healthzPort = await freePort();
  const agentArgs = [
    `--pod-manifest-path=${dirs.manifests}`,
    `--manifest-url=${server.url}`,
    `--http-check-frequency=${opts.httpCheck}s`,
    '--file-check-frequency=20s',
    `--container-runtime-endpoint=${endpoint}`,
    '--node-ip=127.0.0.1',
    `--hostname-override=${NODE_NAME}`,
    `--root-dir=${dirs.root}`,
    `--healthz-port=${healthzPort}`,
    '--healthz-bind-address=127.0.0.1',
    '--read-only-port=0',
    `--port=${await freePort()}`,
    // Room for the probe pods (and one still terminating) on top of the base pods.
    `--max-pods=${opts.pods + 10}`,
    ...opts.agentArgs,
  ];
  const started = await session.startAgent(agentArgs, { nodeArgs: opts.agentNodeArgs });
  const base = await waitBase([...filePods, ...urlPods].map(fullName), BASE_TIMEOUT_MS);
  phase(`${base.ids.size} pods RUNNING after ${(base.ms / 1000).toFixed(1)} s; settling ${opts.settle} s, then waiting for the agent to go idle`);
  // The RSS baseline is the first quiet phase: the start's garbage must be collected first
  // (the agent does that itself ~2 s after a burst of pod starts, src/heap/after-burst.ts).
  await sleep(opts.settle * 1000);
  const ctx = { pid: started.pid, healthzUrl: `http://127.0.0.1:${healthzPort}/healthz`, floorUrl: await startFloor(), baseIds: base.ids, loadEnd: undefined };
  const out = { agentStart: { readyMs: round3(started.readyMs), basePodsMs: round3(base.ms), settle: await settle(ctx.pid, opts.settleMax) }, phases: [], badErrors };

  const plan = [];
  for (let r = 0; r < opts.rounds; r++) plan.push('quiet', 'a', 'quiet', 'b');
  let index = 0;
  for (const [i, kind] of plan.entries()) {
    if (agentGone()) break;
    const rec = await runPhase(opts, kind, ++index, ctx);
    out.phases.push(rec);
    if (i === plan.length - 1) out.recovery = await recovery(opts, ctx);
    if (!agentGone()) rec.settle = await settle(ctx.pid, opts.settleMax);
  }
  if (!agentGone()) out.phases.push(await runPhase(opts, 'quiet', ++index, ctx));
  out.agentExited = agentGone() ?? null;

  phase('stopping the agent and the private containerd');
  out.agentExit = (await session.stopAgent()) ?? null;
  const durationS = ms(tStart, now()) / 1000;
  mkdirSync(resultsDir, { recursive: true });
  const agentLogCopy = join(resultsDir, 'sources-agent.log');
  copyFileSync(st.agent.logFile, agentLogCopy);
  const meta = { date: startedAt.toISOString(), loadavgStart, durationS, machine: machine(), agentLogCopy: relative(process.cwd(), agentLogCopy) || agentLogCopy, json: relative(process.cwd(), opts.json) || opts.json, agentCommand: `${Object.entries(st.agent.launchEnv).map(([k, v]) => `${k}=${v} `).join('')}node ${st.agent.args.join(' ')}`, urlBodyBytes: server.bodyBytes };
  const rep = report(opts, out, meta, TARGETS);
  const result = { benchmark: 'sources', date: meta.date, durationS: round3(durationS), quick: opts.quick, machine: meta.machine, options: { ...opts, json: undefined }, agentCommand: meta.agentCommand, targets: TARGETS, method: rep.method, rows: rep.rows, raw: out };
  writeFileSync(opts.json, `${JSON.stringify(result, (k, v) => (typeof v === 'bigint' ? String(v) : typeof v === 'number' ? round3(v) : v), 1)}\n`);
  await server.close();
  session.cleanupSync();
  process.stdout.write(`${rep.text}\n`);
}

runMain('sources benchmark', main, { cleanup: () => session.cleanupSync(), agentLog: () => st.agent?.logFile, logDest: () => join(resultsDir, 'sources-agent.log') });
