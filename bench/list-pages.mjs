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
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttp } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool, request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { BenchError, machine, machineLine, now, ms, phase, quantile, round3, runMain, table } from './lib/common.mjs';
import { freePort } from './lib/proc.mjs';
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

async function startServer() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-list-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const conf = join(dir, 'admin.conf');
  const prof = args.prof === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${args.prof}`];
  const proc = spawn(process.execPath, ['--expose-gc', ...prof, args.bin ?? join(REPO, 'bin/platform-apiserver.js'), '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--admin-platformconfig=${conf}`], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, PLATFORM_APISERVER_TEST_FAULTS: '1' } });
  let log = '';
  proc.stderr.on('data', (d) => (log = (log + d.toString()).slice(-4000)));
  const exited = new Promise((r) => proc.once('exit', r));
  cleanups.push(() => proc.exitCode === null && proc.kill('SIGKILL'));
  const deadline = Date.now() + 30_000;
  let admin;
  while (admin === undefined) {
    if (proc.exitCode !== null) throw new BenchError(`platform-apiserver exited (${proc.exitCode}):\n${log}`);
    if (Date.now() > deadline) throw new BenchError(`platform-apiserver: no admin platformconfig within 30 s:\n${log}`);
    try {
      admin = parseYaml(readFileSync(conf, 'utf8'));
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const cluster = admin.clusters[0].cluster;
  const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString();
  const url = cluster.server;
  const token = admin.users[0].user.token;
  const pool = new Pool(url, { connections: 36, connect: { ca } });
  const call = async (method, path, { body, accept = 'application/json' } = {}) => {
    const res = await request(`${url}${path}`, { method, dispatcher: pool, headers: { authorization: `Bearer ${token}`, accept, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body }) });
    const buf = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode >= 300) throw new BenchError(`${method} ${path}: ${res.statusCode} ${buf.toString().slice(0, 300)}`);
    return buf;
  };
  const certDir = join(dir, 'certs');
  return {
    call,
    certDir,
    async stop() {
      proc.kill('SIGTERM');
      await exited;
      await pool.close();
    },
  };
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

/** A bare server answering `body`; the client times what it times for the server (no decode). */
async function floor(create, scheme, body, tls) {
  const server = create(tls ?? {}, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `${scheme}://127.0.0.1:${server.address().port}`;
  const pool = new Pool(url, { connections: 1, ...(tls === undefined ? {} : { connect: { ca: tls.ca } }) });
  const lat = [];
  for (let i = 0; i < ROUNDS * 20; i++) {
    const t0 = now();
    const res = await request(`${url}/`, { dispatcher: pool });
    await res.body.arrayBuffer();
    lat.push(ms(t0, now()));
  }
  await pool.close();
  await new Promise((r) => server.close(r));
  return lat;
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
  const httpLat = await floor(createHttp, 'http', json.sample);
  const tls = { cert: readFileSync(join(srv.certDir, 'apiserver.crt')), key: readFileSync(join(srv.certDir, 'apiserver.key')), ca: readFileSync(join(srv.certDir, 'apiserver-ca.crt')) };
  const httpsLat = await floor(createHttps, 'https', json.sample, tls);
  const row = (what, lat) => [what, `${pct(lat, 0.5)}/${pct(lat, 0.99)}`, String(lat.length)];
  process.stdout.write(`\n${table(['page of 500', 'p50/p99 ms', 'samples'], [row('JSON', json.lat), row('protobuf', pb.lat), row('node:http floor (JSON bytes)', httpLat), row('node:https floor (JSON bytes)', httpsLat)])}\n`);
  process.stdout.write(`JSON page ${json.sample.length} B, protobuf page ${pb.sample.length} B\n`);
  const slowest = (lat) => lat.map((ms, i) => [ms, i]).sort((a, b) => b[0] - a[0]).slice(0, 5).map(([ms, i]) => `${round3(ms)} (round ${Math.floor(i / (lat.length / ROUNDS)) + 1}, page ${(i % (lat.length / ROUNDS)) + 1})`).join(', ');
  process.stdout.write(`slowest JSON pages ms: ${slowest(json.lat)}\nslowest protobuf pages ms: ${slowest(pb.lat)}\n`);
  const perPod = (a, b, field) => round3((b[field] - a[field]) / PODS);
  process.stdout.write(`per stored pod (after a full GC), bytes: heap ${perPod(heap0, heap1, 'heapUsed')} after the creates, ${perPod(heap0, heap2, 'heapUsed')} after listing; off-heap (external) ${perPod(heap0, heap1, 'external')} / ${perPod(heap0, heap2, 'external')}\n`);
}

runMain('list-pages', main, { cleanup: () => cleanups.splice(0).reverse().forEach((f) => f()) });
