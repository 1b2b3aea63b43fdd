// The floor of bench/probes.mjs: the same probes at the same rate from a bare
// Node.js process — for each pod, every period, one ExecSync through the
// project's CRI client and one HTTP GET on a new connection (what a probe
// must do at least) — with nothing else running. Its CPU over the window is
// what the probes cost Node.js itself; the agent's added CPU is compared with it.
//
//   node bench/lib/probe-floor.mjs ENDPOINT PERIOD_S KINDS CONTAINER_ID:PORT...
// KINDS: exec,http (both), exec or http.
// Prints one JSON line when it gets SIGTERM: {"probes":N,"failures":N}.
import { request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from './session.mjs';

const [endpoint, periodS, kindsArg, ...targets] = process.argv.slice(2);
const kinds = new Set(kindsArg.split(','));
const period = Number(periodS) * 1000;
const cri = await import(pathToFileURL(join(REPO, 'dist/cri/grpc-client.js')).href);
const runtime = await cri.createCriRuntime({ runtimeEndpoint: endpoint, requestTimeoutMs: 10_000, connectTimeoutMs: 15_000, log: { info() {}, warn() {}, error() {} } });
let probes = 0;
let failures = 0;
const timers = new Set();

function httpGet(port) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/index.html', agent: false, headers: { connection: 'close' }, timeout: 1000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode >= 200 && res.statusCode < 400));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end();
  });
}

/** Every period from a random offset, as the agent's workers start spread over the period. */
function every(fn) {
  let next = performance.now() + Math.random() * period;
  const tick = async () => {
    timers.delete(t);
    const ok = await fn();
    probes++;
    if (!ok) failures++;
    next += period;
    t = setTimeout(tick, Math.max(0, next - performance.now()));
    timers.add(t);
  };
  let t = setTimeout(tick, Math.max(0, next - performance.now()));
  timers.add(t);
}

for (const target of targets) {
  const [id, port] = target.split(':');
  if (kinds.has('exec')) every(async () => (await runtime.execSync(id, ['cat', '/tmp/www/index.html'], 1).catch(() => ({ exitCode: -1 }))).exitCode === 0);
  if (kinds.has('http')) every(() => httpGet(Number(port)));
}
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  for (const t of timers) clearTimeout(t);
  runtime.close();
  process.stdout.write(`${JSON.stringify({ probes, failures })}\n`);
  process.exit(0);
});
