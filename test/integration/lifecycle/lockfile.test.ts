// The lock with real processes: flock(1) helpers, a second node process that
// holds the lock through the same module, SIGKILL, /proc/locks.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LockError } from '../../../src/errors.js';
import { acquireLock, procLocksHasFlockWaiter, type HeldLock } from '../../../src/lifecycle/lockfile.js';
import { startLeakProbe, type LeakProbe } from '../../unit/lifecycle/leak-probe.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');
let work: string;
let childScript: string;
let probe: LeakProbe;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'agent-lock-'));
  // The child runs the real module without a build: transpile just the files it imports.
  const out = join(work, 'js');
  for (const rel of ['src/errors.ts', 'src/lifecycle/abort.ts', 'src/lifecycle/lockfile.ts']) {
    const { outputText } = ts.transpileModule(readFileSync(join(repo, rel), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    const dest = join(out, rel.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, outputText);
  }
  writeFileSync(join(out, 'package.json'), '{"type":"module"}');
  childScript = join(work, 'holder.mjs');
  // argv: <lock file> <"stay" | "exit">. "stay" lives until its stdin closes or it is killed.
  writeFileSync(
    childScript,
    `import { acquireLock } from ${JSON.stringify(pathToFileURL(join(out, 'src/lifecycle/lockfile.js')).href)};
const [file, mode] = process.argv.slice(2);
await acquireLock(file, { signal: new AbortController().signal, watchContention: false });
process.stdout.write('HELD\\n');
if (mode === 'stay') process.stdin.resume();
`,
  );
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

beforeEach(() => {
  probe = startLeakProbe();
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await probe.assertClean();
});

let n = 0;
function lockPath(): string {
  n += 1;
  return join(work, `agent-${n}.lock`);
}

function acquire(path: string, opts: Partial<Parameters<typeof acquireLock>[1]> = {}): Promise<HeldLock> {
  return acquireLock(path, { signal: new AbortController().signal, watchContention: false, ...opts }).then((held) => {
    cleanups.push(() => held.release());
    return held;
  });
}

function fileId(path: string): { dev: bigint; ino: bigint } {
  const st = statSync(path, { bigint: true });
  return { dev: st.dev, ino: st.ino };
}

/** Cross-process state has no event to await: poll with a deadline. */
async function eventually(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function hasWaiter(path: string): boolean {
  const { dev, ino } = fileId(path);
  return procLocksHasFlockWaiter(readFileSync('/proc/locks', 'utf8'), dev, ino);
}

/** pids holding (not waiting for) a flock on the file. */
function holders(path: string): number[] {
  const { ino } = fileId(path);
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .filter((l) => !l.includes('->') && /\bFLOCK\b/.test(l) && l.includes(`:${ino} `))
    .map((l) => Number(l.trim().split(/\s+/)[4]));
}

function onceSettled<T>(p: Promise<T>): { settled: () => boolean } {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  return { settled: () => done };
}

function startHolder(path: string, mode: 'stay' | 'exit'): Promise<ChildProcess> {
  const child = spawn(process.execPath, [childScript, path, mode], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('close', () => r()));
  cleanups.push(async () => {
    child.kill('SIGKILL');
    await exited;
  });
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      if (d.includes('HELD')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`holder exited early (${code})`)));
  });
}

describe('acquireLock', () => {
  it('creates a missing lock file with mode 0600 and takes the lock without waiting', async () => {
    const path = lockPath();
    let waited = false;
    const held = await acquire(path, { onWaiting: () => (waited = true) });
    expect(held.path).toBe(path);
    expect(waited).toBe(false);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(holders(path)).toHaveLength(1);
  });

  it('makes a second acquirer wait until the first releases', async () => {
    const path = lockPath();
    const first = await acquire(path);
    let waiting!: () => void;
    const startedWaiting = new Promise<void>((r) => (waiting = r));
    let waitingCalls = 0;
    const second = acquire(path, {
      onWaiting: () => {
        waitingCalls += 1;
        waiting();
      },
    });
    const secondState = onceSettled(second);
    await startedWaiting;
    await eventually('second acquirer blocked in flock', () => hasWaiter(path));
    expect(secondState.settled()).toBe(false);
    await first.release();
    const held = await second;
    expect(held.path).toBe(path);
    expect(waitingCalls).toBe(1);
  });

  it('release() is idempotent and frees the lock for the next acquirer at once', async () => {
    const path = lockPath();
    const held = await acquire(path);
    await Promise.all([held.release(), held.release()]);
    await held.release();
    expect(holders(path)).toEqual([]);
    let waited = false;
    await acquire(path, { onWaiting: () => (waited = true) });
    expect(waited).toBe(false);
  });

  it('is released by the kernel when the holding process is SIGKILLed', async () => {
    const path = lockPath();
    const holder = await startHolder(path, 'stay');
    let waiting!: () => void;
    const startedWaiting = new Promise<void>((r) => (waiting = r));
    const mine = acquire(path, { onWaiting: () => waiting() });
    await startedWaiting;
    await eventually('our acquirer blocked in flock', () => hasWaiter(path));
    const t0 = performance.now();
    holder.kill('SIGKILL');
    await mine;
    const latencyMs = performance.now() - t0;
    console.info(`lock release latency after SIGKILL of the holder: ${latencyMs.toFixed(1)} ms`);
    expect(latencyMs).toBeLessThan(2000);
    // Only our own helper holds it now: the dead agent's helpers are gone.
    await eventually('a single holder', () => holders(path).length === 1);
  });

  it('is released when the holding process exits without calling release()', async () => {
    const path = lockPath();
    const holder = await startHolder(path, 'exit');
    // The held lock must not keep the holder alive: it exits by itself once its script is done.
    await eventually('holder exits by itself', () => holder.exitCode !== null);
    expect(holder.exitCode).toBe(0);
    await acquire(path);
    expect(holders(path)).toHaveLength(1);
  });

  it('rejects with a LockError when aborted while waiting, and stops waiting', async () => {
    const path = lockPath();
    await acquire(path);
    const ctl = new AbortController();
    let waiting!: () => void;
    const startedWaiting = new Promise<void>((r) => (waiting = r));
    const second = acquireLock(path, { signal: ctl.signal, watchContention: false, onWaiting: () => waiting() });
    const outcome = second.catch((e: unknown) => e);
    await startedWaiting;
    await eventually('second acquirer blocked in flock', () => hasWaiter(path));
    const reason = new Error('shutting down');
    ctl.abort(reason);
    const err = await outcome;
    expect(err).toBeInstanceOf(LockError);
    expect(err).toMatchObject({ code: 'ELOCK', file: path, cause: reason });
    expect(hasWaiter(path)).toBe(false);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const ctl = new AbortController();
    ctl.abort();
    const path = lockPath();
    await expect(acquireLock(path, { signal: ctl.signal, watchContention: false })).rejects.toBeInstanceOf(LockError);
    expect(() => statSync(path)).toThrow();
  });

  it('names the path when its directory does not exist', async () => {
    const path = join(work, 'no-such-dir', 'agent.lock');
    const err = await acquireLock(path, { signal: new AbortController().signal, watchContention: false }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LockError);
    expect((err as LockError).message).toBe(
      `cannot open lock file ${path}: directory ${join(work, 'no-such-dir')} does not exist`,
    );
  });

  it('fails clearly when flock(1) is not installed', async () => {
    const saved = process.env.PATH;
    process.env.PATH = join(work, 'empty-bin');
    try {
      const err = await acquireLock(lockPath(), { signal: new AbortController().signal, watchContention: false }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(LockError);
      expect((err as LockError).message).toMatch(/the flock command \(util-linux\) is not installed or not on PATH/);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('resolves lost when the helper dies without release()', async () => {
    const path = lockPath();
    const held = await acquire(path);
    const [pid] = holders(path);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid ?? 0, 'SIGKILL');
    await held.lost;
    expect(holders(path)).toEqual([]);
  });
});

describe('contention (--exit-on-lock-contention)', () => {
  it('resolves contended when another agent starts waiting for the lock', async () => {
    const path = lockPath();
    const first = await acquire(path, { watchContention: true });
    const second = acquire(path, { watchContention: true });
    await expect(first.contended).resolves.toBe('lock file was touched by a contender');
    await first.release();
    await second;
  });

  it('sees a contender that does not touch the file (flock(1), a Go kubelet) through /proc/locks', async () => {
    const path = lockPath();
    const held = await acquire(path, { watchContention: true });
    const other = spawn('flock', ['--exclusive', path, 'true'], { stdio: 'ignore' });
    const otherDone = new Promise<void>((r) => other.once('close', () => r()));
    cleanups.push(async () => {
      other.kill('SIGKILL');
      await otherDone;
    });
    await expect(held.contended).resolves.toBe('another process is waiting for the lock');
    await held.release();
    await otherDone;
    expect(other.exitCode).toBe(0);
  });

  it('counts deletion of the lock file as contention', async () => {
    const path = lockPath();
    const held = await acquire(path, { watchContention: true });
    unlinkSync(path);
    await expect(held.contended).resolves.toBe('lock file was removed');
  });

  it('does not watch without watchContention', async () => {
    const watching = await acquire(lockPath(), { watchContention: true });
    expect(probe.liveTimers()).toBe(1);
    await watching.release();
    expect(probe.liveTimers()).toBe(0);
    await acquire(lockPath(), { watchContention: false });
    expect(probe.liveTimers()).toBe(0);
  });
});
