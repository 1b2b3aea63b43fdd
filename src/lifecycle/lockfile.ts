// `--lock-file` / `--exit-on-lock-contention` without a native addon.
//
// The kubelet opens the file (O_CREAT|O_RDWR, 0600), takes a blocking
// flock(LOCK_EX) that it holds until the process dies, and with
// --exit-on-lock-contention exits once inotify reports IN_OPEN or
// IN_DELETE_SELF on the file. Node can call neither flock(2) nor watch IN_OPEN,
// so:
//
// - The lock is held by a helper process group: `flock -o <file> sh -c '…; exec
//   cat'`. flock(1) takes the lock, forks the shell (which does not get the
//   lock fd, -o) and waits for it; the shell prints a token and becomes `cat`
//   reading the stdin pipe whose only writer is this process. When the agent
//   dies, even by SIGKILL, the kernel closes that writer, `cat` reads EOF and
//   exits, flock(1) returns and its exit drops the lock (measured 3-5 ms).
// - A contender first tries without blocking; if the lock is busy it "touches"
//   the file (utimes, repeated while it waits) and then blocks.
// - The holder watches the file (fs.watch, plus a 1 s stat poll) and treats a
//   ctime change, deletion or replacement as contention. The poll also reads
//   /proc/locks for a process blocked in flock(2) on the file's inode, which
//   catches contenders that do not touch (a Go kubelet, flock(1)).

import { spawn, type ChildProcess } from 'node:child_process';
import { constants, watch, type BigIntStats, type FSWatcher } from 'node:fs';
import { open, readFile, stat, utimes } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { dirname, resolve } from 'node:path';
import { LockError } from '../errors.js';
import { onAbort } from './abort.js';

export interface HeldLock {
  /** Absolute path of the lock file. */
  readonly path: string;
  /** Kills the helper and resolves once the kernel has dropped the lock. Idempotent. */
  release(): Promise<void>;
  /**
   * Resolves, with a short reason for the log, when another process contends for
   * the lock (only with `watchContention`; otherwise never). Watching stops then.
   */
  readonly contended: Promise<string>;
  /** Resolves if the helper died without release(): the lock is no longer held. */
  readonly lost: Promise<void>;
}

export interface AcquireLockOptions {
  /** Aborts a wait for the lock; ignored once the lock is held. */
  signal: AbortSignal;
  /** Watch for contention (the kubelet's --exit-on-lock-contention). */
  watchContention: boolean;
  /** Called once, when the lock is held by another process and the call starts waiting. */
  onWaiting?: () => void;
  /** Wait at most this long (0: not at all), then reject with LockBusyError, instead of waiting indefinitely. */
  giveUpAfterMs?: number;
}

/** The lock stayed held by another process for the `giveUpAfterMs` the caller allowed. */
export class LockBusyError extends LockError {
  override name = 'LockBusyError';
}

const FLOCK = 'flock';
const TOKEN = 'locked\n';
const BUSY_EXIT = 75; // EX_TEMPFAIL; flock's own errors use other sysexits codes
/** Between contention polls by the holder and between touches by a waiter. */
const POLL_MS = 1000;

/**
 * Takes the exclusive lock on `path` (created 0600 if missing; its directory must
 * exist), waiting while another process holds it (with `giveUpAfterMs`, at most
 * that long, then LockBusyError). Rejects with a LockError when
 * the file cannot be opened, flock(1) is missing or fails, or `signal` aborts
 * the wait (the LockError's cause is the abort reason).
 */
export async function acquireLock(path: string, opts: AcquireLockOptions): Promise<HeldLock> {
  const file = resolve(path);
  throwIfAborted(file, opts.signal);
  await createLockFile(file);

  let helper = new LockHelper(file, 'try', opts.giveUpAfterMs ?? 0);
  if (!(await lockedOrAborted(helper, opts.signal))) {
    if (opts.giveUpAfterMs !== undefined) throw new LockBusyError(`${file} is locked by another process`, { file });
    opts.onWaiting?.();
    const toucher = new Toucher(file);
    try {
      helper = new LockHelper(file, 'wait');
      await lockedOrAborted(helper, opts.signal);
    } finally {
      // An in-flight touch landing after the baseline below would read as contention.
      await toucher.stop();
    }
  }

  try {
    const baseline = opts.watchContention ? await stat(file, { bigint: true }).catch(() => undefined) : undefined;
    return new Lock(file, helper, opts.watchContention, baseline);
  } catch (err) {
    await helper.kill();
    throw err;
  }
}

/** True once locked, false when the lock is busy ('try' helper); throws otherwise. */
async function lockedOrAborted(helper: LockHelper, signal: AbortSignal): Promise<boolean> {
  let aborted: ((reason: unknown) => void) | undefined;
  const abort = new Promise<{ reason: unknown }>((res) => {
    aborted = (reason) => res({ reason });
  });
  const dispose = onAbort(signal, (reason) => aborted?.(reason));
  try {
    const outcome = await Promise.race([helper.locked, abort]);
    if (outcome === true) return true;
    if (outcome !== false) {
      await helper.kill();
      throw new LockError(`waiting for the lock on ${helper.file} was aborted`, {
        file: helper.file,
        cause: outcome.reason,
      });
    }
    const exit = await helper.exited;
    if (exit.spawnError !== undefined) {
      if (exit.spawnError.code === 'ENOENT') {
        throw new LockError(
          `cannot lock ${helper.file}: the flock command (util-linux) is not installed or not on PATH`,
          { file: helper.file, cause: exit.spawnError },
        );
      }
      throw new LockError(`cannot lock ${helper.file}: starting flock failed: ${exit.spawnError.message}`, {
        file: helper.file,
        cause: exit.spawnError,
      });
    }
    if (helper.mode === 'try' && exit.code === BUSY_EXIT) return false;
    const how = exit.code === null ? `signal ${exit.signal ?? '?'}` : `exit code ${exit.code}`;
    const detail = exit.stderr.trim();
    throw new LockError(`cannot lock ${helper.file}: flock failed (${how})${detail === '' ? '' : `: ${detail}`}`, {
      file: helper.file,
    });
  } finally {
    dispose();
  }
}

function throwIfAborted(file: string, signal: AbortSignal): void {
  if (signal.aborted) {
    throw new LockError(`waiting for the lock on ${file} was aborted`, { file, cause: signal.reason });
  }
}

/** Open with O_CREAT like the kubelet, so the reason a path is unusable is reported by us, not by flock's stderr. */
async function createLockFile(file: string): Promise<void> {
  try {
    const handle = await open(file, constants.O_CREAT | constants.O_RDWR, 0o600);
    await handle.close();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? `directory ${dirname(file)} does not exist`
        : err instanceof Error
          ? err.message
          : String(err);
    throw new LockError(`cannot open lock file ${file}: ${why}`, { file, cause: err });
  }
}

interface HelperExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly spawnError?: NodeJS.ErrnoException;
}

/** One flock(1) process group. 'try' gives up with BUSY_EXIT instead of waiting. */
class LockHelper {
  readonly file: string;
  readonly mode: 'try' | 'wait';
  /** true once the token arrived (lock held), false if the helper exited first. */
  readonly locked: Promise<boolean>;
  /** The flock process has exited and its pipes are closed. */
  readonly exited: Promise<HelperExit>;
  readonly #child: ChildProcess;
  #gone = false;

  /** `timeoutMs` > 0: a 'try' waits that long before giving up. */
  constructor(file: string, mode: 'try' | 'wait', timeoutMs = 0) {
    this.file = file;
    this.mode = mode;
    const args = ['--exclusive', '--close'];
    if (mode === 'try') args.push(...(timeoutMs > 0 ? ['--timeout', String(timeoutMs / 1000)] : ['--nonblock']), '--conflict-exit-code', String(BUSY_EXIT));
    args.push('--', file, 'sh', '-c', 'echo locked; exec cat >/dev/null');
    // Own process group, so release() can kill flock and the shell together.
    this.#child = spawn(FLOCK, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const child = this.#child;

    let stdout = '';
    let stderr = '';
    let sawToken!: (ok: boolean) => void;
    this.locked = new Promise<boolean>((res) => {
      sawToken = res;
    });
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < TOKEN.length) {
        stdout += chunk;
        if (stdout.startsWith(TOKEN)) sawToken(true);
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    this.exited = new Promise<HelperExit>((res) => {
      const done = (exit: HelperExit): void => {
        this.#gone = true;
        // The write end of stdin is the lifeline; once the helper is gone it is just a handle to free.
        child.stdin?.destroy();
        sawToken(false);
        res(exit);
      };
      child.once('error', (err: NodeJS.ErrnoException) => {
        if (child.pid === undefined) done({ code: null, signal: null, stderr, spawnError: err });
      });
      child.once('close', (code, signal) => done({ code, signal, stderr }));
    });
  }

  /** Lets the process exit while the helper runs (its death then releases the lock). */
  unref(): void {
    this.#child.unref();
    for (const stream of this.#streams()) stream?.unref();
  }

  /** With stdio 'pipe' node hands out net.Sockets, which can be (un)ref'd. */
  #streams(): (Socket | null)[] {
    return [this.#child.stdin, this.#child.stdout, this.#child.stderr] as (Socket | null)[];
  }

  /** SIGKILLs the whole group and waits until it is gone. Safe to call repeatedly. */
  async kill(): Promise<void> {
    const pid = this.#child.pid;
    if (pid !== undefined && !this.#gone) {
      // Whoever awaits this must get an answer: an unref'd helper could let the
      // loop drain first and the process end with the caller's promise unsettled.
      this.#child.ref();
      for (const stream of this.#streams()) stream?.ref();
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // ESRCH: already exited; 'close' is on its way.
      }
    }
    await this.exited;
  }
}

/** A waiter's contention signal: touches the file now and every POLL_MS until stopped. */
class Toucher {
  readonly #file: string;
  readonly #timer: NodeJS.Timeout;
  #inFlight: Promise<void> = Promise.resolve();

  constructor(file: string) {
    this.#file = file;
    this.#touch();
    this.#timer = setInterval(() => this.#touch(), POLL_MS);
    this.#timer.unref();
  }

  #touch(): void {
    const now = new Date();
    // Best effort: a holder that cannot see touches still sees us in /proc/locks.
    this.#inFlight = this.#inFlight.then(() => utimes(this.#file, now, now).catch(() => {}));
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#inFlight;
  }
}

class Lock implements HeldLock {
  readonly path: string;
  readonly contended: Promise<string>;
  readonly lost: Promise<void>;
  readonly #helper: LockHelper;
  #released: Promise<void> | undefined;
  #stopWatching: () => void = () => {};

  constructor(path: string, helper: LockHelper, watchContention: boolean, baseline: BigIntStats | undefined) {
    this.path = path;
    this.#helper = helper;
    let contended!: (reason: string) => void;
    this.contended = new Promise<string>((res) => {
      contended = res;
    });
    this.lost = helper.exited.then(
      () => {
        this.#stopWatching();
        // A release() in progress is not a loss: stay pending forever then.
        return this.#released === undefined ? undefined : new Promise<void>(() => {});
      },
    );
    if (watchContention && baseline === undefined) {
      contended('lock file was removed');
    } else if (watchContention && baseline !== undefined) {
      this.#stopWatching = watchForContention(path, baseline, (reason) => {
        this.#stopWatching();
        contended(reason);
      });
    }
    // Like the kubelet's fd, the lock lives as long as the process: a forgotten
    // release() must not keep the agent from exiting, and exiting drops the lock.
    helper.unref();
  }

  release(): Promise<void> {
    this.#released ??= (async () => {
      this.#stopWatching();
      await this.#helper.kill();
    })();
    return this.#released;
  }
}

/** Calls `onContended` at most once; returns the (idempotent) stop function. */
function watchForContention(file: string, baseline: BigIntStats, onContended: (reason: string) => void): () => void {
  let stopped = false;
  let checking = false;
  let watcher: FSWatcher | undefined;

  const check = async (): Promise<void> => {
    if (stopped || checking) return;
    checking = true;
    try {
      const reason = await contentionReason(file, baseline);
      if (reason !== undefined && !stopped) onContended(reason);
    } finally {
      checking = false;
    }
  };
  const checkSoon = (): void => {
    check().catch(() => {});
  };

  const timer = setInterval(checkSoon, POLL_MS);
  timer.unref();
  try {
    watcher = watch(file, { persistent: false }, checkSoon);
    // Polling still covers us if inotify gives up (e.g. out of watches).
    watcher.on('error', () => watcher?.close());
  } catch {
    watcher = undefined;
  }

  return () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    watcher?.close();
  };
}

async function contentionReason(file: string, baseline: BigIntStats): Promise<string | undefined> {
  let now: BigIntStats;
  try {
    now = await stat(file, { bigint: true });
  } catch {
    return 'lock file was removed';
  }
  if (now.ino !== baseline.ino || now.dev !== baseline.dev) return 'lock file was replaced';
  if (now.ctimeNs !== baseline.ctimeNs) return 'lock file was touched by a contender';
  if (await hasFlockWaiter(baseline.dev, baseline.ino)) return 'another process is waiting for the lock';
  return undefined;
}

/** Whether /proc/locks lists a process blocked in flock(2) on dev:ino. False where unreadable. */
async function hasFlockWaiter(dev: bigint, ino: bigint): Promise<boolean> {
  try {
    return procLocksHasFlockWaiter(await readFile('/proc/locks', 'utf8'), dev, ino);
  } catch {
    return false;
  }
}

/**
 * Whether the /proc/locks text lists a process blocked in flock(2) on the inode
 * `ino` of device `dev` (a stat() st_dev). Exported for tests.
 */
export function procLocksHasFlockWaiter(procLocks: string, dev: bigint, ino: bigint): boolean {
  // st_dev uses glibc's encoding; /proc/locks prints the kernel's MAJOR:MINOR in hex.
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  // e.g. "3: -> FLOCK  ADVISORY  WRITE 4242 fe:00:2146374 0 EOF"
  const waiter = /^\s*\d+:\s+->\s+FLOCK\s+\S+\s+\S+\s+-?\d+\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/gm;
  for (const m of procLocks.matchAll(waiter)) {
    const [, maj, min, inode] = m;
    if (maj === undefined || min === undefined || inode === undefined) continue;
    if (BigInt(`0x${maj}`) === major && BigInt(`0x${min}`) === minor && BigInt(inode) === ino) return true;
  }
  return false;
}
