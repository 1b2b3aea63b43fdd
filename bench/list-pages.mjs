// List pages of platform-apiserver alone (issue 16's list target), for
// iterating on the list path: starts the built server with the memory
// backend, creates --pods pods, then pages through them --rounds times as
// JSON and as protobuf (pages of 500; only the request and the body's
// arrival are timed, the client's decode is not), and the same-run floors:
// bare node:http and node:https servers answering one of those pages' bytes.
// --prof=DIR runs the server with --cpu-prof into DIR; --bin=FILE runs
// another build's bin/platform-apiserver.js (before/after in one machine state).
//
//   node bench/list-pages.mjs [--pods=10000] [--rounds=5] [--prof=DIR] [--bin=FILE]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bodyFloor, startApiServerProcess } from './lib/apiserver.mjs';
import { BenchError, machine, machineLine, now, ms, phase, quantile, round3, runMain, table } from './lib/common.mjs';
import { REPO } from './lib/session.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const PODS = Number(args.pods ?? 10_000);
const ROUNDS = Number(args.rounds ?? 5);
const PAGE = 500;
const NS = 'bench';
const cleanups = [];
const codec = await (await import(pathToFileURL(join(REPO, 'dist/api/codec/index.js')).href)).loadApiCodec();
const pct = (xs, q) => round3(quantile([...xs].sort((a, b) => a - b), q));

const podBody = (i) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p-${String(i).padStart(5, '0')}`, namespace: NS, labels: { app: 'bench', shard: String(i % 16) } },
    spec: { nodeName: `node-${i % 50}`, containers: [{ name: 'c', image: 'registry.local/app:1.0', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
  });

function startServer() {
  return startApiServerProcess({ cleanups, nodeArgs: args.prof === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${args.prof}`], ...(args.bin === undefined ? {} : { bin: args.bin }) });
}

async function listPages(srv, accept) {
  const lat = [];
  let sample;
  for (let r = 0; r < ROUNDS; r++) {
    let cont = '';
    do {
      const t0 = now();
      const body = await srv.call('GET', `/api/v1/namespaces/${NS}/pods?limit=${PAGE}${cont === '' ? '' : `&continue=${encodeURIComponent(cont)}`}`, { accept });
      lat.push(ms(t0, now()));
      const list = accept === 'application/json' ? JSON.parse(body.toString()) : codec.decode(body).object;
      if (list.items.length !== Math.min(PAGE, PODS)) throw new BenchError(`page of ${list.items.length} items`);
      cont = list.metadata?.continue ?? '';
      sample ??= body;
    } while (cont !== '');
  }
  return { lat, sample };
}

async function main() {
  process.stdout.write(`${machineLine(machine())}\n`);
  phase('starting platform-apiserver (memory)');
  const srv = await startServer();
  await srv.call('POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }) });
  const heap = async () => JSON.parse((await srv.call('POST', '/debug/faults/heap', { body: '{}' })).toString());
  const heap0 = await heap();
  phase(`create ${PODS} pods`);
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < PODS) await srv.call('POST', `/api/v1/namespaces/${NS}/pods`, { body: podBody(next++) });
  }));
  const heap1 = await heap();
  phase(`list in pages of ${PAGE}, ${ROUNDS} rounds (JSON, protobuf)`);
  const json = await listPages(srv, 'application/json');
  const pb = await listPages(srv, 'application/vnd.platform.protobuf');
  const heap2 = await heap();
  await srv.stop();
  phase('floors: bare node:http and node:https, one JSON page');
  const httpLat = await bodyFloor(json.sample, ROUNDS * 20);
  const httpsLat = await bodyFloor(json.sample, ROUNDS * 20, srv.tls);
  const row = (what, lat) => [what, `${pct(lat, 0.5)}/${pct(lat, 0.99)}`, String(lat.length)];
  process.stdout.write(`\n${table(['page of 500', 'p50/p99 ms', 'samples'], [row('JSON', json.lat), row('protobuf', pb.lat), row('node:http floor (JSON bytes)', httpLat), row('node:https floor (JSON bytes)', httpsLat)])}\n`);
  process.stdout.write(`JSON page ${json.sample.length} B, protobuf page ${pb.sample.length} B\n`);
  const slowest = (lat) => lat.map((ms, i) => [ms, i]).sort((a, b) => b[0] - a[0]).slice(0, 5).map(([ms, i]) => `${round3(ms)} (round ${Math.floor(i / (lat.length / ROUNDS)) + 1}, page ${(i % (lat.length / ROUNDS)) + 1})`).join(', ');
  process.stdout.write(`slowest JSON pages ms: ${slowest(json.lat)}\nslowest protobuf pages ms: ${slowest(pb.lat)}\n`);
  const perPod = (a, b, field) => round3((b[field] - a[field]) / PODS);
  process.stdout.write(`per stored pod (after a full GC), bytes: heap ${perPod(heap0, heap1, 'heapUsed')} after the creates, ${perPod(heap0, heap2, 'heapUsed')} after listing; off-heap (external) ${perPod(heap0, heap1, 'external')} / ${perPod(heap0, heap2, 'external')}\n`);
}

runMain('list-pages', main, { cleanup: () => cleanups.splice(0).reverse().forEach((f) => f()) });
