#!/usr/bin/env node
// Micro benchmark of the API codec (src/api/codec).
//
//   node bench/codec.mjs [--iterations N] [--json PATH]
//
// Times, per operation, N runs after a warm-up (p50/p99 in ms): encode and
// decode of a realistic pod (test/fixtures/api/pod.json) and of a 500-pod
// list, the server's list path (a PodList envelope built from 500 stored
// envelopes' raw bytes, no re-encoding), strict decoding of a pod body, next
// to JSON.stringify / JSON.parse of the same objects as the baseline. Also
// reports sizes and the heap held per stored small pod (10 000 envelopes).
// Prints a table and writes JSON (default bench/results/codec.json).
// Needs a built dist/ (npm run build). A missed target is a result, not an error.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, machineLine, quantile, round3, table } from './lib/common.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const ITER = Number(arg('--iterations', '200'));
const OUT = resolve(arg('--json', join(REPO, 'bench/results/codec.json')));

const { loadApiCodec } = await import(join(REPO, 'dist/api/codec/index.js'));
const codec = await loadApiCodec();
const pod = JSON.parse(readFileSync(join(REPO, 'test/fixtures/api/pod.json'), 'utf8'));
const { kind: _k, apiVersion: _a, ...podBody } = pod;
const items = Array.from({ length: 500 }, (_, i) => ({ ...podBody, metadata: { ...podBody.metadata, name: `web-${i}`, uid: `uid-${i}`, resourceVersion: String(1000 + i) } }));
const list = { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '2000', continue: 'eyJ2IjoibWV0YS5wbGF0Zm9ybS5pby92MSJ9', remainingItemCount: 9500 }, items };
const POD_TM = { apiVersion: 'v1', kind: 'Pod' };
const LIST_TM = { apiVersion: 'v1', kind: 'PodList' };

const podJson = JSON.stringify(pod);
const podProto = codec.encode(pod);
const listJson = JSON.stringify(list);
const listProto = codec.encode(list);
// Stored as the server stores them: without metadata.resourceVersion (the page splices each item's in).
const stored = items.map(({ metadata: { resourceVersion: _rv, ...meta }, ...rest }) => codec.encode({ ...rest, metadata: meta }, POD_TM));
const storedItems = stored.map((envelope, i) => ({ envelope, resourceVersion: String(1000 + i) }));

function time(fn) {
  for (let i = 0; i < Math.min(50, ITER); i++) fn();
  const samples = [];
  for (let i = 0; i < ITER; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { n: samples.length, p50: round3(quantile(samples, 0.5)), p99: round3(quantile(samples, 0.99)), max: round3(samples[samples.length - 1]) };
}

const cases = [
  ['pod: JSON.stringify (baseline)', () => JSON.stringify(pod)],
  ['pod: protobuf encode', () => codec.encode(pod)],
  ['pod: JSON.parse (baseline)', () => JSON.parse(podJson)],
  ['pod: protobuf decode', () => codec.decode(podProto)],
  ['pod: strict JSON decode', () => codec.decodeJsonStrict(podJson, POD_TM)],
  ['500 pods: JSON.stringify (baseline)', () => JSON.stringify(list)],
  ['500 pods: protobuf encode', () => codec.encode(list)],
  ['500 pods: list from stored envelopes', () => codec.encodeListFromStored(LIST_TM, list.metadata, storedItems)],
  ['500 pods: JSON.parse (baseline)', () => JSON.parse(listJson)],
  ['500 pods: protobuf decode', () => codec.decode(listProto)],
];
const results = {};
for (const [name, fn] of cases) results[name] = time(fn);

// Heap held per stored small pod: 10 000 envelopes kept in a Map, as a store would.
function heapPerPod() {
  const small = { metadata: { name: 'x', namespace: 'default', uid: '4f9e8c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b', resourceVersion: '1', creationTimestamp: '2024-03-01T10:20:30Z', labels: { app: 'web' } }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx:1.25', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] }, status: { phase: 'Pending' } };
  globalThis.gc?.();
  const before = process.memoryUsage();
  const store = new Map();
  for (let i = 0; i < 10000; i++) {
    const o = { ...small, metadata: { ...small.metadata, name: `pod-${i}`, resourceVersion: String(i) } };
    store.set(`/pods/default/pod-${i}`, codec.encode(o, POD_TM));
  }
  globalThis.gc?.();
  const after = process.memoryUsage();
  const bytes = after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers);
  return { pods: store.size, envelopeBytes: store.get('/pods/default/pod-0').length, bytesPerPod: Math.round(bytes / store.size), gcExposed: typeof globalThis.gc === 'function' };
}
const heap = heapPerPod();

const sizes = { podJson: Buffer.byteLength(podJson), podProtobuf: podProto.length, listJson: Buffer.byteLength(listJson), listProtobuf: listProto.length };
const m = machine();
console.log(machineLine(m));
console.log(table(['case', 'n', 'p50 ms', 'p99 ms', 'max ms'], Object.entries(results).map(([k, v]) => [k, v.n, v.p50, v.p99, v.max])));
console.log(`sizes: pod ${sizes.podJson} B JSON / ${sizes.podProtobuf} B protobuf; 500-pod list ${sizes.listJson} B JSON / ${sizes.listProtobuf} B protobuf`);
console.log(`heap per stored small pod: ${heap.bytesPerPod} B (${heap.envelopeBytes} B envelope; target <= 3072 B${heap.gcExposed ? '' : '; run with node --expose-gc for a steadier figure'})`);
const page = results['500 pods: list from stored envelopes'];
console.log(`500-pod protobuf page from stored envelopes: p99 ${page.p99} ms (the codec's share of the 15 ms target)`);
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, JSON.stringify({ machine: m, iterations: ITER, results, sizes, heap }, null, 2));
console.log(`wrote ${OUT}`);
