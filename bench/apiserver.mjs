// platform-apiserver benchmark (issue 16): for each storage backend, create
// 10 000 pods (writes/s, p99), list them in pages of 500 as JSON and as
// protobuf (p50/p99 per page), 100 concurrent watchers receiving 3 000
// modifications paced at 50/s (delivery p99 from the write to the last
// watcher; then 10 000 unpaced ones, as throughput information), and the
// server's RSS and heap per stored pod. Baselines measured in the same run:
// etcd's own put rate through the same client library issuing the same
// transactions directly, and bare node:http and node:https servers answering
// a fixed 500-item JSON body. Prints a table, writes bench/results/apiserver.json.
//
//   node bench/apiserver.mjs [--pods=10000] [--watchers=100] [--mods=3000] [--rate=50] [--unpaced=10000] [--list-rounds=5] [--only=memory|etcd]
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Agent, Pool, request } from 'undici';
import { machine, machineLine, now, ms, phase, progress, quantile, round3, runMain, table } from './lib/common.mjs';
import { startBenchEtcd } from './lib/etcd.mjs';
import { bodyFloor, startApiServerProcess } from './lib/apiserver.mjs';
import { procRssKiB, procTicks } from './lib/proc.mjs';
import { REPO } from './lib/session.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const PODS = Number(args.pods ?? 10_000);
const WATCHERS = Number(args.watchers ?? 100);
/** Modifications during the delivery measurement, paced at RATE per second (see bench/README.md for why this rate). */
const MODS = Number(args.mods ?? 3_000);
const RATE = Number(args.rate ?? 50);
// Counted rounds over all pages (after one warm-up round): 5 × 20 pages = 100 samples, so p99 is not the second-worst of 60.
const LIST_ROUNDS = Number(args['list-rounds'] ?? 5);
/** Unpaced modifications after it (16 in flight), reported as throughput only (0: skip). */
const UNPACED = Number(args.unpaced ?? 10_000);
const PAGE = 500;
const CONCURRENCY = 32;
/** Extra node flags for the server, e.g. BENCH_APISERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile it. */
const SERVER_NODE_ARGS = (process.env.BENCH_APISERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const BACKENDS = args.only ? [args.only] : ['memory', 'etcd'];
const NS = 'bench';
const cleanups = [];
const codec = await (await import(pathToFileURL(join(REPO, 'dist/api/codec/index.js')).href)).loadApiCodec();

/** USER_HZ of /proc/PID/stat: 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;
const pct = (xs, q) => round3(quantile([...xs].sort((a, b) => a - b), q));

function podBody(i) {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p-${String(i).padStart(5, '0')}`, namespace: NS, labels: { app: 'bench', shard: String(i % 16) } },
    spec: { nodeName: `node-${i % 50}`, containers: [{ name: 'c', image: 'registry.local/app:1.0', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
  });
}

/** Runs `count` jobs with at most `width` in flight; returns each job's latency in ms. */
async function pooled(count, width, job) {
  const lat = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const t0 = now();
      await job(i);
      lat[i] = ms(t0, now());
      if (i % 500 === 0) progress(`${i}/${count}`);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return lat;
}

function startServer(backend, etcdEndpoint) {
  return startApiServerProcess({ cleanups, nodeArgs: SERVER_NODE_ARGS, connections: CONCURRENCY + 4, extraArgs: backend === 'etcd' ? [`--etcd-servers=${etcdEndpoint}`] : [] });
}

async function heap(srv) {
  return JSON.parse((await srv.call('POST', '/debug/faults/heap', { body: '{}' })).toString());
}

/** Pages through every pod; returns per-page latencies and the last JSON page body (the floor's fixture). */
async function listPages(srv, accept, rounds) {
  const lat = [];
  let sample;
  // Round 0 is a warm-up, not counted: the first pass renders each item's JSON once (then kept) and warms the JIT.
  for (let r = 0; r <= rounds; r++) {
    let cont = '';
    do {
      const t0 = now();
      const body = await srv.call('GET', `/api/v1/namespaces/${NS}/pods?limit=${PAGE}${cont === '' ? '' : `&continue=${encodeURIComponent(cont)}`}`, { accept });
      if (r > 0) lat.push(ms(t0, now()));
      if (accept === 'application/json') {
        const list = JSON.parse(body.toString());
        cont = list.metadata.continue ?? '';
        if (list.items.length === PAGE) sample = body;
      } else {
        cont = codec.decode(body).object.metadata?.continue ?? '';
      }
    } while (cont !== '');
  }
  return { lat, sample };
}

const RV_FIELD = Buffer.from('"resourceVersion":"');

/**
 * Opens `n` watchers at the current version; `onEvent(rv)` once per event per watcher. The rv is
 * found in the raw bytes (the object's metadata comes first, so only a line's head is searched;
 * no string decoding, no parse): the bench must cost the shared cores as little as it can.
 */
async function openWatchers(srv, n, onEvent) {
  const start = JSON.parse((await srv.call('GET', `/api/v1/namespaces/${NS}/pods?limit=1`)).toString()).metadata.resourceVersion;
  const agent = new Agent({ connect: { ca: srv.ca }, connections: n + 4 });
  const controllers = [];
  await Promise.all(
    Array.from({ length: n }, async () => {
      const ac = new AbortController();
      controllers.push(ac);
      const res = await request(`${srv.url}/api/v1/namespaces/${NS}/pods?watch=1&resourceVersion=${start}`, { dispatcher: agent, signal: ac.signal, headers: { authorization: `Bearer ${srv.token}` } });
      let rest = Buffer.alloc(0);
      res.body.on('data', (chunk) => {
        const buf = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
        let from = 0;
        let nl;
        while ((nl = buf.indexOf(10, from)) >= 0) {
          const at = buf.indexOf(RV_FIELD, from);
          if (at >= 0 && at < nl) {
            const begin = at + RV_FIELD.length;
            onEvent(buf.toString('latin1', begin, buf.indexOf(34, begin)));
          }
          from = nl + 1;
        }
        rest = from === buf.length ? Buffer.alloc(0) : buf.subarray(from);
      });
      res.body.on('error', () => {});
    }),
  );
  return async () => {
    for (const ac of controllers) ac.abort();
    await agent.close().catch(() => {});
  };
}

/**
 * Issues `count` patches either open-loop at `rate` per second (patch i starts at t0 + i/rate,
 * whatever the previous ones do, at most 256 in flight) or, with rate 0, unpaced with 16 in
 * flight. Returns rv → the patch's start time, and how far the schedule slipped.
 */
async function patches(srv, count, rate, first) {
  const sent = new Map();
  const patch = async (i) => {
    const t0 = now();
    const body = await srv.call('PATCH', `/api/v1/namespaces/${NS}/pods/p-${String((first + i) % PODS).padStart(5, '0')}`, { body: JSON.stringify({ metadata: { labels: { m: String(first + i) } } }), contentType: 'application/merge-patch+json' });
    sent.set(/"resourceVersion":"(\d+)"/.exec(body.toString())[1], t0);
  };
  if (rate === 0) {
    await pooled(count, 16, patch);
    return { sent, maxSlipMs: 0 };
  }
  const t0 = now();
  const inFlight = new Set();
  let maxSlipMs = 0;
  for (let i = 0; i < count; i++) {
    const due = (i * 1000) / rate;
    const wait = due - ms(t0, now());
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    else maxSlipMs = Math.max(maxSlipMs, -wait);
    while (inFlight.size >= 256) await Promise.race(inFlight);
    const p = patch(i).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (i % 500 === 0) progress(`${i}/${count}`);
  }
  await Promise.all(inFlight);
  return { sent, maxSlipMs };
}

/** `watchers` watchers; per change, from the patch's start to the moment the last watcher has it. */
async function watchDelivery(srv, { watchers, count, rate, first }) {
  const lastSeen = new Map(); // rv → time the last watcher saw it
  const seenCount = new Map();
  const close = await openWatchers(srv, watchers, (rv) => {
    const n = (seenCount.get(rv) ?? 0) + 1;
    seenCount.set(rv, n);
    if (n === watchers) lastSeen.set(rv, now());
  });
  const t0 = now();
  const ticks0 = procTicks(srv.pid);
  const cpu0 = process.cpuUsage();
  const { sent, maxSlipMs } = await patches(srv, count, rate, first);
  const deadline = Date.now() + 60_000;
  while ([...sent.keys()].some((rv) => !lastSeen.has(rv)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const lastDelivery = [...lastSeen.values()].reduce((a, b) => (b > a ? b : a), t0);
  // CPU per change (the patch, its storage write and its delivery to every watcher), server and bench client apart.
  const serverCpuMs = ((procTicks(srv.pid) - ticks0) * 1000) / CLOCK_TICKS;
  const cpu = process.cpuUsage(cpu0);
  await close();
  const lat = [...sent].map(([rv, start]) => (lastSeen.has(rv) ? ms(start, lastSeen.get(rv)) : Infinity));
  return { lat, missing: lat.filter((x) => x === Infinity).length, maxSlipMs, deliveredPerSecond: count / (ms(t0, lastDelivery) / 1000), serverCpuMsPerChange: serverCpuMs / count, clientCpuMsPerChange: (cpu.user + cpu.system) / 1000 / count };
}

/** The etcd floor: the same create transactions through the project's etcd client, directly. */
async function etcdPutRate(endpoint) {
  const { createEtcdStorage } = await import(pathToFileURL(join(REPO, 'dist/apiserver/storage/etcd-store.js')).href);
  const storage = await createEtcdStorage({ endpoints: [endpoint], prefix: '/floor/', log: { info() {}, warn() {}, error() {} } });
  const value = Buffer.from(podBody(0));
  const t0 = now();
  const lat = await pooled(PODS, CONCURRENCY, (i) => storage.create(`pods/${NS}/p-${i}`, value));
  const seconds = ms(t0, now()) / 1000;
  await storage.close();
  return { rate: PODS / seconds, lat };
}

/**
 * The create-path peer (bench/lib/apiserver-peer.mjs): a bare node:https server
 * that parses the body and does the same etcd create through the same client,
 * driven exactly as the API server is. Shows what HTTPS plus the etcd client
 * alone leave of the machine's cores.
 */
async function peerCreateRate(endpoint, tls) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-peer-'));
  writeFileSync(join(dir, 'tls.crt'), tls.cert);
  writeFileSync(join(dir, 'tls.key'), tls.key);
  const child = fork(join(REPO, 'bench/lib/apiserver-peer.mjs'), [endpoint, join(dir, 'tls.crt'), join(dir, 'tls.key')], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const kill = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  cleanups.push(kill);
  const port = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`create-path peer exited (${code})`)));
  });
  const url = `https://127.0.0.1:${port}`;
  const pool = new Pool(url, { connections: CONCURRENCY + 4, connect: { ca: tls.ca } });
  const post = async (i) => {
    const res = await request(`${url}/api/v1/namespaces/${NS}/pods`, { method: 'POST', dispatcher: pool, headers: { 'content-type': 'application/json' }, body: podBody(i) });
    await res.body.arrayBuffer();
    if (res.statusCode !== 201) throw new Error(`create-path peer answered ${res.statusCode}`);
  };
  await pooled(Math.min(500, PODS), CONCURRENCY, (i) => post(90_000 + i));
  const t0 = now();
  const lat = await pooled(PODS, CONCURRENCY, post);
  const seconds = ms(t0, now()) / 1000;
  await pool.close();
  kill();
  return { rate: PODS / seconds, lat };
}

async function benchBackend(backend, results) {
  let etcd;
  if (backend === 'etcd') {
    etcd = await startBenchEtcd();
    cleanups.push(() => etcd.killNow());
    phase(`etcd: floor: ${PODS} direct puts`);
    results.etcdFloor = await etcdPutRate(etcd.endpoint);
  }
  phase(`${backend}: starting platform-apiserver`);
  const srv = await startServer(backend, etcd?.endpoint);
  if (etcd !== undefined) {
    phase(`etcd: create-path peer (bare node:https + the same etcd client): ${PODS} creates`);
    results.createPeer = await peerCreateRate(etcd.endpoint, srv.tls);
  }
  await srv.call('POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }) });
  const heap0 = await heap(srv);
  phase(`${backend}: create ${PODS} pods (${CONCURRENCY} in flight)`);
  const t0 = now();
  const createLat = await pooled(PODS, CONCURRENCY, (i) => srv.call('POST', `/api/v1/namespaces/${NS}/pods`, { body: podBody(i) }));
  const createSeconds = ms(t0, now()) / 1000;
  const heap1 = await heap(srv);
  const rssKiB = procRssKiB(srv.pid);
  phase(`${backend}: list in pages of ${PAGE} (JSON, protobuf)`);
  const json = await listPages(srv, 'application/json', LIST_ROUNDS);
  const pb = await listPages(srv, 'application/vnd.platform.protobuf', LIST_ROUNDS);
  const heap2 = await heap(srv);
  const single = Math.min(MODS, 1_000);
  phase(`${backend}: 1 watcher, ${single} modifications at ${RATE}/s (the floor: the write and one stream)`);
  const one = await watchDelivery(srv, { watchers: 1, count: single, rate: RATE, first: 0 });
  phase(`${backend}: ${WATCHERS} watchers, ${MODS} modifications at ${RATE}/s`);
  const watch = await watchDelivery(srv, { watchers: WATCHERS, count: MODS, rate: RATE, first: single });
  phase(`${backend}: ${WATCHERS} watchers, ${UNPACED} modifications unpaced (16 in flight)`);
  const unpaced = UNPACED > 0 ? await watchDelivery(srv, { watchers: WATCHERS, count: UNPACED, rate: 0, first: single + MODS }) : undefined;
  await srv.stop();
  await etcd?.stop();
  results[backend] = {
    writesPerSecond: round3(PODS / createSeconds),
    createP50Ms: pct(createLat, 0.5),
    createP99Ms: pct(createLat, 0.99),
    listJsonP50Ms: pct(json.lat, 0.5),
    listJsonP99Ms: pct(json.lat, 0.99),
    listProtobufP50Ms: pct(pb.lat, 0.5),
    listProtobufP99Ms: pct(pb.lat, 0.99),
    watchDeliveryP50Ms: pct(watch.lat, 0.5),
    watchDeliveryP99Ms: pct(watch.lat, 0.99),
    watchMissing: watch.missing,
    oneWatcherDeliveryP50Ms: pct(one.lat, 0.5),
    oneWatcherDeliveryP99Ms: pct(one.lat, 0.99),
    oneWatcherServerCpuMsPerChange: round3(one.serverCpuMsPerChange),
    watchScheduleSlipMaxMs: round3(watch.maxSlipMs),
    watchServerCpuMsPerChange: round3(watch.serverCpuMsPerChange),
    watchClientCpuMsPerChange: round3(watch.clientCpuMsPerChange),
    unpacedDeliveredPerSecond: unpaced === undefined ? null : round3(unpaced.deliveredPerSecond),
    unpacedDeliveryP50Ms: unpaced === undefined ? null : pct(unpaced.lat, 0.5),
    unpacedDeliveryP99Ms: unpaced === undefined ? null : pct(unpaced.lat, 0.99),
    unpacedMissing: unpaced?.missing ?? null,
    rssMiB: round3(rssKiB / 1024),
    heapPerPodBytes: round3((heap1.heapUsed - heap0.heapUsed) / PODS),
    externalPerPodBytes: round3((heap1.external - heap0.external) / PODS),
    heapPerPodAfterListingBytes: round3((heap2.heapUsed - heap0.heapUsed) / PODS),
    externalPerPodAfterListingBytes: round3((heap2.external - heap0.external) / PODS),
    heapMeasuredAfterGc: heap1.gc,
  };
  results.sample ??= json.sample;
  results.tls ??= srv.tls;
}

async function main() {
  const m = machine();
  process.stdout.write(`${machineLine(m)}\n`);
  const results = {};
  for (const b of BACKENDS) await benchBackend(b, results);
  phase('floors: bare node:http and node:https, fixed 500-item JSON body');
  const floorRounds = LIST_ROUNDS * Math.ceil(PODS / PAGE);
  const floor = results.sample === undefined ? [] : await bodyFloor(results.sample, floorRounds);
  const floorTls = results.sample === undefined ? [] : await bodyFloor(results.sample, floorRounds, results.tls);
  const floors = `node:http ${pct(floor, 0.5)}/${pct(floor, 0.99)}; node:https ${pct(floorTls, 0.5)}/${pct(floorTls, 0.99)}`;
  const rows = [];
  const r = (what, value, baseline, target, pass) => rows.push([what, String(value), baseline, target, pass === undefined ? '' : pass ? 'PASS' : 'MISS']);
  for (const b of BACKENDS) {
    const x = results[b];
    r(`${b}: create ${PODS} pods, writes/s`, x.writesPerSecond, b === 'etcd' ? `etcd direct ${round3(results.etcdFloor.rate)}/s` : '', b === 'etcd' ? '>= 60 % of etcd' : '', b === 'etcd' ? x.writesPerSecond >= 0.6 * results.etcdFloor.rate : undefined);
    r(`${b}: create p99 ms`, x.createP99Ms, b === 'etcd' ? `etcd direct p99 ${pct(results.etcdFloor.lat, 0.99)}` : '', '', undefined);
    if (b === 'etcd') r('etcd: create-path peer (bare https + etcd client), creates/s', `${round3(results.createPeer.rate)} (${Math.round((100 * results.createPeer.rate) / results.etcdFloor.rate)} % of etcd)`, `p99 ${pct(results.createPeer.lat, 0.99)} ms`, 'information', undefined);
    r(`${b}: list page of ${PAGE}, JSON p50/p99 ms`, `${x.listJsonP50Ms}/${x.listJsonP99Ms}`, floors, '', undefined);
    r(`${b}: list page of ${PAGE}, protobuf p50/p99 ms`, `${x.listProtobufP50Ms}/${x.listProtobufP99Ms}`, floors, b === 'memory' ? 'p99 <= 15 ms' : '', b === 'memory' ? x.listProtobufP99Ms <= 15 : undefined);
    r(`${b}: watch delivery to ${WATCHERS} watchers at ${RATE} writes/s, p50/p99 ms`, `${x.watchDeliveryP50Ms}/${x.watchDeliveryP99Ms}`, `1 watcher ${x.oneWatcherDeliveryP50Ms}/${x.oneWatcherDeliveryP99Ms}`, 'p99 <= 50 ms', x.watchDeliveryP99Ms <= 50 && x.watchMissing === 0);
    r(`${b}: at ${RATE} writes/s: CPU ms per change (server; bench client)`, `${x.watchServerCpuMsPerChange}; ${x.watchClientCpuMsPerChange}`, `1 watcher: server ${x.oneWatcherServerCpuMsPerChange}`, '', undefined);
    r(`${b}: schedule slip max ms (the bench's own lateness)`, x.watchScheduleSlipMaxMs, '', '', undefined);
    if (x.unpacedDeliveredPerSecond !== null) r(`${b}: unpaced (16 in flight): changes/s delivered to all, p50/p99 ms`, `${x.unpacedDeliveredPerSecond} (${x.unpacedDeliveryP50Ms}/${x.unpacedDeliveryP99Ms})`, '', 'information', undefined);
    r(`${b}: RSS at ${PODS} pods MiB`, x.rssMiB, '', '', undefined);
    r(`${b}: heap per stored pod bytes (after listing)`, `${x.heapPerPodBytes} (${x.heapPerPodAfterListingBytes})`, '', b === 'memory' ? '<= 3072' : '', b === 'memory' ? Math.max(x.heapPerPodBytes, x.heapPerPodAfterListingBytes) <= 3072 : undefined);
    r(`${b}: off-heap (external) per stored pod bytes (after listing)`, `${x.externalPerPodBytes} (${x.externalPerPodAfterListingBytes})`, '', 'information', undefined);
  }
  process.stdout.write(`\n${table(['measure', 'value', 'baseline (same run)', 'target', ''], rows)}\n`);
  delete results.sample;
  if (results.createPeer !== undefined) results.createPeer = { rate: round3(results.createPeer.rate), p50Ms: pct(results.createPeer.lat, 0.5), p99Ms: pct(results.createPeer.lat, 0.99) };
  delete results.tls;
  const out = { machine: m, pods: PODS, watchers: WATCHERS, modifications: MODS, modificationRate: RATE, unpacedModifications: UNPACED, page: PAGE, listRounds: LIST_ROUNDS, floorHttpP50Ms: pct(floor, 0.5), floorHttpP99Ms: pct(floor, 0.99), floorHttpsP50Ms: pct(floorTls, 0.5), floorHttpsP99Ms: pct(floorTls, 0.99), etcdFloorPutsPerSecond: results.etcdFloor ? round3(results.etcdFloor.rate) : null, createPeerPerSecond: results.createPeer ? round3(results.createPeer.rate) : null, results };
  mkdirSync(join(REPO, 'bench/results'), { recursive: true });
  writeFileSync(join(REPO, 'bench/results/apiserver.json'), `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write('wrote bench/results/apiserver.json\n');
}

runMain('apiserver benchmark', main, {
  cleanup: () => {
    for (const c of cleanups.splice(0)) c();
  },
});
