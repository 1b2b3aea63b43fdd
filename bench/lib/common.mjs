// Shared helpers of the benchmarks under bench/: clock, statistics, machine
// description, plain-text tables. Node 20 built-ins only.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import os from 'node:os';

export class BenchError extends Error {}

export const now = () => process.hrtime.bigint();
/** Milliseconds between two `now()` readings. */
export const ms = (from, to) => Number(to - from) / 1e6;
export const sleep = (t) => new Promise((r) => setTimeout(r, t));
export const round3 = (x) => (x === null || x === undefined || !Number.isFinite(x) ? x : Math.round(x * 1000) / 1000);

/** Linear interpolation between closest ranks (p50 of an even count is the mean of the middle two). */
export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  if (sorted.length === 1) return sorted[0];
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function stats(samples) {
  const s = samples.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return { n: 0, min: null, p50: null, p90: null, max: null, mean: null, stdev: null };
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const sd = Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, s.length - 1));
  return { n: s.length, min: round3(s[0]), p50: round3(quantile(s, 0.5)), p90: round3(quantile(s, 0.9)), max: round3(s[s.length - 1]), mean: round3(mean), stdev: round3(sd) };
}

function tryRun(file, args) {
  try {
    return execFileSync(file, args, { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export function machine(extra = {}) {
  const cpus = os.cpus();
  let cgroup = 'unknown';
  try {
    cgroup = readFileSync('/proc/self/mountinfo', 'utf8').includes(' /sys/fs/cgroup cgroup2 ') ? 'v2' : 'v1';
  } catch {
    /* not linux */
  }
  return {
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    cores: cpus.length,
    availableParallelism: os.availableParallelism(),
    totalMemoryBytes: os.totalmem(),
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    kernel: os.release(),
    os: (() => {
      try {
        return /PRETTY_NAME="([^"]*)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? 'unknown';
      } catch {
        return 'unknown';
      }
    })(),
    cgroups: cgroup,
    containerd: tryRun('containerd', ['--version']),
    runc: tryRun('runc', ['--version'])?.split('\n')[0] ?? null,
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
    ...extra,
  };
}

export function machineLine(m) {
  return `machine: ${m.cpuModel}, ${m.cores} cores, ${(m.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB RAM, ${m.os}, kernel ${m.kernel}, cgroups ${m.cgroups}, node ${m.node}, loadavg ${m.loadavg.join(' ')}`;
}

/** Left-aligns the first and last columns, right-aligns the others. */
export function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** A transient status line (TTY only). */
export function progress(text) {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${text}`);
}

/** A phase announcement: one line on stderr, TTY or not. */
export function phase(text) {
  progress('');
  process.stderr.write(`${text}\n`);
}

/**
 * Runs a benchmark's `main` with its clean-up wired to the process exit, to
 * SIGINT/SIGTERM (exit 130) and to a failure (exit code 1, the error on
 * stderr, the agent's log copied to `logDest()` when `agentLog()` names one).
 * `cleanup` must be synchronous and idempotent. `name`: e.g. "pods benchmark".
 */
export function runMain(name, main, { cleanup, agentLog = () => undefined, logDest }) {
  process.once('exit', cleanup);
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      progress('');
      process.stderr.write(`\n${name}: interrupted by ${sig}; cleaning up\n`);
      cleanup();
      process.exit(130);
    });
  }
  main().then(
    () => {
      process.exitCode = 0;
    },
    (err) => {
      progress('');
      process.stderr.write(`\n${name} FAILED: ${err instanceof BenchError ? err.message : (err?.stack ?? err)}\n`);
      try {
        const log = agentLog();
        if (log) {
          const dest = logDest();
          mkdirSync(dirname(dest), { recursive: true });
          copyFileSync(log, dest);
          process.stderr.write(`agent log: ${relative(process.cwd(), dest)}\n`);
        }
      } catch {
        /* no log */
      }
      cleanup();
      process.exitCode = 1;
    },
  );
}
