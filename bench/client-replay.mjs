// The client's own cost per watch event, without the server or the network:
// record once what platform-apiserver streams for a backlog of pod
// modifications (JSON and protobuf), then replay those bytes in-process, as
// fast as the client takes them, through the client's path (transport stream
// body -> rest watch decode -> informer store and handlers), built from dist/.
// Each replay runs in its own `node --expose-gc` process. Reports CPU µs per
// event (process.cpuUsage over the stream; min and median of the rounds) and
// heap per cached pod (growth after a full GC with the store full and the
// initial list dropped, divided by the store's size), for each wire and
// transform. What bench/informer.mjs measures end to end, minus the server.
//
//   node bench/client-replay.mjs [--pods=2000] [--mods=10000] [--rounds=5] [--transforms=none,strip] [--keep=DIR]
// (after `npm run build`; --keep keeps the recording in DIR and reuses it when present).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Readable } from 'node:stream';
import { Pool } from 'undici';
import { startApiServerProcess } from './lib/apiserver.mjs';
import { createPods, modifyPods, openKeeper, recordList } from './lib/informer-load.mjs';
import { REPO } from './lib/session.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const NS = 'bench';
const WIRES = { json: 'application/json', protobuf: 'application/vnd.platform.protobuf' };

/** Starts the server, makes the backlog, writes list.json, watch.<wire>, chunks.<wire>.json and meta.json into `dir`. */
async function record(dir, pods, mods) {
  const cleanups = [];
  try {
    const srv = await startApiServerProcess({ cleanups, extraArgs: ['--etcd-compaction-interval=2h'] });
    await createPods(srv, NS, pods, 16);
    const { rv } = await recordList(srv, NS, pods, join(dir, 'list.json'));
    const { finalRv } = await modifyPods(srv, NS, { pods, mods, width: 16 });
    // See openKeeper: without it the backlog watch is cut every ~1 000 events.
    const stopKeeper = await openKeeper(srv, NS, finalRv);
    for (const [wire, accept] of Object.entries(WIRES)) {
      const pool = new Pool(srv.url, { connections: 1, connect: { ca: srv.ca } });
      const ac = new AbortController();
      const res = await pool.request({ method: 'GET', path: `/api/v1/namespaces/${NS}/pods?watch=1&resourceVersion=${rv}&timeoutSeconds=600`, headers: { authorization: `Bearer ${srv.token}`, accept }, signal: ac.signal });
      const chunks = [];
      const last = Buffer.from(finalRv);
      for await (const c of res.body) {
        chunks.push(Buffer.from(c));
        if (c.includes(last)) break;
      }
      ac.abort();
      await pool.destroy().catch(() => {});
      writeFileSync(join(dir, `watch.${wire}`), Buffer.concat(chunks));
      writeFileSync(join(dir, `chunks.${wire}.json`), JSON.stringify(chunks.map((c) => c.length)));
    }
    await stopKeeper();
    writeFileSync(join(dir, 'meta.json'), JSON.stringify({ rv, finalRv, pods, mods }));
  } finally {
    for (const c of cleanups) c();
  }
}

/** The recorded bytes cut to whole events, in the chunks they arrived in; and how many events that is. */
function loadStream(dir, wire) {
  let bytes = readFileSync(join(dir, `watch.${wire}`));
  let events = 0;
  if (wire === 'json') {
    bytes = bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1);
    for (const b of bytes) if (b === 0x0a) events++;
  } else {
    let p = 0;
    while (p + 4 <= bytes.length && p + 4 + bytes.readUInt32BE(p) <= bytes.length) {
      p += 4 + bytes.readUInt32BE(p);
      events++;
    }
    bytes = bytes.subarray(0, p);
  }
  const chunks = [];
  let p = 0;
  for (const n of JSON.parse(readFileSync(join(dir, `chunks.${wire}.json`), 'utf8'))) {
    if (p >= bytes.length) break;
    chunks.push(Buffer.from(bytes.subarray(p, Math.min(p + n, bytes.length))));
    p += n;
  }
  return { chunks, events };
}

const dist = (rel) => import(pathToFileURL(join(REPO, 'dist', rel)).href);

/** One replay process: `rounds` fresh informers over the same bytes. Prints one JSON line. */
async function replay(dir, wire, transform, rounds) {
  const { loadApiCodec } = await dist('api/codec/index.js');
  const { createRestClient, RESOURCES } = await dist('client/rest/index.js');
  const informers = await dist('client/informer/index.js');
  const { openStream } = await dist('client/transport/body.js');
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
  const { chunks, events } = loadStream(dir, wire);
  const listText = readFileSync(join(dir, 'list.json'), 'utf8');
  const codec = await loadApiCodec();
  const log = { debug() {}, info() {}, warn: (m, f) => console.error('warn', m, f), error: (m, f) => console.error('error', m, f) };
  const gc = () => [0, 1, 2].forEach(() => globalThis.gc());
  const out = [];
  for (let r = 0; r < rounds; r++) {
    let list = JSON.parse(listText);
    let watches = 0;
    // The first watch gets the recording; a re-watch after it ends stays open and silent until the stop.
    const transport = {
      request: async () => Promise.reject(new Error('replay: no requests')),
      close: async () => {},
      stream: async (req) => {
        const first = ++watches === 1;
        let i = 0;
        const body = new Readable({
          read() {
            if (first) this.push(i < chunks.length ? chunks[i++] : null);
          },
        });
        return openStream({ request: { method: 'GET', path: req.path }, status: 200, headers: { 'content-type': WIRES[wire] }, body, abort() {}, unlink() {}, failureReason: () => undefined });
      },
    };
    const pods = createRestClient({ transport, codec, contentType: WIRES[wire], log }).resource(RESOURCES.pods, NS);
    let cpu0;
    const lw = {
      type: pods.type,
      namespace: pods.namespace,
      list: async () => ({ items: list.items, resourceVersion: meta.rv, continue: '' }),
      watch: (o) => {
        cpu0 ??= process.cpuUsage();
        return pods.watch(o);
      },
    };
    const opts = { log, watchList: false, ...(transform === 'strip' ? { transform: informers.stripManagedFields } : {}) };
    let informer = informers.createInformer(lw, opts);
    let seen = 0;
    let cpu;
    const done = new Promise((resolve) => informer.addHandlers({ onUpdate: () => ++seen === events && resolve((cpu = process.cpuUsage(cpu0))) }));
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    await done;
    list = undefined;
    gc();
    const full = process.memoryUsage().heapUsed;
    const size = informer.store.size;
    ac.abort(new Error('replay done'));
    await running;
    informer = undefined;
    gc();
    out.push({ cpuUs: (cpu.user + cpu.system) / events, heapPerPod: (full - process.memoryUsage().heapUsed) / size });
  }
  const cpus = out.map((o) => o.cpuUs).sort((a, b) => a - b);
  const heaps = out.map((o) => o.heapPerPod).sort((a, b) => a - b);
  console.log(JSON.stringify({ wire, transform, events, cpuMinUs: cpus[0], cpuMedianUs: cpus[Math.floor(cpus.length / 2)], heapPerPodBytes: heaps[Math.floor(heaps.length / 2)] }));
}

async function main() {
  if (args.replay !== undefined) return replay(args.dir, args.replay, args.transform, Number(args.rounds ?? 5));
  const dir = args.keep ?? mkdtempSync(join(tmpdir(), 'client-replay-'));
  try {
    if (!existsSync(join(dir, 'meta.json'))) {
      mkdirSync(dir, { recursive: true });
      process.stderr.write('recording the server’s watch streams...\n');
      await record(dir, Number(args.pods ?? 2000), Number(args.mods ?? 10_000));
    }
    const rows = [];
    for (const wire of Object.keys(WIRES)) {
      for (const transform of (args.transforms ?? 'none,strip').split(',')) {
        const self = fileURLToPath(import.meta.url);
        const r = spawnSync(process.execPath, ['--expose-gc', self, `--replay=${wire}`, `--transform=${transform}`, `--dir=${dir}`, `--rounds=${args.rounds ?? 5}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
        if (r.status !== 0) throw new Error(`replay ${wire} ${transform} failed (exit ${r.status})`);
        rows.push(JSON.parse(r.stdout.trim().split('\n').pop()));
      }
    }
    console.log('wire      transform  events  CPU µs/event min / median  heap B/cached pod');
    for (const r of rows) console.log(`${r.wire.padEnd(9)} ${r.transform.padEnd(10)} ${String(r.events).padStart(6)}  ${r.cpuMinUs.toFixed(1).padStart(8)} / ${r.cpuMedianUs.toFixed(1).padEnd(14)} ${Math.round(r.heapPerPodBytes)}`);
  } finally {
    if (args.keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
