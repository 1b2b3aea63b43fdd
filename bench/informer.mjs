// The informer benchmark (issue 17 "Performance"): in one run, start
// platform-apiserver (memory backend), create 10 000 small pods, record their
// list at resourceVersion X, apply 50 000 modifications, then record the
// server's watch from X once per representation (protobuf, JSON: the exact
// body and headers, 50 000 events each; bench/lib/informer-record.mjs, timed:
// the live floors). The live server streams 7-10 000 events/s at most (0.10-
// 0.15 ms of its CPU per event), below the targets, so the contenders are
// measured against a replay server (bench/lib/informer-replay-server.mjs, its
// own process, node:https with the API server's certificate) that writes the
// recorded bytes as fast as the socket drains. Per contender, each in its own
// process with --expose-gc (bench/lib/informer-contender.mjs): events/s from
// the watch request to the handler of the last event, CPU per event, and
// heap per cached pod after a full GC. Contenders: the project's informer
// over protobuf and over JSON, @kubernetes/client-node's informer (JSON) as
// the same-run peer, the delivery floors (the replayed watch read raw,
// events counted in the bytes) and the JSON decode floor (the same read with
// each event JSON.parse-d and dropped: what any client that decodes every
// JSON event, the peer included, must at least spend). The same informers also run once against the
// live server, as information. Prints a table, writes
// bench/results/informer.json.
//
//   node bench/informer.mjs [--pods=10000] [--mods=50000] [--width=16] [--only=floor-protobuf,protobuf,floor-json,floor-json-parse,json,peer,live-protobuf,live-json,live-peer] [--keeper=1] [--timeout=600]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServerProcess } from './lib/apiserver.mjs';
import { BenchError, machine, machineLine, phase, round3, runMain, table } from './lib/common.mjs';
import { createPods, firstEventAfter, modifyPods, openKeeper, recordList } from './lib/informer-load.mjs';
import { recordWatch } from './lib/informer-record.mjs';
import { startReplay } from './lib/informer-replay.mjs';
import { procTicks } from './lib/proc.mjs';
import { REPO } from './lib/session.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const PODS = Number(args.pods ?? 10_000);
const MODS = Number(args.mods ?? 50_000);
/** Modifications in flight while the backlog is written. */
const WIDTH = Number(args.width ?? 16);
const REPLAYED = ['floor-protobuf', 'protobuf', 'floor-json', 'floor-json-parse', 'json', 'peer'];
const LIVE = ['live-protobuf', 'live-json', 'live-peer'];
const ALL = [...REPLAYED, ...LIVE];
const CONTENDERS = (args.only ?? ALL.join(',')).split(',').filter((c) => c !== '');
/** 0: no keeper watch (see openKeeper in bench/lib/informer-load.mjs: the backlog then comes in pieces). */
const KEEPER = args.keeper !== '0';
const TIMEOUT_S = Number(args.timeout ?? 600);
/**
 * The memory store keeps the changes of the last --etcd-compaction-interval
 * (default 5 min). The load, the recordings and the live contenders can
 * outlast that on a busy machine, and a watch from X would then get 410: the
 * run widens the window.
 */
const HISTORY_WINDOW = '2h';
const NS = 'bench';
const CLOCK_TICKS = 100;
const TARGETS = { protobuf: 25_000, json: 12_000, peerRatio: 2, heapPerPodBytes: 2048 };
const METHOD = {
  name: 'recorded-replay',
  summary:
    'the live server streams the backlog at 7-10 000 events/s (0.10-0.15 ms of its CPU per event), below the targets; so its watch from X is recorded once per representation (body bytes and headers) and replayed to each contender by a bare node:https server (the API server certificate, TLS 1.2+, HTTP/1.1, its own process) as fast as the socket drains; targets are judged on the replay, the live rows are information',
  replay: { sliceBytes: 65_536, afterBacklog: 'the stream ends; a re-watch from any later version gets the headers and no events, held open until the contender stops' },
};
const cleanups = [];

for (const c of CONTENDERS) if (!ALL.includes(c)) throw new BenchError(`--only: unknown contender ${c} (${ALL.join(', ')})`);

const base = (c) => c.replace(/^live-/, '');
const NAMES = {
  'floor-protobuf': 'delivery floor, protobuf (replay read raw)',
  protobuf: 'project informer (protobuf)',
  'floor-json': 'delivery floor, JSON (replay read raw)',
  'floor-json-parse': 'decode floor, JSON (replay read, each event JSON.parse-d, nothing kept)',
  json: 'project informer (JSON)',
  peer: '@kubernetes/client-node informer (JSON)',
};
const nameOf = (c) => (c.startsWith('live-floor') ? `live: floor, ${c.endsWith('protobuf') ? 'protobuf' : 'JSON'} (the recording's raw read)` : c.startsWith('live-') ? `live: ${NAMES[base(c)]}` : NAMES[c]);

/** Runs one contender in its own process; resolves with its JSON line plus the serving process's CPU during it. */
function runContender(spec, dir, serverPid) {
  const specFile = join(dir, `${spec.name}.json`);
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
      if (code !== 0 || line === '') return reject(new BenchError(`contender ${spec.name} exited ${code}:\n${err}`));
      const r = JSON.parse(line);
      r.serverCpuMsPerEvent = r.updates === 0 ? null : round3((((procTicks(serverPid) - ticks0) / CLOCK_TICKS) * 1000) / r.updates);
      resolve(r);
    });
  });
}

/** The live floor's row: the recording's own timed read, in the result shape of a floor contender. */
const recordingResult = (name, rec) => ({ contender: name, outcome: 'done', updates: rec.events, windowMs: rec.windowMs, eventsPerSecond: rec.eventsPerSecond, cpuMsPerEvent: rec.cpuMsPerEvent, serverCpuMsPerEvent: round3(rec.serverCpuMsPerEvent), watchCalls: 1, errors: [] });

function report(results, load, recordings) {
  const rows = [];
  const row = (what, value, target, pass) => rows.push([what, String(value), target, pass === undefined ? '' : pass ? 'PASS' : 'MISS']);
  const order = [...REPLAYED, 'live-floor-protobuf', 'live-floor-json', ...LIVE].filter((c) => results[c] !== undefined);
  for (const c of order) {
    const r = results[c];
    const name = nameOf(c);
    const live = c.startsWith('live-');
    const floor = base(c).startsWith('floor');
    const complete = r.outcome === 'done' && r.updates === MODS && (floor || r.storeSize === PODS);
    const target = live ? undefined : c === 'protobuf' ? TARGETS.protobuf : c === 'json' ? TARGETS.json : undefined;
    const role = live ? 'information' : floor ? 'baseline' : c === 'peer' ? 'peer' : `>= ${target}`;
    row(`${name}: events/s`, r.eventsPerSecond ?? `none (${r.outcome})`, role, target === undefined ? undefined : complete && r.eventsPerSecond >= target);
    const peer = results[live ? 'live-peer' : 'peer'];
    if (base(c) === 'json' && peer !== undefined) {
      const ratio = peer.eventsPerSecond ? round3(r.eventsPerSecond / peer.eventsPerSecond) : null;
      row(`${name}: rate / peer's rate`, ratio ?? 'n/a', live ? 'information' : `>= ${TARGETS.peerRatio}x`, live || ratio === null ? undefined : complete && ratio >= TARGETS.peerRatio);
    }
    if (floor) row(`${name}: events counted, watch requests`, `${r.updates}, ${r.watchCalls}`, `${MODS}, 1`, complete);
    else row(`${name}: events handled, store size, watch requests, lists`, `${r.updates}, ${r.storeSize}, ${r.watchCalls}, ${r.listCalls}`, `${MODS}, ${PODS}, -, 1`, complete && r.listCalls === 1);
    if (!floor) row(`${name}: heap per cached pod, bytes (after a full GC)`, r.heapPerPodBytes, live || c === 'peer' ? 'information' : `<= ${TARGETS.heapPerPodBytes}`, live || c === 'peer' ? undefined : r.heapPerPodBytes !== null && r.heapPerPodBytes <= TARGETS.heapPerPodBytes);
    row(`${name}: CPU ms per event, client; ${live ? 'server' : 'replay'}`, `${round3(r.cpuMsPerEvent)}; ${r.serverCpuMsPerEvent}`, 'information', undefined);
    if (r.errors.length > 0) process.stdout.write(`${name}: logged ${r.errors.length === 5 ? '5+' : r.errors.length} warning/error(s), first: ${r.errors[0]}\n`);
    if (r.replay !== undefined && (r.replay.unauthorized > 0 || r.replay.notFound.length > 0 || r.replay.replays.length !== 1)) process.stdout.write(`${name}: the replay served ${r.replay.replays.length} backlog(s), ${r.replay.unauthorized} 401, 404 for ${JSON.stringify(r.replay.notFound)}\n`);
  }
  for (const rep of ['protobuf', 'json']) {
    const f = results[`floor-${rep}`];
    const target = TARGETS[rep];
    if (f?.eventsPerSecond && f.eventsPerSecond < target * 1.5) process.stdout.write(`note: the ${rep} delivery floor (${f.eventsPerSecond}/s) is within 1.5x of the target (${target}/s): a MISS there may be the machine's, not the client's\n`);
  }
  const parseFloor = results['floor-json-parse'];
  const peer = results.peer;
  if (parseFloor?.eventsPerSecond && peer?.eventsPerSecond) {
    const ratio = round3(parseFloor.eventsPerSecond / peer.eventsPerSecond);
    if (ratio < TARGETS.peerRatio) process.stdout.write(`note: the JSON decode floor runs at ${ratio}x the peer's rate: a client that decodes every JSON event cannot reach ${TARGETS.peerRatio}x the peer on this machine (the peer parses each event too)\n`);
  }
  const rec = (r) => `${r.events} events, ${r.bytes} B (${Math.round(r.bytes / r.events)} B/event), ${r.headers['content-type']}`;
  process.stdout.write(`\nload: ${PODS} pods created at ${round3(load.createsPerSecond)}/s, list at X=${load.listRv} (${load.listBytes} B, ${load.podBytes} B per pod as JSON), ${MODS} modifications at ${round3(load.modsPerSecond)}/s up to ${load.finalRv}; watch from X: first event ${load.firstEvent.type} at ${load.firstEvent.rv}; keeper watch ${KEEPER ? 'on' : 'off'}\n`);
  process.stdout.write(`recorded: protobuf ${rec(recordings.protobuf)}; JSON ${rec(recordings.json)}\n`);
  process.stdout.write(`\n${table(['measure', 'value', 'target', ''], rows)}\n`);
}

async function main() {
  const m = machine();
  process.stdout.write(`${machineLine(m)}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-informer-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  phase(`starting platform-apiserver (memory, --etcd-compaction-interval=${HISTORY_WINDOW})`);
  const srv = await startApiServerProcess({ cleanups, connections: WIDTH + 4, extraArgs: [`--etcd-compaction-interval=${HISTORY_WINDOW}`] });
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
  const common = { namespace: NS, listFile, listRv: list.rv, finalRv: mods.finalRv, expected: MODS, timeoutMs: TIMEOUT_S * 1000 };
  const recordings = {};
  const results = {};
  for (const representation of ['protobuf', 'json']) {
    phase(`record the server's ${representation} watch from X (${MODS} events; timed: the live floor)`);
    recordings[representation] = await recordWatch(srv, NS, { ...common, representation, rv: list.rv, file: join(dir, `watch.${representation}`) });
    results[`live-floor-${representation}`] = recordingResult(`live-floor-${representation}`, recordings[representation]);
  }
  const liveConf = join(dir, 'live.conf');
  writeFileSync(liveConf, platformConfig(srv.url, srv));
  for (const c of CONTENDERS.filter((x) => x.startsWith('live-'))) {
    phase(`contender ${c}: list at X, watch from X on the live server through ${MODS} events`);
    results[c] = await runContender({ ...common, contender: base(c), name: c, conf: liveConf, server: { url: srv.url, ca: srv.ca, token: srv.token } }, dir, srv.pid);
  }
  // The replay's certificate is the server's own; the server is stopped so that it costs nothing during the replayed runs.
  const tls = { cert: join(dir, 'apiserver.crt'), key: join(dir, 'apiserver.key') };
  writeFileSync(tls.cert, srv.tls.cert);
  writeFileSync(tls.key, srv.tls.key);
  await stopKeeper();
  await srv.stop();
  const replaySpec = { ...tls, token: srv.token, namespace: NS, listRv: list.rv, recordings: { json: { file: join(dir, 'watch.json'), headers: recordings.json.headers }, protobuf: { file: join(dir, 'watch.protobuf'), headers: recordings.protobuf.headers } } };
  for (const c of CONTENDERS.filter((x) => !x.startsWith('live-'))) {
    phase(`contender ${c}: list at X, watch from X replayed (${MODS} events)`);
    const replay = await startReplay({ cleanups, dir, name: c, spec: replaySpec });
    const conf = join(dir, `replay-${c}.conf`);
    writeFileSync(conf, platformConfig(replay.url, srv));
    const r = await runContender({ ...common, contender: c, name: c, conf, server: { url: replay.url, ca: srv.ca, token: srv.token } }, dir, replay.pid);
    r.replay = await replay.stop();
    results[c] = r;
  }
  report(results, load, recordings);
  const loadavgEnd = loadavg().map((x) => round3(x));
  process.stdout.write(`loadavg at the end: ${loadavgEnd.join(' ')}\n`);
  const out = { machine: m, loadavgEnd, method: METHOD, pods: PODS, modifications: MODS, width: WIDTH, keeper: KEEPER, historyWindow: HISTORY_WINDOW, targets: TARGETS, load, recordings, results };
  mkdirSync(join(REPO, 'bench/results'), { recursive: true });
  writeFileSync(join(REPO, 'bench/results/informer.json'), `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write('wrote bench/results/informer.json\n');
}

/** A platformconfig naming `url` with the server's CA inline and the admin's bearer token, for the contenders. */
function platformConfig(url, srv) {
  const ca = Buffer.from(srv.ca).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: bench',
    '  cluster:',
    `    server: ${url}`,
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
