// One agent per --root-dir. Two agents managing pods on one node with the same
// root directory (and different or no --lock-file) each see the other's pods
// as orphans: they tear down and recreate each other's pods in a loop. The
// kubelet has no guard for this beyond --lock-file; the agent refuses the
// second one at start, before its pod pipeline exists.
//
// Contract: taken by the composition root, after --lock-file (so a handover
// through --lock-file/--exit-on-lock-contention still works: the previous
// agent releases this lock before its --lock-file), and only when the agent
// manages pods. The lock is an exclusive flock(2) on ROOT_DIR_LOCK_FILE inside
// the root directory, held like --lock-file's (see lockfile.ts) for the life of
// the process; the file records the holder's pid for the refusal message.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LockError } from '../errors.js';
import { acquireLock, LockBusyError, type HeldLock } from './lockfile.js';

/** The lock file's name inside --root-dir. */
export const ROOT_DIR_LOCK_FILE = 'agent-root-dir.lock';

/**
 * How long a start waits for the lock before refusing. Not 0: an agent killed
 * just now (SIGKILL, a crash) drops its lock a few milliseconds after it dies,
 * and its successor, started by systemd or by a --lock-file handover at that
 * moment, must not be refused for it.
 */
export const ROOT_DIR_LOCK_WAIT_MS = 2_000;

/** The mode the kubelet creates its root directory with. */
const ROOT_DIR_MODE = 0o750;

export interface RootDirLockOptions {
  signal: AbortSignal;
  /** ROOT_DIR_LOCK_WAIT_MS by default. */
  waitMs?: number;
}

/**
 * Creates `rootDir` if missing and takes its lock. Rejects with a LockError
 * naming the root directory and, when it recorded one, the holder's pid when
 * another agent has it; with a LockError too when the directory or the lock
 * file cannot be created.
 */
export async function lockRootDir(rootDir: string, opts: RootDirLockOptions): Promise<HeldLock> {
  const dir = resolve(rootDir);
  try {
    await mkdir(dir, { recursive: true, mode: ROOT_DIR_MODE });
  } catch (err) {
    throw new LockError(`cannot create --root-dir ${dir}: ${err instanceof Error ? err.message : String(err)}`, { flag: '--root-dir', file: dir, cause: err });
  }
  const file = rootDirLockPath(dir);
  let lock: HeldLock;
  try {
    lock = await acquireLock(file, { signal: opts.signal, watchContention: false, giveUpAfterMs: opts.waitMs ?? ROOT_DIR_LOCK_WAIT_MS });
  } catch (err) {
    if (!(err instanceof LockBusyError)) throw err;
    const pid = await recordedPid(file);
    const who = pid === undefined ? 'another agent' : `another agent (pid ${pid})`;
    throw new LockError(`${who} is already using --root-dir ${dir}; each agent needs its own root directory`, { flag: '--root-dir', file, cause: err });
  }
  try {
    // Only for the message above: the flock is what excludes.
    await writeFile(file, `${process.pid}\n`);
  } catch {
    // A lock without the pid still excludes; the refusal then names no pid.
  }
  return lock;
}

export const rootDirLockPath = (rootDir: string): string => join(resolve(rootDir), ROOT_DIR_LOCK_FILE);

async function recordedPid(file: string): Promise<number | undefined> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    return /^\d+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}
