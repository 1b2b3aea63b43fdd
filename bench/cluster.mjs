#!/usr/bin/env node
// The agent as a cluster member (issue 19 "Performance"; see bench/README.md).
//
//   node bench/cluster.mjs [--quick] [--pods N] [--repeats R] [--levels 5,10]
//                          [--settle S] [--window S] [--json PATH]
//                          [--agent-args "ARGS"] [--agent-node-args "ARGS"]
//
// In one run, on a private containerd and a platform-apiserver in memory
// (both started here and taken down at the end, also on failure), with the
// agent in API-server mode as system:node:bench behind a byte-counting TCP
// proxy on loopback:
//   (a) N pods posted to the API at once (concurrent POSTs, admin) -> the last
//       pod's status in the API says Running, and -> the runtime lists all
//       their containers RUNNING; next to the same N pods as static pod files
//       (renamed into --pod-manifest-path at once -> all RUNNING, the method
//       of bench/pods.mjs) and the floor of direct CRI calls (bench/lib/cri-floor.mjs);
//   (b) at a steady N API pods with nothing changing, over --window seconds
//       after --settle: the agent's API requests per minute (its own
//       rest_client_requests_total, scraped from the read-only port before and
//       after, and independently the server's request log of the node's
//       user) and bytes per minute both ways (the proxy);
//   (c) the agent's CPU (% of one core, /proc/PID/stat) and RSS (max, mean)
//       over the same window; the kubelet's figures from the issue as the peer.
// Prints a table, writes JSON (default bench/results/cluster.json) and the
// agent's and the server's logs beside it. A missed target is a result, not
// an error. Root only (containerd); loopback only. Needs a built dist/.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { byteProxyNote, summarize, renderReport } from './lib/cluster-report.mjs';
import { startByteProxy } from './lib/byte-proxy.mjs';
import { countServerRequests, startClusterApiServer } from './lib/cluster-apiserver.mjs';
import { BenchError, machine, ms, now, phase, progress, round3, runMain, sleep } from './lib/common.mjs';
import { BATCH_TIMEOUT_MS, createCriFloor, FLOOR_MANAGED, FLOOR_POD_NAME, LABEL_MANAGED, LABEL_POD_NAME, loadFloorDist, POD_LOGS_DIR } from './lib/cri-floor.mjs';
import { manifest, podObject } from './lib/pod-manifest.mjs';
import { watchPodsRunning } from './lib/pod-watch.mjs';
import { freePort, procRssKiB, procTicks, withTimeout } from './lib/proc.mjs';
import { family, scrape } from './lib/prom-text.mjs';
import { createSession, REPO } from './lib/session.mjs';

const NODE_NAME = 'bench';
const NODE_USER = `system:node:${NODE_NAME}`;
const NAMESPACE = 'default';
const READY_TIMEOUT_MS = 60_000;
const GONE_POLL_MS = 100;
const MAX_POLLS = 20_000;

function parseArgs(argv) {
  const o = { quick: false, pods: 110, repeats: 2, levels: [5, 10], settle: 30, window: 300, json: join(REPO, 'bench/results/cluster.json'), agentArgs: [], agentNodeArgs: [] };
  const set = new Set();
  const int = (name, v, min, max) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new BenchError(`--${name} must be an integer in [${min}, ${max}], got "${v}"`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') {
      o.quick = true;
      continue;
    }
    const m = /^--(pods|repeats|levels|settle|window|json|agent-args|agent-node-args)(?:=(.*))?$/.exec(arg);
    if (!m) throw new BenchError(`unknown argument "${arg}"\nusage: node bench/cluster.mjs [--quick] [--pods N] [--repeats R] [--levels 5,10] [--settle S] [--window S] [--json PATH] [--agent-args "..."] [--agent-node-args "..."]`);
    const v = m[2] ?? argv[++i];
    if (v === undefined) throw new BenchError(`--${m[1]} needs a value`);
    set.add(m[1]);
    if (m[1] === 'pods') o.pods = int('pods', v, 1, 110);
    else if (m[1] === 'repeats') o.repeats = int('repeats', v, 1, 5);
    else if (m[1] === 'levels') o.levels = v.split(',').map((x) => int('levels', x.trim(), 1, 110));
    else if (m[1] === 'settle') o.settle = int('settle', v, 0, 600);
    else if (m[1] === 'window') o.window = int('window', v, 5, 3600);
    else if (m[1] === 'json') o.json = resolve(v);
    else if (m[1] === 'agent-args') o.agentArgs = v.split(/\s+/).filter(Boolean);
    else o.agentNodeArgs = v.split(/\s+/).filter(Boolean);
  }
  if (o.quick) {
    if (!set.has('pods')) o.pods = 10;
    if (!set.has('repeats')) o.repeats = 1;
    if (!set.has('levels')) o.levels = [5];
    if (!set.has('settle')) o.settle = 5;
    if (!set.has('window')) o.window = 20;
  }
  o.levels = [...new Set(o.levels.map((l) => Math.min(l, o.pods)))].sort((a, b) => a - b);
  return o;
}

const session = createSession('cluster benchmark');
const st = session.state;
const pad = (i) => String(i).padStart(3, '0');
const withLog = (msg) => `${msg}\n--- agent log (tail) ---\n${session.logTail()}`;
let floor;
let api;
let proxy;
let dirs;

/** The API pod: the benchmark pod (bench/lib/pod-manifest.mjs) bound to the node, without a service-account token (a static pod has none: the same pod both ways). */
function apiPod(name) {
  const p = podObject(name);
  p.metadata.namespace = NAMESPACE;
  p.spec.nodeName = NODE_NAME;
  p.spec.automountServiceAccountToken = false;
  return p;
}

async function apiPodNames() {
  const r = await api.call('GET', `/api/v1/namespaces/${NAMESPACE}/pods`);
  if (r.status !== 200) throw new BenchError(`GET pods: ${r.status} ${r.text.slice(0, 200)}`);
  return r.json.items.map((p) => p.metadata.name);
}

/** Polls until the runtime holds nothing of the agent's and the API no pod of the namespace (mirror pods included); ms after t0. */
async function waitAllGone(t0, what) {
  for (let polls = 0; polls < MAX_POLLS && ms(t0, now()) < BATCH_TIMEOUT_MS; polls++) {
    const sel = { labelSelector: { [LABEL_MANAGED]: 'true' } };
    const [sbs, cts] = await Promise.all([st.cri.listPodSandbox(sel), st.cri.listContainers(sel)]);
    const runtimeGone = sbs.length === 0 && cts.length === 0;
    if (runtimeGone && (await apiPodNames()).length === 0) return ms(t0, now());
    progress(`${what}: ${sbs.length} sandboxes, ${cts.length} containers left`);
    await sleep(GONE_POLL_MS);
  }
  throw new BenchError(withLog(`${what}: not everything gone within ${BATCH_TIMEOUT_MS} ms (API pods: ${(await apiPodNames()).join(', ')})`));
}

async function floorRun(opts, out, tag, level, measured) {
  phase(`floor: ${opts.pods} pods through CRI, concurrency ${level}${measured ? '' : ' (warm-up, not measured)'}`);
  const cfgs = Array.from({ length: opts.pods }, (_, i) => floor.configs(`f${tag}c${level}-${pad(i)}`));
  const t0 = now();
  const [, seen] = await withTimeout(Promise.all([floor.pool(cfgs, level, () => {}), floor.watchBatch(FLOOR_MANAGED, FLOOR_POD_NAME, new Set(cfgs.map((c) => c.name)), t0, `floor batch, concurrency ${level}`)]), BATCH_TIMEOUT_MS + 5_000, 'floor batch');
  const totalMs = Math.max(...seen.firstSeen.values());
  await floor.remove();
  if (measured) out.floor.push({ tag, concurrency: level, totalMs });
  await sleep(1000);
}

async function staticRun(opts, out, tag) {
  phase(`static pod files: ${opts.pods} manifests at once`);
  const staged = Array.from({ length: opts.pods }, (_, i) => {
    const name = `s${tag}-${pad(i)}`;
    const text = manifest(name);
    const s = { staged: join(dirs.staging, `${name}.yaml`), final: join(dirs.manifests, `${name}.yaml`) };
    writeFileSync(s.staged, text);
    const pod = floor.decode(text, s.final);
    st.logDirs.add(join(POD_LOGS_DIR, `${pod.metadata.namespace}_${pod.metadata.name}_${pod.metadata.uid}`));
    return { ...s, podName: pod.metadata.name };
  });
  const t0 = now();
  for (const s of staged) renameSync(s.staged, s.final);
  const seen = await floor.watchBatch(LABEL_MANAGED, LABEL_POD_NAME, new Set(staged.map((s) => s.podName)), t0, 'static batch', () => withLog(''));
  out.static.push({ tag, totalMs: Math.max(...seen.firstSeen.values()), polls: seen.polls });
  phase(`static pod files: ${opts.pods} manifests deleted`);
  const td = now();
  for (const s of staged) unlinkSync(s.final);
  out.static.at(-1).teardownMs = await waitAllGone(td, 'static teardown');
  await sleep(1000);
}

async function clientRequests() {
  const text = await scrape(`http://127.0.0.1:${dirs.readOnlyPort}/metrics`);
  return family(text, 'rest_client_requests_total');
}

/** Posts the API batch and measures it; leaves the pods running (the caller tears them down). */
async function apiBatch(opts, out, tag) {
  phase(`API: ${opts.pods} pods posted at once`);
  const names = Array.from({ length: opts.pods }, (_, i) => `a${tag}-${pad(i)}`);
  const want = new Set(names);
  const m0 = await clientRequests();
  let t0 = now();
  const watch = await watchPodsRunning({ url: api.url, ca: api.ca, token: api.token, namespace: NAMESPACE, want, t0: () => t0, timeoutMs: BATCH_TIMEOUT_MS, what: 'API batch' });
  t0 = now();
  const posts = names.map(async (n) => {
    const r = await api.call('POST', `/api/v1/namespaces/${NAMESPACE}/pods`, { body: apiPod(n) });
    if (r.status !== 201) throw new BenchError(`POST pod ${n}: ${r.status} ${r.text.slice(0, 300)}`);
    st.logDirs.add(join(POD_LOGS_DIR, `${NAMESPACE}_${n}_${r.json.metadata.uid}`));
    return ms(t0, now());
  });
  let res;
  try {
    res = await Promise.all([Promise.all(posts), floor.watchBatch(LABEL_MANAGED, LABEL_POD_NAME, want, t0, 'API batch (runtime)', () => withLog('')), watch.done]);
  } catch (e) {
    watch.stop();
    throw e instanceof BenchError ? new BenchError(withLog(e.message)) : e;
  }
  const [postMs, seen, running] = res;
  const m1 = await clientRequests();
  out.api.push({ tag, pods: opts.pods, postsAnsweredMs: Math.max(...postMs), runtimeAllRunningMs: Math.max(...seen.firstSeen.values()), apiAllRunningMs: Math.max(...running.values()), apiRunningPerPodMs: [...running.values()], requestsDuringBatch: { before: m0, after: m1 } });
  return names;
}

async function apiTeardown(out, names) {
  phase(`API: ${names.length} pods deleted at once`);
  const t0 = now();
  await Promise.all(
    names.map(async (n) => {
      const r = await api.call('DELETE', `/api/v1/namespaces/${NAMESPACE}/pods/${n}`);
      if (r.status !== 200 && r.status !== 202 && r.status !== 404) throw new BenchError(`DELETE pod ${n}: ${r.status} ${r.text.slice(0, 300)}`);
    }),
  );
  out.api.at(-1).teardownMs = await waitAllGone(t0, 'API teardown');
  await sleep(1000);
}

/** The steady window with the API batch running: requests (two ways), bytes, CPU and RSS. */
async function steady(opts, out, agentPid, names) {
  phase(`steady state: ${names.length} API pods, settle ${opts.settle} s, then a ${opts.window} s window`);
  for (let i = 0; i < opts.settle; i++) {
    progress(`settle: ${i}/${opts.settle} s`);
    await sleep(1000);
  }
  const tck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const runningIds = async () => new Set((await st.cri.listContainers({ state: 'RUNNING', labelSelector: { [LABEL_MANAGED]: 'true' } })).map((c) => c.id));
  const before = await runningIds();
  const m0 = await clientRequests();
  const s0 = countServerRequests(api.logFile, NODE_USER);
  const p0 = proxy.snapshot();
  const a0 = procTicks(agentPid);
  const k0 = procTicks(api.pid);
  const rss = [procRssKiB(agentPid)];
  const t0 = now();
  for (let i = 1; i <= opts.window; i++) {
    const wait = i * 1000 - ms(t0, now());
    if (wait > 0) await sleep(wait);
    progress(`steady state: ${i}/${opts.window} s`);
    rss.push(procRssKiB(agentPid));
  }
  const windowS = ms(t0, now()) / 1000;
  const a1 = procTicks(agentPid);
  const k1 = procTicks(api.pid);
  const p1 = proxy.snapshot();
  const s1 = countServerRequests(api.logFile, NODE_USER, s0.end);
  const m1 = await clientRequests();
  // Where the RSS goes, from the agent's own process metrics (prom-client's collectors), after the window.
  const text = await scrape(`http://127.0.0.1:${dirs.readOnlyPort}/metrics`);
  const memory = Object.fromEntries(['process_resident_memory_bytes', 'nodejs_heap_size_total_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_external_memory_bytes'].map((n) => [n, family(text, n)[0]?.value ?? null]));
  progress('');
  const after = await runningIds();
  const stillRunning = (await api.call('GET', `/api/v1/namespaces/${NAMESPACE}/pods`)).json.items.filter((p) => p.status?.phase === 'Running').length;
  const rssMB = rss.map((k) => (k * 1024) / 1e6);
  out.steady = {
    pods: names.length,
    settleS: opts.settle,
    windowS: round3(windowS),
    clientMetric: { before: m0, after: m1 },
    serverLog: { count: s1.count, byKind: s1.byVerb, watchesEnded: s1.watches },
    proxy: { before: p0, after: p1 },
    agentCpuPercent: round3(((a1 - a0) / tck / windowS) * 100),
    agentCpuSeconds: round3((a1 - a0) / tck),
    apiserverCpuPercent: round3(((k1 - k0) / tck / windowS) * 100),
    memoryAfter: memory,
    rssMB: { max: round3(Math.max(...rssMB)), mean: round3(rssMB.reduce((x, y) => x + y, 0) / rssMB.length), min: round3(Math.min(...rssMB)), samples: rssMB.map(round3) },
    containersRunningBefore: before.size,
    containersRunningAfter: after.size,
    containersReplaced: [...before].filter((id) => !after.has(id)).length,
    apiPodsRunningAfter: stillRunning,
  };
}

async function waitNodeReady() {
  const t0 = now();
  for (let i = 0; i < MAX_POLLS && ms(t0, now()) < READY_TIMEOUT_MS; i++) {
    const r = await api.call('GET', `/api/v1/nodes/${NODE_NAME}`);
    if (r.status === 200 && (r.json.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')) return ms(t0, now());
    await sleep(250);
  }
  throw new BenchError(withLog(`node ${NODE_NAME} not Ready in the API within ${READY_TIMEOUT_MS} ms`));
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (process.platform !== 'linux' || process.getuid?.() !== 0) throw new BenchError('needs Linux and root (it runs a private containerd)');
  for (const f of ['dist/cri/grpc-client.js', 'dist/sources/manifest.js', 'dist/bundle/agent.cjs', 'dist/apiserver/main.js']) {
    if (!existsSync(join(REPO, f))) throw new BenchError(`${f} is missing: build first (npm run build)`);
  }
  const startedAt = new Date();
  const loadavgStart = os.loadavg().map((x) => Math.round(x * 100) / 100);
  const tStart = now();
  const out = { floor: [], static: [], api: [] };

  phase('building images (cached), starting a private containerd and platform-apiserver (in memory)');
  const endpoint = await session.startRuntime();
  floor = createCriFloor({ dist: await loadFloorDist(REPO), cri: st.cri, nodeName: NODE_NAME, tmp: st.tmp, logDirs: st.logDirs });
  api = await startClusterApiServer({ dir: session.dir('apiserver'), nodeName: NODE_NAME, closers: st.closers, connections: opts.pods });
  const sa = await api.call('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  if (sa.status !== 201 && sa.status !== 409) throw new BenchError(`POST serviceaccount default: ${sa.status} ${sa.text.slice(0, 200)}`);
  proxy = await startByteProxy(api.port);
  st.closers.push(() => proxy.close());
  dirs = { manifests: session.dir('agent/manifests'), staging: session.dir('agent/staging'), root: session.dir('agent/root'), readOnlyPort: await freePort() };
  const conf = api.nodeConfig(join(st.tmp, 'agent.conf'), proxy.url);

  phase('starting the agent in API-server mode (system:node:bench, through the byte-counting proxy)');
  const agentArgs = [`--platformconfig=${conf}`, `--pod-manifest-path=${dirs.manifests}`, `--container-runtime-endpoint=${endpoint}`, '--node-ip=127.0.0.1', `--hostname-override=${NODE_NAME}`, `--root-dir=${dirs.root}`, '--healthz-port=0', `--read-only-port=${dirs.readOnlyPort}`, ...opts.agentArgs];
  const started = await session.startAgent(agentArgs, { nodeArgs: opts.agentNodeArgs });
  out.agentStart = { readyMs: round3(started.readyMs), pid: started.pid, command: `node ${st.agent.args.join(' ')}`, nodeReadyMs: round3(await waitNodeReady()) };

  await floorRun(opts, out, 'w', opts.levels[0], false);
  // Each repeat runs the floor, the static batch and the API batch; the two batches take
  // turns going first, so neither always gets the earlier slot of a drifting machine.
  for (let rep = 0; rep < opts.repeats; rep++) {
    for (const level of opts.levels) await floorRun(opts, out, String(rep), level, true);
    const order = rep % 2 === 0 ? ['static', 'api'] : ['api', 'static'];
    for (const what of order) {
      if (what === 'static') await staticRun(opts, out, String(rep));
      else {
        const names = await apiBatch(opts, out, String(rep));
        if (out.steady === undefined) await steady(opts, out, started.pid, names);
        await apiTeardown(out, names);
      }
    }
  }

  phase('stopping the agent, platform-apiserver and the private containerd');
  out.agentExit = (await session.stopAgent()) ?? null;
  const durationS = ms(tStart, now()) / 1000;
  const resultsDir = dirname(opts.json);
  mkdirSync(resultsDir, { recursive: true });
  const logs = { agent: join(resultsDir, 'cluster-agent.log'), apiserver: join(resultsDir, 'cluster-apiserver.log') };
  copyFileSync(st.agent.logFile, logs.agent);
  await api.stop();
  copyFileSync(api.logFile, logs.apiserver);
  const meta = { date: startedAt.toISOString(), loadavgStart, durationS, machine: machine(), logs: Object.fromEntries(Object.entries(logs).map(([k, v]) => [k, relative(process.cwd(), v) || v])), jsonPath: relative(process.cwd(), opts.json) || opts.json };
  const sum = summarize(opts, out);
  const text = renderReport(opts, out, sum, meta);
  const result = {
    benchmark: 'cluster',
    date: meta.date,
    durationS: round3(durationS),
    quick: opts.quick,
    machine: meta.machine,
    options: { ...opts, json: undefined },
    method: {
      apiserver: 'bin/platform-apiserver.js in memory on 127.0.0.1, --v=3 (its request log counts the node user\'s requests), a static token file for system:node:bench (group system:nodes); admin from --admin-platformconfig',
      agent: `API-server mode (--platformconfig with the node's token, server = the proxy), --pod-manifest-path for the static batch, --read-only-port for /metrics; ${NODE_USER} under node authorization`,
      proxy: byteProxyNote,
      pod: 'host network, localhost/busybox sleep 3600, terminationGracePeriodSeconds 2; API pods: spec.nodeName=bench, automountServiceAccountToken false (static pods carry no token either)',
      batch: 'static: manifests staged then renamed into the watched directory in one loop -> the first ListContainers(state=RUNNING) poll (50 ms) listing all; API: concurrent POSTs (admin, one connection per pod) -> the watch (opened before) shows every pod with status.phase Running, and -> the runtime lists all containers RUNNING (same poll); floor: the CRI calls through a pool of K workers, same poll. One unmeasured floor batch first.',
      steady: `after the first API batch: settle ${opts.settle} s, then a ${opts.window} s window: rest_client_requests_total scraped before/after; the server's -v=3 request lines of ${NODE_USER} in the window (a watch logs when it ends); proxy bytes/connections before/after; utime+stime from /proc/PID/stat; VmRSS every 1 s (MB = 10^6 bytes)`,
    },
    summary: sum,
    raw: out,
  };
  writeFileSync(opts.json, JSON.stringify(result, (k, v) => (typeof v === 'number' ? round3(v) : v), 2) + '\n');
  session.cleanupSync();
  process.stdout.write(text + '\n');
}

runMain('cluster benchmark', main, { cleanup: () => session.cleanupSync(), agentLog: () => st.agent?.logFile, logDest: () => join(REPO, 'bench/results/cluster-agent.log') });
