// How the agent process is doing, seen from outside: /healthz on a free
// loopback port and the longest stall of its answers, resident memory and
// CPU time from /proc. For functional bounds in e2e tests ("/healthz answered
// within 1 s while ..."); performance figures belong in bench/.
import { readFileSync } from 'node:fs';
import { freePort, httpGet } from '../../helpers/agent-daemon.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Extra agent arguments that serve /healthz on a free loopback port (they override --healthz-port=0), and its URL. */
export async function healthzEndpoint(): Promise<{ args: string[]; url: string }> {
  const port = await freePort();
  return { args: ['--healthz-bind-address=127.0.0.1', `--healthz-port=${port}`], url: `http://127.0.0.1:${port}/healthz` };
}

/** One GET: the status (0 on a connection error or timeout) and how long the answer took. */
export async function timedGet(url: string, timeoutMs = 5_000): Promise<{ status: number; ms: number; error?: string }> {
  const t0 = performance.now();
  const r = await httpGet(url, timeoutMs);
  const ms = performance.now() - t0;
  return 'status' in r ? { status: r.status, ms } : { status: 0, ms, error: r.error };
}

export interface HealthLog {
  /** Requests answered. */
  count: number;
  /** The slowest answer (a request still waiting at stop counts with its wait so far). */
  slowestMs: number;
  /** Non-200 answers and errors, as text. */
  failures: string[];
}

/**
 * GETs `url` one request after another (a pause of `intervalMs` between them)
 * until stop(), or at the latest for `maxMs` (so a test that fails before
 * stop() leaves no loop behind): the slowest answer is then the longest stall
 * of the agent's event loop seen from outside, within the request timeout.
 */
export function watchHealth(url: string, opts: { intervalMs?: number; maxMs?: number } = {}): { stop(): Promise<HealthLog> } {
  const { intervalMs = 100, maxMs = 120_000 } = opts;
  const log: HealthLog = { count: 0, slowestMs: 0, failures: [] };
  const end = performance.now() + maxMs;
  let stopped = false;
  let inFlightSince: number | undefined;
  const loop = (async () => {
    while (!stopped && performance.now() < end) {
      inFlightSince = performance.now();
      const r = await timedGet(url, 10_000);
      inFlightSince = undefined;
      log.count++;
      log.slowestMs = Math.max(log.slowestMs, r.ms);
      if (r.status !== 200) log.failures.push(r.error ?? `HTTP ${r.status}`);
      if (!stopped) await sleep(intervalMs);
    }
  })();
  return {
    async stop() {
      stopped = true;
      if (inFlightSince !== undefined) log.slowestMs = Math.max(log.slowestMs, performance.now() - inFlightSince);
      const snapshot = { ...log, failures: [...log.failures] };
      // A request still in flight ends within its own timeout; the numbers above already count it.
      await Promise.race([loop, sleep(100)]);
      return snapshot;
    },
  };
}

/** Resident memory of a process in MiB, now and at its peak (VmRSS, VmHWM of /proc/PID/status). */
export function memoryMiB(pid: number): { rss: number; peak: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** CPU time (user + system) a process has used so far, in ms (/proc/PID/stat, 100 ticks a second). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const cols = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // after "pid (comm) ": state is column 0, utime column 11, stime column 12
  return (Number(cols[11]) + Number(cols[12])) * 10;
}
