// One contender of bench/informer.mjs, run in its own process (with
// --expose-gc) so each heap is measured apart:
//
//   node --expose-gc bench/lib/informer-contender.mjs SPEC.json
//
// SPEC: { contender: 'protobuf' | 'json' | 'peer' | 'floor-json' |
// 'floor-json-parse' | 'floor-protobuf', name (the row, e.g. 'live-json'), conf, server: { url,
// ca, token } (the live server or the replay), namespace, listFile, listRv,
// finalRv, expected, timeoutMs }. The informer's initial list is the
// recorded list at listRv (read from listFile before anything is timed); its
// watch starts from listRv, so the server streams the whole backlog. The
// window runs from the first watch request to the handler of the event whose
// resourceVersion is finalRv. Prints one JSON line on stdout:
// { contender, updates, adds, windowMs, eventsPerSecond, cpuMsPerEvent,
//   heapBaseBytes, heapAfterBytes, heapPerPodBytes, storeSize, watchCalls,
//   listCalls, errors, timedOut }.
//
// The project's contender uses only the client's pinned entry points in
// dist/ (config, transport, rest, informer, and the codec); the peer is
// @kubernetes/client-node's makeInformer with a listFn returning the list.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { eventCounter, jsonLineParser } from './informer-frames.mjs';
import { REPO } from './session.mjs';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const now = () => process.hrtime.bigint();
const msBetween = (a, b) => Number(b - a) / 1e6;

function fullGc() {
  if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc');
  for (let i = 0; i < 3; i++) globalThis.gc();
}

/** The window's bookkeeping, shared by both kinds of contender. */
function tracker() {
  const t = { t0: undefined, tEnd: undefined, cpu0: undefined, cpu: undefined, updates: 0, adds: 0, watchCalls: 0, listCalls: 0, errors: [] };
  let finish;
  t.done = new Promise((r) => (finish = r));
  t.watchStarted = () => {
    t.watchCalls++;
    if (t.t0 === undefined) {
      t.t0 = now();
      t.cpu0 = process.cpuUsage();
    }
  };
  t.update = (obj) => {
    t.updates++;
    if (obj?.metadata?.resourceVersion === spec.finalRv) {
      t.tEnd = now();
      t.cpu = process.cpuUsage(t.cpu0);
      finish('done');
    }
  };
  // What is logged after the last event (the stop's own aborts) is not the run's.
  t.error = (msg) => {
    if (t.tEnd === undefined && t.errors.length < 5) t.errors.push(String(msg).slice(0, 300));
  };
  t.fail = (msg) => {
    t.error(msg);
    finish('failed');
  };
  return t;
}

async function importDist(rel) {
  try {
    return await import(pathToFileURL(join(REPO, 'dist', rel)).href);
  } catch (err) {
    throw new Error(`dist/${rel} could not be loaded (build a branch that has the client: npm run build): ${err.message}`);
  }
}

/** The project's informer over the pinned entry points; `contentType` picks protobuf or JSON. */
async function projectContender(t, contentType) {
  const { loadPlatformConfig } = await importDist('client/config/index.js');
  const { createTransport, clientRateLimits } = await importDist('client/transport/index.js');
  const { createRestClient, RESOURCES } = await importDist('client/rest/index.js');
  const { createInformer } = await importDist('client/informer/index.js');
  const { loadApiCodec } = await importDist('api/codec/index.js');
  const log = {
    info() {},
    warn: (msg, fields) => t.error(`warn ${msg} ${JSON.stringify(fields ?? {})}`),
    error: (msg, fields) => t.error(`error ${msg} ${JSON.stringify(fields ?? {})}`),
  };
  const conn = await loadPlatformConfig(spec.conf);
  const limits = clientRateLimits({ platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0 });
  const transport = createTransport(conn, { ...limits, log, userAgent: 'bench-informer' });
  const codec = await loadApiCodec();
  const rest = createRestClient({ transport, codec, contentType, log });
  const pods = rest.resource(RESOURCES.pods, spec.namespace);
  let recorded;
  const lw = {
    type: pods.type,
    namespace: pods.namespace,
    // The recorded list at listRv, whatever was asked: a second list would be a relist (counted; it means the backlog was lost).
    list: async () => {
      t.listCalls++;
      return { items: recorded.items, resourceVersion: spec.listRv, continue: '', remainingItemCount: undefined };
    },
    watch: (opts) => {
      t.watchStarted();
      return pods.watch(opts);
    },
  };
  // The agent's informers never read managedFields: they ask for objects without them (a protobuf decode skips them on the wire,
  // JSON strips them after parsing), as upstream's scheduler and controller-manager strip them from their caches.
  const informer = createInformer(lw, { log, watchList: false, omitManagedFields: true });
  informer.addHandlers({ onAdd: () => void t.adds++, onUpdate: (_old, obj) => t.update(obj) });
  const ac = new AbortController();
  return {
    load: (list) => (recorded = list),
    start: () => {
      void informer.run(ac.signal).then(
        () => (ac.signal.aborted ? undefined : t.fail('informer.run resolved before stop')),
        (err) => t.fail(`informer.run rejected: ${err?.message ?? err}`),
      );
    },
    release: () => (recorded = undefined),
    storeSize: () => informer.store.size,
    stop: async () => {
      ac.abort(new Error('bench done'));
      await transport.close();
    },
  };
}

/** @kubernetes/client-node's informer (JSON), the peer a TypeScript user would otherwise pick. */
async function peerContender(t) {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(spec.conf);
  // The window starts at the watch request, as for the project's contender (the list is handed over in memory).
  const original = k8s.Watch.prototype.watch;
  k8s.Watch.prototype.watch = function watch(...a) {
    t.watchStarted();
    return original.apply(this, a);
  };
  let recorded;
  const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${spec.namespace}/pods`, async () => {
    t.listCalls++;
    return recorded;
  });
  informer.on('add', () => void t.adds++);
  informer.on('update', (obj) => t.update(obj));
  // The peer stops for good after an error other than 410: the run has failed then.
  informer.on('error', (err) => t.fail(`peer informer error: ${err?.message ?? err}`));
  return {
    load: (list) => (recorded = list),
    start: () => {
      informer.start().catch((err) => t.fail(`peer start: ${err?.message ?? err}`));
    },
    release: () => (recorded = undefined),
    storeSize: () => informer.list().length,
    stop: () => informer.stop(),
  };
}

/**
 * The floor: the same watch read raw over undici, events counted in the bytes
 * (bench/lib/informer-frames.mjs), nothing decoded or stored. What the server
 * (live or replay) and the connection deliver: no informer can be faster.
 * With `parse` (JSON), each event's line is also JSON.parse-d and dropped: the
 * floor of any client that decodes every JSON event.
 */
async function floorContender(t, protobuf, parse = false) {
  const { Pool } = await import('undici');
  const pool = new Pool(spec.server.url, { connections: 1, connect: { ca: spec.server.ca } });
  const ac = new AbortController();
  const count = (n) => {
    for (let i = 0; i < n; i++) t.update({ metadata: { resourceVersion: t.updates + 1 === spec.expected ? spec.finalRv : '' } });
  };
  async function read() {
    t.watchStarted();
    const accept = protobuf ? 'application/vnd.platform.protobuf;stream=watch' : 'application/json';
    const res = await pool.request({ method: 'GET', path: `/api/v1/namespaces/${spec.namespace}/pods?watch=1&resourceVersion=${spec.listRv}`, headers: { authorization: `Bearer ${spec.server.token}`, accept }, signal: ac.signal });
    if (res.statusCode !== 200) return t.fail(`floor watch: HTTP ${res.statusCode}`);
    const counter = parse ? jsonLineParser() : eventCounter(protobuf);
    for await (const chunk of res.body) count(counter.push(chunk));
    if (t.tEnd === undefined) t.fail(`floor watch: the server ended the stream after ${t.updates} events`);
  }
  return {
    load: () => {},
    start: () => {
      read().catch((err) => (ac.signal.aborted ? undefined : t.fail(`floor watch: ${err?.message ?? err}`)));
    },
    release: () => {},
    storeSize: () => 0,
    stop: async () => {
      ac.abort();
      await pool.destroy();
    },
  };
}

async function setUp(t) {
  switch (spec.contender) {
    case 'peer':
      return peerContender(t);
    case 'floor-json':
      return floorContender(t, false);
    case 'floor-json-parse':
      return floorContender(t, false, true);
    case 'floor-protobuf':
      return floorContender(t, true);
    default:
      return projectContender(t, spec.contender === 'protobuf' ? 'application/vnd.platform.protobuf' : 'application/json');
  }
}

async function main() {
  const t = tracker();
  const c = await setUp(t);
  fullGc();
  const heapBase = process.memoryUsage().heapUsed;
  if (!spec.contender.startsWith('floor')) c.load(JSON.parse(readFileSync(spec.listFile, 'utf8')));
  let timer;
  const timeout = new Promise((r) => (timer = setTimeout(() => r('timeout'), spec.timeoutMs)));
  c.start();
  const outcome = await Promise.race([t.done, timeout]);
  clearTimeout(timer);
  // The heap with the store full and the recorded list dropped (the store's objects are the watch's by now).
  c.release();
  fullGc();
  const heapAfter = process.memoryUsage().heapUsed;
  const storeSize = c.storeSize();
  const windowMs = t.tEnd === undefined ? null : msBetween(t.t0, t.tEnd);
  const result = {
    contender: spec.name ?? spec.contender,
    outcome,
    updates: t.updates,
    adds: t.adds,
    windowMs,
    eventsPerSecond: windowMs === null ? null : Math.round((t.updates / windowMs) * 1000),
    cpuMsPerEvent: t.cpu === undefined ? null : (t.cpu.user + t.cpu.system) / 1000 / Math.max(1, t.updates),
    heapBaseBytes: heapBase,
    heapAfterBytes: heapAfter,
    heapPerPodBytes: storeSize === 0 ? null : Math.round((heapAfter - heapBase) / storeSize),
    storeSize,
    watchCalls: t.watchCalls,
    listCalls: t.listCalls,
    errors: t.errors,
  };
  await c.stop();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // Sockets of a stopped informer may linger in keep-alive pools; the measurement is written.
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`informer contender ${spec.contender} FAILED: ${err?.stack ?? err}\n`);
  process.exit(1);
});
