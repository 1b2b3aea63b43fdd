// The informer benchmark (issue 17 "Performance"): in one run, start
// platform-apiserver (memory backend), create 10 000 small pods, record their
// list at resourceVersion X, apply 50 000 modifications, then for each
// contender start an informer whose initial list is the recorded one and
// whose watch starts from X, so the server streams the 50 000-event backlog
// as fast as it can. Measured per contender, each in its own process with
// --expose-gc (bench/lib/informer-contender.mjs): events/s from the watch
// request to the handler of the last event, CPU per event, and heap per
// cached pod after a full GC. Contenders: the project's informer over
// protobuf and over JSON, and @kubernetes/client-node's informer (JSON) as
// the same-run peer; the floors read the same watch raw (events counted in
// the bytes, nothing decoded): what the server and the connection deliver.
// Prints a table, writes bench/results/informer.json.
//
//   node bench/informer.mjs [--pods=10000] [--mods=50000] [--width=16] [--only=floor-protobuf,protobuf,floor-json,json,peer] [--keeper=1] [--timeout=600]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServerProcess } from './lib/apiserver.mjs';
import { BenchError, machine, machineLine, phase, round3, runMain, table } from './lib/common.mjs';
import { createPods, firstEventAfter, modifyPods, openKeeper, recordList } from './lib/informer-load.mjs';
import { procTicks } from './lib/proc.mjs';
import { REPO } from './lib/session.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const PODS = Number(args.pods ?? 10_000);
const MODS = Number(args.mods ?? 50_000);
/** Modifications in flight while the backlog is written. */
const WIDTH = Number(args.width ?? 16);
const ALL = ['floor-protobuf', 'protobuf', 'floor-json', 'json', 'peer'];
const CONTENDERS = (args.only ?? ALL.join(',')).split(',').filter((c) => c !== '');
/** 0: no keeper watch (see openKeeper in bench/lib/informer-load.mjs: the backlog then comes in pieces). */
const KEEPER = args.keeper !== '0';
const TIMEOUT_S = Number(args.timeout ?? 600);
/**
 * The memory store keeps the changes of the last --etcd-compaction-interval
 * (default 5 min). The load and three contenders can outlast that on a busy
 * machine, and a watch from X would then get 410: the run widens the window.
 */
const HISTORY_WINDOW = '2h';
const NS = 'bench';
const CLOCK_TICKS = 100;
const TARGETS = { protobuf: 25_000, json: 12_000, peerRatio: 2, heapPerPodBytes: 2048 };
const cleanups = [];

for (const c of CONTENDERS) if (!ALL.includes(c)) throw new BenchError(`--only: unknown contender ${c} (${ALL.join(', ')})`);

const NAMES = {
  'floor-protobuf': 'floor: raw watch read, protobuf frames counted',
  protobuf: 'project informer (protobuf)',
  'floor-json': 'floor: raw watch read, JSON lines counted',
  json: 'project informer (JSON)',
  peer: '@kubernetes/client-node informer (JSON)',
};

/** Runs one contender in its own process; resolves with its JSON line plus the server's CPU during it. */
function runContender(spec, dir, serverPid) {
  const specFile = join(dir, `${spec.contender}.json`);
  writeFileSync(specFile, JSON.stringify(spec));
  const ticks0 = procTicks(serverPid);
  const child = spawn(process.execPath, ['--expose-gc', join(REPO, 'bench/lib/informer-contender.mjs'), specFile], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || line === '') return reject(new BenchError(`contender ${spec.contender} exited ${code}:\n${err}`));
      const r = JSON.parse(line);
      r.serverCpuMsPerEvent = r.updates === 0 ? null : round3((((procTicks(serverPid) - ticks0) / CLOCK_TICKS) * 1000) / r.updates);
      resolve(r);
    });
  });
}

function report(results, load) {
  const rows = [];
  const peer = results.peer;
  const row = (what, value, target, pass) => rows.push([what, String(value), target, pass === undefined ? '' : pass ? 'PASS' : 'MISS']);
  for (const c of CONTENDERS) {
    const r = results[c];
    const name = NAMES[c];
    const floor = c.startsWith('floor');
    const complete = r.outcome === 'done' && r.updates === MODS && (floor || r.storeSize === PODS);
    const target = c === 'protobuf' ? TARGETS.protobuf : c === 'json' ? TARGETS.json : undefined;
    const role = floor ? 'baseline' : c === 'peer' ? 'peer' : `>= ${target}`;
    row(`${name}: events/s`, r.eventsPerSecond ?? `none (${r.outcome})`, role, target === undefined ? undefined : complete && r.eventsPerSecond >= target);
    if (c === 'json' && peer !== undefined) {
      const ratio = peer.eventsPerSecond ? round3(r.eventsPerSecond / peer.eventsPerSecond) : null;
      row(`${name}: rate / peer's rate`, ratio ?? 'n/a', `>= ${TARGETS.peerRatio}x`, ratio === null ? undefined : complete && ratio >= TARGETS.peerRatio);
    }
    if (floor) row(`${name}: events counted, watch requests`, `${r.updates}, ${r.watchCalls}`, `${MODS}, 1`, complete);
    else row(`${name}: events handled, store size, watch requests, lists`, `${r.updates}, ${r.storeSize}, ${r.watchCalls}, ${r.listCalls}`, `${MODS}, ${PODS}, -, 1`, complete && r.listCalls === 1);
    if (!floor) row(`${name}: heap per cached pod, bytes (after a full GC)`, r.heapPerPodBytes, c === 'peer' ? 'information' : `<= ${TARGETS.heapPerPodBytes}`, c === 'peer' ? undefined : r.heapPerPodBytes !== null && r.heapPerPodBytes <= TARGETS.heapPerPodBytes);
    row(`${name}: CPU ms per event, client; server`, `${round3(r.cpuMsPerEvent)}; ${r.serverCpuMsPerEvent}`, 'information', undefined);
    if (r.errors.length > 0) process.stdout.write(`${name}: logged ${r.errors.length === 5 ? '5+' : r.errors.length} warning/error(s), first: ${r.errors[0]}\n`);
  }
  process.stdout.write(`\nload: ${PODS} pods created at ${round3(load.createsPerSecond)}/s, list at X=${load.listRv} (${load.listBytes} B, ${load.podBytes} B per pod as JSON), ${MODS} modifications at ${round3(load.modsPerSecond)}/s up to ${load.finalRv}; watch from X: first event ${load.firstEvent.type} at ${load.firstEvent.rv}; keeper watch ${KEEPER ? 'on' : 'off'}\n`);
  process.stdout.write(`\n${table(['measure', 'value', 'target', ''], rows)}\n`);
}

async function main() {
  const m = machine();
  process.stdout.write(`${machineLine(m)}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-informer-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  phase(`starting platform-apiserver (memory, --etcd-compaction-interval=${HISTORY_WINDOW})`);
  const srv = await startApiServerProcess({ cleanups, connections: WIDTH + 4, extraArgs: [`--etcd-compaction-interval=${HISTORY_WINDOW}`] });
  const conf = join(dir, 'admin.conf');
  writeFileSync(conf, adminConfig(srv));
  phase(`create ${PODS} pods`);
  const createsPerSecond = await createPods(srv, NS, PODS, 32);
  const listFile = join(dir, 'list.json');
  const list = await recordList(srv, NS, PODS, listFile);
  phase(`apply ${MODS} modifications after X=${list.rv} (${WIDTH} in flight)`);
  const mods = await modifyPods(srv, NS, { pods: PODS, mods: MODS, width: WIDTH });
  const firstEvent = await firstEventAfter(srv, NS, list.rv);
  if (firstEvent.type !== 'MODIFIED') throw new BenchError(`the server no longer streams the backlog from X=${list.rv}: ${firstEvent.type} ${firstEvent.message ?? ''}`);
  const stopKeeper = KEEPER ? await openKeeper(srv, NS, mods.finalRv) : async () => {};
  const load = { createsPerSecond, listRv: list.rv, listBytes: list.bytes, podBytes: list.podBytes, modsPerSecond: mods.perSecond, finalRv: mods.finalRv, firstEvent };
  const results = {};
  for (const c of CONTENDERS) {
    phase(`contender ${c}: list at X, watch from X through ${MODS} events`);
    results[c] = await runContender({ contender: c, conf, server: { url: srv.url, ca: srv.ca, token: srv.token }, namespace: NS, listFile, listRv: list.rv, finalRv: mods.finalRv, expected: MODS, timeoutMs: TIMEOUT_S * 1000 }, dir, srv.pid);
  }
  await stopKeeper();
  await srv.stop();
  report(results, load);
  const out = { machine: m, pods: PODS, modifications: MODS, width: WIDTH, keeper: KEEPER, historyWindow: HISTORY_WINDOW, targets: TARGETS, load, results };
  mkdirSync(join(REPO, 'bench/results'), { recursive: true });
  writeFileSync(join(REPO, 'bench/results/informer.json'), `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write('wrote bench/results/informer.json\n');
}

/** A platformconfig of the server's admin (CA inline, bearer token) for the contenders. */
function adminConfig(srv) {
  const ca = Buffer.from(srv.ca).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: bench',
    '  cluster:',
    `    server: ${srv.url}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    '- name: admin',
    '  user:',
    `    token: ${srv.token}`,
    'contexts:',
    '- name: bench',
    '  context:',
    '    cluster: bench',
    '    user: admin',
    `    namespace: ${NS}`,
    'current-context: bench',
    '',
  ].join('\n');
}

runMain('informer benchmark', main, {
  cleanup: () => {
    for (const c of cleanups.splice(0).reverse()) c();
  },
});
