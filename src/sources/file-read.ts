// The file source's view of the disk: what the manifest path holds, and the
// bytes of one manifest, read so that no entry can block or exhaust the agent.
// A FIFO, socket or device is never opened for a blocking read; a symbolic
// link loop or a dangling link is a problem of that entry alone; a manifest is
// read to at most MAX_MANIFEST_BYTES.
import type { BigIntStats, Stats } from 'node:fs';
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compareStrings } from '../util/compare.js';

/** One entry of the manifest path: a regular file to read, or why it is not one. */
export type Entry = { readonly path: string; readonly stamp: string; readonly size: number } | { readonly path: string; readonly problem: string };

export interface Listing {
  /** Whether the path is a directory (its entries can then be updated one by one: patchListing). */
  readonly isDir?: boolean;
  /** Why the path itself cannot be read (ENOENT, ...); the entries are then empty. */
  readonly missing?: string;
  readonly entries: readonly Entry[];
  /** Subdirectories, which the kubelet does not recurse into either. */
  readonly subdirs: readonly string[];
}

/**
 * Device, inode, size and the modification and change times (ns): any write,
 * rename-into-place or truncate changes one of them. 110 manifests written at
 * once raise 110 events, each a full rescan; without this each re-parses them all.
 */
export const stampOf = (s: BigIntStats): string => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;

const errno = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? String(e);

/** Device and inode of `path` (links followed), or undefined when it cannot be stat'ed. */
export function pathIdentity(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}`;
  } catch {
    return undefined;
  }
}

/** What a non-regular, non-directory entry is, in words. */
export function specialKind(s: Stats | BigIntStats): string {
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** Why `path` cannot be stat'ed, in words: a loop or a dangling link is worth saying as such. */
function statProblem(path: string, e: unknown): string | undefined {
  const code = errno(e);
  if (code === 'ELOOP') return 'a symbolic link loop (ELOOP); skipped';
  if (code === 'ENOENT') {
    // Gone since the directory was listed: not a problem, just no longer there.
    const l = lstatSync(path, { throwIfNoEntry: false });
    return l?.isSymbolicLink() ? 'a dangling symbolic link (its target does not exist); skipped' : undefined;
  }
  return `cannot be examined: ${code}; skipped`;
}

function entryOf(path: string): Entry | 'dir' | undefined {
  let s: BigIntStats | undefined;
  try {
    s = statSync(path, { bigint: true });
  } catch (e) {
    const problem = statProblem(path, e);
    return problem === undefined ? undefined : { path, problem };
  }
  if (s.isDirectory()) return 'dir';
  if (s.isFile()) return { path, stamp: stampOf(s), size: Number(s.size) };
  return { path, problem: `${specialKind(s)}, not a manifest file; skipped` };
}

/**
 * The manifest path's entries in name order: a directory's non-dot entries,
 * or the path itself when it is a file. Synchronous: a manifest directory is
 * local and small, and 110 promise-based reads queue behind each other in
 * libuv's thread pool (~80 ms), where synchronous ones take ~5 ms in all.
 */
export function listPath(path: string): Listing {
  let top: BigIntStats;
  try {
    top = statSync(path, { bigint: true });
  } catch (e) {
    return { missing: errno(e), entries: [], subdirs: [] };
  }
  if (!top.isDirectory()) {
    const self = entryOf(path);
    return { entries: self === undefined || self === 'dir' ? [] : [self], subdirs: [] };
  }
  let names: string[];
  try {
    names = readdirSync(path);
  } catch (e) {
    return { missing: errno(e), entries: [], subdirs: [] };
  }
  const entries: Entry[] = [];
  const subdirs: string[] = [];
  for (const name of names.filter((n) => !n.startsWith('.')).sort()) {
    const p = join(path, name);
    const e = entryOf(p);
    if (e === 'dir') subdirs.push(p);
    else if (e !== undefined) entries.push(e);
  }
  return { isDir: true, entries, subdirs };
}

/**
 * `prev` with the named entries of the directory `path` looked at again: what
 * one change costs is the stat of the entries it names, not of the whole
 * directory (200 bad files dropped next to 105 manifests made every event
 * stat 300 entries). The caller lists in full whenever it may have missed an
 * event; names starting with a dot are not entries.
 */
export function patchListing(path: string, prev: Listing, names: Iterable<string>): Listing {
  const entries = new Map(prev.entries.map((e) => [e.path, e]));
  const subdirs = new Set(prev.subdirs);
  for (const name of names) {
    if (name.startsWith('.') || name.includes('/')) continue;
    const p = join(path, name);
    entries.delete(p);
    subdirs.delete(p);
    const e = entryOf(p);
    if (e === 'dir') subdirs.add(p);
    else if (e !== undefined) entries.set(p, e);
  }
  return { isDir: true, entries: [...entries.values()].sort((a, b) => compareStrings(a.path, b.path)), subdirs: [...subdirs].sort(compareStrings) };
}

export type ReadResult = { readonly bytes: Buffer; readonly stamp: string; readonly mtimeMs: number } | { readonly problem: string };

const CHUNK = 64 * 1024;

/**
 * The file's bytes, at most `max` of them. Opened non-blocking: a file swapped
 * for a FIFO between listing and reading cannot hang the scan (opening a FIFO
 * without a writer blocks, unless O_NONBLOCK). The size is checked while
 * reading, not only from the stat: the file may grow meanwhile.
 */
export function readBounded(path: string, max: number): ReadResult {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return { problem: statProblem(path, e) ?? `cannot be read: ${errno(e)}` };
  }
  try {
    const s = fstatSync(fd, { bigint: true });
    if (!s.isFile()) return { problem: `${specialKind(s)}, not a manifest file; skipped` };
    if (s.size > BigInt(max)) return { problem: tooLarge(max, Number(s.size)) };
    // One buffer of the size the stat gave, plus a byte to notice growth: no chunks to
    // join (a 5 MB manifest was copied twice), and a buffer of its own, which the
    // parser hands to its worker without a copy.
    let buf = Buffer.allocUnsafe(Number(s.size) + 1);
    let total = 0;
    for (;;) {
      if (total === buf.length) {
        if (total > max) return { problem: tooLarge(max) };
        // Grown since the stat: make room (rare; bounded by max).
        const bigger = Buffer.allocUnsafe(Math.min(max + 1, Math.max(buf.length * 2, CHUNK)));
        buf.copy(bigger, 0, 0, total);
        buf = bigger;
      }
      const n = readSync(fd, buf, total, buf.length - total, null);
      if (n === 0) break;
      total += n;
    }
    if (total > max) return { problem: tooLarge(max) };
    return { bytes: buf.subarray(0, total), stamp: stampOf(s), mtimeMs: Number(s.mtimeMs) };
  } catch (e) {
    return { problem: `cannot be read: ${errno(e)}` };
  } finally {
    closeSync(fd);
  }
}

/** The kubelet's wording, more or less: the limit, and the size when known. */
export function tooLarge(max: number, size?: number): string {
  return `the file is larger than the ${max / (1024 * 1024)} MB limit for a manifest${size === undefined ? '' : ` (${size} bytes)`}; refused`;
}
