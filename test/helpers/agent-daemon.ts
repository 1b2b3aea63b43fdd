// Runs the built agent (bin/agent.js) as a long-running process with pipes, for
// process-level tests of the running agent: wait for a log line (bounded),
// poll an HTTP URL (bounded), send signals, await the exit (bounded). Every
// process started here is tracked; call `killAllDaemons()` in afterEach so a
// failing test leaves nothing running. `npm test` builds dist/ first.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { AGENT_BIN, REPO } from './agent-process.js';

export interface DaemonOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
}

export interface DaemonExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

type Stream = 'stdout' | 'stderr';

const live = new Set<AgentDaemon>();

let pkiDir: string | undefined;
/** One --cert-dir for every agent of this test process (the self-signed certificate is made once, reused after). */
function testCertDir(): string {
  if (pkiDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'agent-test-pki-'));
    pkiDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return pkiDir;
}

/**
 * The node servers as a test wants them: a test that does not name --port (or
 * --enable-server) gets no main port, and one that does not name
 * --read-only-port no read-only port, so parallel agents never fight over
 * 10250/10255; servers listen on loopback only, and their self-signed
 * certificate goes to a temporary --cert-dir, not /var/lib/agent/pki.
 */
export function withTestServing(args: readonly string[]): string[] {
  const has = (flag: string): boolean => args.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`));
  const out = [...args];
  if (!has('port') && !has('enable-server')) out.push('--enable-server=false');
  if (!has('read-only-port')) out.push('--read-only-port=0');
  if (!has('address')) out.push('--address=127.0.0.1');
  if (!has('cert-dir')) out.push(`--cert-dir=${testCertDir()}`);
  return out;
}

/** A timeout error that carries what the agent wrote so far, so a failure explains itself. */
function deadlineError(what: string, ms: number, d: AgentDaemon): Error {
  return new Error(
    `${what}: not within ${ms} ms (pid ${d.pid}, ${d.exit ? `exited ${JSON.stringify(d.exit)}` : 'still running'})\n` +
      `--- stderr ---\n${d.stderr}--- stdout ---\n${d.stdout}`,
  );
}

export class AgentDaemon {
  readonly child: ChildProcess;
  readonly args: readonly string[];
  stdout = '';
  stderr = '';
  /** Set once the process has exited and its pipes are drained. */
  exit: DaemonExit | undefined;
  readonly exited: Promise<DaemonExit>;
  /** Re-checked on every chunk of output and on exit. */
  readonly #waiters = new Set<() => void>();

  constructor(args: readonly string[], opts: DaemonOptions = {}) {
    this.args = withTestServing(args);
    this.child = spawn(process.execPath, [AGENT_BIN, ...this.args], {
      cwd: opts.cwd ?? REPO,
      env: { PATH: process.env['PATH'], ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      this.stdout += s;
      this.#poke();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      this.stderr += s;
      this.#poke();
    });
    this.exited = new Promise<DaemonExit>((resolve) => {
      this.child.once('error', (err) => {
        this.stderr += `[spawn error] ${err.message}\n`;
        this.exit = { code: null, signal: null };
        live.delete(this);
        this.#poke();
        resolve(this.exit);
      });
      // 'close': exited and both pipes drained, so the output is complete.
      this.child.once('close', (code, signal) => {
        this.exit = { code, signal };
        live.delete(this);
        this.#poke();
        resolve(this.exit);
      });
    });
    live.add(this);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Complete lines written so far to `stream`. */
  lines(stream: Stream = 'stderr'): string[] {
    const text = stream === 'stderr' ? this.stderr : this.stdout;
    const all = text.split('\n');
    all.pop(); // the unfinished tail (or '' after the last newline)
    return all;
  }

  #poke(): void {
    for (const w of [...this.#waiters]) w();
  }

  /**
   * Resolves with the first complete line of `stream` matching `re` (looking at
   * what was already written too). Rejects at the deadline, or when the process
   * exits without having written such a line.
   */
  waitForLine(re: RegExp, opts: { stream?: Stream; timeoutMs?: number } = {}): Promise<string> {
    const stream = opts.stream ?? 'stderr';
    const ms = opts.timeoutMs ?? 5_000;
    return new Promise<string>((resolve, reject) => {
      const check = (): void => {
        const hit = this.lines(stream).find((l) => re.test(l));
        if (hit !== undefined) finish(() => resolve(hit));
        else if (this.exit !== undefined) finish(() => reject(new Error(`process exited before writing a line matching ${re} to ${stream}\n--- stderr ---\n${this.stderr}--- stdout ---\n${this.stdout}`)));
      };
      const timer = setTimeout(() => finish(() => reject(deadlineError(`waiting for ${stream} line ${re}`, ms, this))), ms);
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        settle();
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** Sends `signal`; false if the process was already gone. */
  kill(signal: NodeJS.Signals): boolean {
    if (this.exit !== undefined) return false;
    return this.child.kill(signal);
  }

  /** Resolves with the exit; rejects (the process left running for afterEach) at the deadline. */
  async waitForExit(timeoutMs = 10_000): Promise<DaemonExit> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(deadlineError('waiting for exit', timeoutMs, this)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Direct child processes (pid and command name), from /proc. Empty once it has exited. */
  children(): { pid: number; comm: string }[] {
    return this.exit === undefined ? childrenOf(this.pid) : [];
  }

  /** TCP ports this process has in LISTEN state (Linux /proc). Empty once it has exited. */
  listeningPorts(): number[] {
    return this.exit === undefined ? listeningPortsOf(this.pid) : [];
  }
}

export function startAgent(args: readonly string[], opts: DaemonOptions = {}): AgentDaemon {
  return new AgentDaemon(args, opts);
}

/** SIGKILLs every daemon still running and waits for them (bounded). For afterEach. */
export async function killAllDaemons(): Promise<void> {
  const left = [...live];
  for (const d of left) d.kill('SIGKILL');
  await Promise.all(left.map((d) => d.waitForExit(5_000).catch(() => undefined)));
}

/** A TCP port on 127.0.0.1 nobody listens on right now (the kernel picks it). */
export { freePort } from './net.js';

/** A plain TCP listener on 127.0.0.1:port (0: any), e.g. to occupy a port. */
export function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1' }, () => resolve(server));
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

export type HttpResult = { status: number; body: string } | { error: string };

/** One GET with a short timeout; connection errors are returned, not thrown. */
export function httpGet(url: string, timeoutMs = 2_000): Promise<HttpResult> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end();
  });
}

/**
 * GETs `url` every `intervalMs` until it answers with `status`; rejects with
 * the last result at the deadline, or at once when `daemon` (if given) exits.
 */
export async function pollHttp(
  url: string,
  opts: { status?: number; timeoutMs?: number; intervalMs?: number; daemon?: AgentDaemon } = {},
): Promise<{ status: number; body: string }> {
  const want = opts.status ?? 200;
  const deadline = Date.now() + (opts.timeoutMs ?? 5_000);
  let last: HttpResult = { error: 'not tried' };
  for (;;) {
    last = await httpGet(url, 1_000);
    if ('status' in last && last.status === want) return last;
    if (opts.daemon !== undefined && !opts.daemon.running) {
      throw new Error(`agent exited (${JSON.stringify(opts.daemon.exit)}) while polling ${url}; last ${JSON.stringify(last)}\n${opts.daemon.stderr}`);
    }
    if (Date.now() >= deadline) {
      const tail = opts.daemon === undefined ? '' : `\n--- stderr ---\n${opts.daemon.stderr}`;
      throw new Error(`GET ${url}: no ${want} before the deadline; last ${JSON.stringify(last)}${tail}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}

/** Ports of the TCP sockets in LISTEN state whose inodes `pid` holds open (IPv4 and IPv6). */
export function listeningPortsOf(pid: number): number[] {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    // "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A') continue; // 0A: LISTEN
      if (!inodes.has(cols[9]!)) continue;
      const port = parseInt(cols[1]!.split(':').pop()!, 16);
      ports.add(port);
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** Direct children of `pid` (Linux /proc/<pid>/stat: "pid (comm) state ppid ..."). */
export function childrenOf(pid: number): { pid: number; comm: string }[] {
  const out: { pid: number; comm: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    if (ppid === pid) out.push({ pid: Number(entry), comm });
  }
  return out;
}
