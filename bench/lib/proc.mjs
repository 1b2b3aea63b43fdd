// Process, port and /proc helpers shared by the benchmarks that run a private
// containerd and the agent (bench/pods.mjs, bench/sources.mjs). Node 20 built-ins only.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { BenchError } from './common.mjs';

/** execFile with a deadline; resolves {code, stdout, stderr, timedOut}; never rejects. */
export function run(file, args, { timeoutMs = 60_000, env } = {}) {
  return new Promise((res) => {
    execFile(file, args, { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 << 20, env: env ?? process.env }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      res({ code, stdout, stderr, timedOut: Boolean(err?.killed) });
    });
  });
}

export async function mustRun(what, file, args, opts) {
  const r = await run(file, args, opts);
  if (r.code !== 0) throw new BenchError(`${what} failed (${r.timedOut ? 'timed out' : `exit ${r.code}`}): ${file} ${args.join(' ')}\n${(r.stderr || r.stdout).trimEnd().split('\n').slice(-20).join('\n')}`);
  return r;
}

/** Mount points at or below `dir` (from /proc/self/mountinfo). */
export function mountsUnder(dir) {
  const out = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const mp = line.split(' ')[4]?.replace(/\\040/g, ' ');
    if (mp && (mp === dir || mp.startsWith(`${dir}/`))) out.push(mp);
  }
  return out;
}

/** A loopback port free at the time of the call (bound to port 0, then released). */
export async function freePort() {
  const s = net.createServer();
  await new Promise((res, rej) => {
    s.once('error', rej);
    s.listen(0, '127.0.0.1', res);
  });
  const { port } = s.address();
  await new Promise((r) => s.close(() => r()));
  return port;
}

export function withTimeout(promise, timeoutMs, what) {
  let timer;
  return Promise.race([promise, new Promise((_, rej) => (timer = setTimeout(() => rej(new BenchError(`${what}: not done within ${timeoutMs} ms`)), timeoutMs)))]).finally(() => clearTimeout(timer));
}

/** utime + stime of a process, in clock ticks (fields 14 and 15 of /proc/PID/stat). */
export function procTicks(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** VmRSS of a process in KiB (NaN when /proc does not say). */
export function procRssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}
