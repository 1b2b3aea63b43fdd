#!/usr/bin/env node
// Start-up benchmark for the agent (see bench/README.md).
//
//   node bench/startup.mjs [--runs N] [--warmup N] [--json PATH]
//
// Measures, interleaved round-robin so that drift (thermal, other load,
// page cache) hits every case alike:
//   node -e 0                         baseline: bare Node start + exit
//   agent --version                   target: p50 <= 150 ms
//   agent --print-config (40-line config + 3 drop-ins)   target: p50 <= 150 ms
//   http floor: start -> /healthz 200 baseline: smallest Node HTTP server
//   agent: start -> /healthz 200      target: p50 <= 300 ms
// and, for the two servers, the time from SIGTERM to process exit.
//
// Prints a table, writes the same data as JSON. A missed target is a result,
// not an error: the exit code is non-zero only when the benchmark itself
// could not measure (a run failed, a port never answered, ...).
// Traffic goes to 127.0.0.1 only. Node 20 built-ins only; no build step.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const AGENT_BIN = join(REPO, 'bin/agent.js');
const NODE = process.execPath;

const TARGETS_MS = { version: 150, printConfig: 150, healthz: 300 };
const CLI_RUN_TIMEOUT_MS = 15_000; // one `agent --version` / `--print-config` run
const HEALTHZ_DEADLINE_MS = 5_000; // spawn -> 200, else the benchmark fails
const POLL_INTERVAL_MS = 2; // between /healthz attempts
const POLL_REQUEST_TIMEOUT_MS = 1_000; // one /healthz attempt
const MAX_POLL_ATTEMPTS = 5_000; // hard bound besides the deadline
const TERM_TIMEOUT_MS = 10_000; // SIGTERM -> exit, then SIGKILL
const KILL_TIMEOUT_MS = 5_000; // SIGKILL -> exit
const STDERR_KEEP = 64 * 1024; // bytes of child stderr kept for error messages

class BenchError extends Error {}

// ---------------------------------------------------------------- arguments

function usage() {
  return [
    'usage: node bench/startup.mjs [--runs N] [--warmup N] [--json PATH]',
    '  --runs N     measured runs per case (default 30)',
    '  --warmup N   unmeasured runs per case first (default 1)',
    '  --json PATH  where to write the results (default bench/results/startup.json)',
  ].join('\n');
}

function parseArgs(argv) {
  const out = { runs: 30, warmup: 1, json: join(REPO, 'bench/results/startup.json') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(usage() + '\n');
      process.exit(0);
    }
    const m = /^--(runs|warmup|json)(?:=(.*))?$/.exec(arg);
    if (!m) throw new BenchError(`unknown argument "${arg}"\n${usage()}`);
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new BenchError(`--${m[1]} needs a value`);
    if (m[1] === 'json') {
      out.json = resolve(value);
    } else {
      const n = Number(value);
      const min = m[1] === 'runs' ? 1 : 0;
      if (!Number.isInteger(n) || n < min || n > 1000) throw new BenchError(`--${m[1]} must be an integer in [${min}, 1000], got "${value}"`);
      out[m[1]] = n;
    }
  }
  return out;
}

// ---------------------------------------------------------------- processes

const live = new Set(); // children not yet exited, killed if the benchmark dies
const ms = (from, to) => Number(to - from) / 1e6;
const now = () => process.hrtime.bigint();
const sleep = (t) => new Promise((r) => setTimeout(r, t));

/** Spawns with stdout ignored and stderr kept (tail); `exited` resolves with {code, signal, at}. */
function start(args, env) {
  const child = spawn(NODE, args, { cwd: REPO, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-STDERR_KEEP);
  });
  live.add(child);
  const exited = new Promise((res, rej) => {
    child.once('error', (e) => {
      live.delete(child);
      rej(new BenchError(`cannot spawn ${NODE}: ${e.message}`));
    });
    child.once('exit', (code, signal) => {
      const at = now();
      live.delete(child);
      res({ code, signal, at });
    });
  });
  // 'close' comes after 'exit' once stderr is drained; use it for messages.
  const closed = new Promise((res) => child.once('close', res));
  return { child, exited, closed, stderr: () => stderr };
}

/** Resolves with the exit, or with undefined after `timeoutMs`. */
async function exitWithin(proc, timeoutMs) {
  let timer;
  const timeout = new Promise((r) => (timer = setTimeout(r, timeoutMs)));
  try {
    return await Promise.race([proc.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function failure(proc, message) {
  await exitWithin({ exited: proc.closed }, 1_000);
  const tail = proc.stderr().trimEnd().split('\n').slice(-20).join('\n');
  return new BenchError(`${message}${tail ? `\n--- stderr (tail) ---\n${tail}` : ' (no stderr)'}`);
}

async function killHard(proc) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGKILL');
  await exitWithin(proc, KILL_TIMEOUT_MS);
}

/** One CLI run: wall time spawn -> exit; exit code must be 0. */
async function timeCli(c) {
  const t0 = now();
  const proc = start(c.args, c.env);
  const exit = await exitWithin(proc, CLI_RUN_TIMEOUT_MS);
  if (exit === undefined) {
    await killHard(proc);
    throw await failure(proc, `${c.name}: no exit within ${CLI_RUN_TIMEOUT_MS} ms (killed)`);
  }
  if (exit.code !== 0) throw await failure(proc, `${c.name}: exit code ${exit.code ?? `signal ${exit.signal}`}, expected 0\n  command: ${c.display}`);
  return { wallMs: ms(t0, exit.at) };
}

/** Free TCP ports on 127.0.0.1 (bound together, so they differ, then released). */
async function freePorts(n) {
  const servers = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = net.createServer();
      servers.push(s);
      await new Promise((res, rej) => {
        s.once('error', rej);
        s.listen(0, '127.0.0.1', res);
      });
    }
    return servers.map((s) => s.address().port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => (s.listening ? s.close(() => r()) : r()))));
  }
}

/** One GET /healthz; resolves with the status code or undefined (refused, reset, timeout). */
function probe(port) {
  return new Promise((res) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', agent: false, headers: { connection: 'close' }, timeout: POLL_REQUEST_TIMEOUT_MS }, (r) => {
      r.resume();
      res(r.statusCode);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => res(undefined));
  });
}

/**
 * Start -> first 200 from /healthz, then SIGTERM -> exit. The clock starts just
 * before spawn. `expectExit(exit)` says whether the way it exited is right.
 */
async function timeServer(c) {
  const ports = await freePorts(c.portsNeeded);
  const { args, env, cleanup } = c.prepare(ports);
  try {
    const t0 = now();
    const proc = start(args, env);
    let gone = false;
    proc.exited.then(() => (gone = true), () => (gone = true));
    let readyAt;
    let attempts = 0;
    const deadline = t0 + BigInt(HEALTHZ_DEADLINE_MS) * 1_000_000n;
    while (readyAt === undefined && !gone && attempts < MAX_POLL_ATTEMPTS && now() < deadline) {
      attempts++;
      const status = await probe(ports[0]);
      if (status === 200) readyAt = now();
      else await sleep(POLL_INTERVAL_MS);
    }
    if (readyAt === undefined) {
      const why = gone ? 'exited before /healthz answered 200' : `no 200 from http://127.0.0.1:${ports[0]}/healthz within ${HEALTHZ_DEADLINE_MS} ms (${attempts} attempts)`;
      await killHard(proc);
      throw await failure(proc, `${c.name}: ${why}\n  command: ${c.display}`);
    }
    const t1 = now();
    proc.child.kill('SIGTERM');
    let exit = await exitWithin(proc, TERM_TIMEOUT_MS);
    if (exit === undefined) {
      await killHard(proc);
      throw await failure(proc, `${c.name}: no exit within ${TERM_TIMEOUT_MS} ms of SIGTERM (killed with SIGKILL)`);
    }
    if (!c.expectExit(exit)) throw await failure(proc, `${c.name}: after SIGTERM exited with ${exit.code ?? `signal ${exit.signal}`}, expected ${c.expectedExitText}`);
    return { wallMs: ms(t0, readyAt), termMs: ms(t1, exit.at), attempts };
  } finally {
    cleanup();
  }
}

// ---------------------------------------------------------------- cases

function buildCases() {
  const baseEnv = { ...process.env };
  delete baseEnv.AGENT_CONFIG_DROPIN_DIR_ALPHA;
  const rel = (p) => relative(REPO, p) || '.';
  const agent = rel(AGENT_BIN);
  const cfg = 'bench/fixtures/config.yaml';
  const dropins = 'bench/fixtures/conf.d';
  const floorSrc = (port) => `require('http').createServer((q,s)=>s.end('ok')).listen(${port},'127.0.0.1')`;
  const cli = (id, name, args, extraEnv, target, baseline) => ({
    id,
    name,
    kind: 'cli',
    args,
    env: { ...baseEnv, ...extraEnv },
    display: `${Object.entries(extraEnv).map(([k, v]) => `${k}=${v} `).join('')}node ${args.join(' ')}`,
    target,
    baseline,
  });
  const tmpRoots = [];
  return {
    tmpRoots,
    cases: [
      cli('node', 'node -e 0', ['-e', '0'], {}, undefined, undefined),
      cli('version', 'agent --version', [agent, '--version'], {}, TARGETS_MS.version, 'node'),
      cli('printConfig', 'agent --print-config', [agent, '--print-config', '--config', cfg, '--config-dir', dropins], { AGENT_CONFIG_DROPIN_DIR_ALPHA: '1' }, TARGETS_MS.printConfig, 'node'),
      {
        id: 'httpFloor',
        name: 'http floor: start->200',
        kind: 'server',
        portsNeeded: 1,
        display: `node -e "${floorSrc('PORT')}"`,
        prepare: ([port]) => ({ args: ['-e', floorSrc(port)], env: baseEnv, cleanup: () => {} }),
        // No SIGTERM handler: the default action ends it by the signal.
        expectExit: (e) => e.signal === 'SIGTERM' || e.code === 0,
        expectedExitText: 'SIGTERM or 0',
        target: undefined,
        baseline: undefined,
      },
      {
        id: 'healthz',
        name: 'agent: start->/healthz 200',
        kind: 'server',
        portsNeeded: 2,
        display: `node ${agent} --healthz-port=PORT --healthz-bind-address=127.0.0.1 --port=PORT2 --read-only-port=0 --address=127.0.0.1 --cert-dir=TMP/pki --root-dir=TMP`,
        prepare: ([healthz, port]) => {
          const root = mkdtempSync(join(os.tmpdir(), 'agent-bench-'));
          tmpRoots.push(root);
          return {
            args: [agent, `--healthz-port=${healthz}`, '--healthz-bind-address=127.0.0.1', `--port=${port}`, '--read-only-port=0', '--address=127.0.0.1', `--cert-dir=${join(root, 'pki')}`, `--root-dir=${root}`],
            env: baseEnv,
            cleanup: () => rmSync(root, { recursive: true, force: true }),
          };
        },
        expectExit: (e) => e.code === 0,
        expectedExitText: 'exit code 0',
        target: TARGETS_MS.healthz,
        baseline: 'httpFloor',
      },
    ],
  };
}

// ---------------------------------------------------------------- statistics

/** Linear interpolation between closest ranks (p50 of an even count is the mean of the middle two). */
function quantile(sorted, q) {
  if (sorted.length === 1) return sorted[0];
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const sd = Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, s.length - 1));
  const r = (x) => Math.round(x * 1000) / 1000;
  return { min: r(s[0]), p50: r(quantile(s, 0.5)), p90: r(quantile(s, 0.9)), max: r(s[s.length - 1]), mean: r(mean), stdev: r(sd) };
}

// ---------------------------------------------------------------- main

function machine() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    cores: cpus.length,
    availableParallelism: os.availableParallelism(),
    totalMemoryBytes: os.totalmem(),
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    kernel: os.release(),
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

function progress(text) {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${text}`);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(join(REPO, 'dist/cli/main.js'))) throw new BenchError('dist/cli/main.js is missing: build first (npm run build, or npm run bench which builds)');
  for (const f of ['bench/fixtures/config.yaml', 'bench/fixtures/conf.d']) if (!existsSync(join(REPO, f))) throw new BenchError(`fixture ${f} is missing`);

  const { cases, tmpRoots } = buildCases();
  const samples = new Map(cases.map((c) => [c.id, []]));
  const termSamples = new Map(cases.filter((c) => c.kind === 'server').map((c) => [c.id, []]));
  const pollAttempts = new Map(cases.filter((c) => c.kind === 'server').map((c) => [c.id, []]));
  const startedAt = new Date();
  const t0 = now();

  try {
    const rounds = opts.warmup + opts.runs;
    for (let round = 0; round < rounds; round++) {
      const warm = round < opts.warmup;
      progress(warm ? `warm-up ${round + 1}/${opts.warmup}` : `round ${round - opts.warmup + 1}/${opts.runs}`);
      // Round-robin, starting one case later every round, so no case always follows the same one.
      for (let k = 0; k < cases.length; k++) {
        const c = cases[(round + k) % cases.length];
        const r = c.kind === 'cli' ? await timeCli(c) : await timeServer(c);
        if (warm) continue;
        samples.get(c.id).push(r.wallMs);
        if (r.termMs !== undefined) termSamples.get(c.id).push(r.termMs);
        if (r.attempts !== undefined) pollAttempts.get(c.id).push(r.attempts);
      }
    }
  } finally {
    progress('');
    for (const root of tmpRoots) rmSync(root, { recursive: true, force: true });
  }
  const totalS = ms(t0, now()) / 1000;

  // Rows: every measured case, then SIGTERM -> exit for the servers (informational).
  const rows = cases.map((c) => {
    const st = stats(samples.get(c.id));
    const verdict = c.target === undefined ? 'baseline' : st.p50 <= c.target ? 'PASS' : 'FAIL';
    return { id: c.id, name: c.name, command: c.display, kind: c.kind, runs: samples.get(c.id).length, target: c.target ?? null, verdict, baseline: c.baseline ?? null, stats: st, samplesMs: samples.get(c.id) };
  });
  for (const c of cases.filter((x) => x.kind === 'server')) {
    const id = `${c.id}Term`;
    rows.push({
      id,
      name: `${c.id === 'healthz' ? 'agent' : 'http floor'}: SIGTERM->exit`,
      command: `kill -TERM (after ${c.name})`,
      kind: 'shutdown',
      runs: termSamples.get(c.id).length,
      target: null,
      verdict: c.id === 'httpFloor' ? 'baseline' : 'info',
      baseline: c.id === 'httpFloor' ? null : 'httpFloorTerm',
      stats: stats(termSamples.get(c.id)),
      samplesMs: termSamples.get(c.id),
    });
  }
  for (const r of rows) if (pollAttempts.has(r.id)) r.pollAttempts = stats(pollAttempts.get(r.id));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const deltas = rows
    .filter((r) => r.baseline)
    .map((r) => ({ case: r.id, baseline: r.baseline, name: `${r.name} − ${byId.get(r.baseline).name}`, p50DeltaMs: Math.round((r.stats.p50 - byId.get(r.baseline).stats.p50) * 1000) / 1000 }));

  const m = machine();
  const result = {
    benchmark: 'startup',
    date: startedAt.toISOString(),
    durationS: Math.round(totalS * 10) / 10,
    machine: m,
    runs: opts.runs,
    warmup: opts.warmup,
    method: {
      order: 'interleaved round-robin, start rotated by one case each round',
      clock: 'process.hrtime.bigint(); cli: just before spawn -> child exit event; server: just before spawn -> first 200 response to GET /healthz (polled every 2 ms, fresh connection each); shutdown: SIGTERM sent -> exit event',
      verdict: 'p50 (median) <= target',
      quantiles: 'linear interpolation between closest ranks',
    },
    targetsMs: TARGETS_MS,
    cases: rows,
    deltas,
  };
  mkdirSync(dirname(opts.json), { recursive: true });
  writeFileSync(opts.json, JSON.stringify(result, null, 2) + '\n');

  // ---- table
  const f1 = (x) => x.toFixed(1);
  const header = ['case', 'runs', 'min', 'p50', 'p90', 'max', 'target', 'verdict'];
  const body = rows.map((r) => [r.name, String(r.runs), f1(r.stats.min), f1(r.stats.p50), f1(r.stats.p90), f1(r.stats.max), r.target === null ? '—' : `≤ ${r.target}`, r.verdict]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  const out = [];
  out.push(`startup benchmark — ${startedAt.toISOString()} (${f1(totalS)} s)`);
  out.push(`machine: ${m.cpuModel}, ${m.cores} cores, ${f1(m.totalMemoryBytes / 2 ** 30)} GiB RAM, node ${m.node}, ${m.platform}, kernel ${m.kernel}, loadavg ${m.loadavg.join(' ')}`);
  out.push(`runs: ${opts.runs} per case (+${opts.warmup} warm-up), interleaved round-robin; times in ms (wall); verdict: p50 vs target`);
  out.push('');
  out.push(line(header));
  out.push(line(widths.map((w) => '-'.repeat(w))));
  for (const b of body) out.push(line(b));
  out.push('');
  const dw = Math.max(...deltas.map((d) => d.name.length));
  for (const d of deltas) out.push(`${`${d.name}:`.padEnd(dw + 1)}  p50 ${d.p50DeltaMs >= 0 ? '+' : ''}${f1(d.p50DeltaMs)} ms`);
  out.push('');
  out.push(`JSON: ${relative(process.cwd(), opts.json) || opts.json}`);
  process.stdout.write(out.join('\n') + '\n');
}

function killLive() {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
process.once('exit', killLive);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    killLive();
    process.stderr.write(`\nstartup benchmark: interrupted by ${sig}\n`);
    process.exit(130);
  });
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (err) => {
    killLive();
    process.stderr.write(`\nstartup benchmark FAILED: ${err instanceof BenchError ? err.message : err?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);
