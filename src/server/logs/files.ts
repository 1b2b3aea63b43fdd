// Which files hold a container's log, and where its last N lines start.
// The rotation manager (src/container-logs) renames the live `<n>.log` to
// `<n>.log.<YYYYMMDD-hhmmss>` and later gzips older ones (`.gz`); the log is
// those files oldest first, then the live one. Called per request; reads
// only; bounded by the files' sizes (rotated files are at most
// --container-log-max-size each).
import { open, readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { isFullRecord } from './cri-format.js';
import { compareStrings } from '../../util/compare.js';

const gunzipAsync = promisify(gunzip);

export interface LogFile {
  readonly path: string;
  readonly gz: boolean;
}

const ROTATED = /^(\d{8}-\d{6})(\.gz)?$/;

/**
 * Pure: the rotated files of `live` among `names` (its directory's entries),
 * oldest first (the stamps sort as text). Leftovers of a compression (`.tmp`)
 * are ignored; where both `x` and `x.gz` exist (a compression that finished
 * but has not removed its source yet) the plain one is read.
 */
export function orderRotated(liveName: string, names: readonly string[]): Array<{ name: string; gz: boolean }> {
  const prefix = `${liveName}.`;
  const byStamp = new Map<string, boolean>();
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const m = ROTATED.exec(n.slice(prefix.length));
    if (!m) continue;
    const stamp = m[1]!;
    const gz = m[2] !== undefined;
    const seen = byStamp.get(stamp);
    byStamp.set(stamp, seen === undefined ? gz : seen && gz);
  }
  return [...byStamp.entries()].sort(([a], [b]) => compareStrings(a, b)).map(([stamp, gz]) => ({ name: `${prefix}${stamp}${gz ? '.gz' : ''}`, gz }));
}

/** The log's files, oldest first, the live one last (listed even when it does not exist right now). */
export async function logFiles(live: string): Promise<LogFile[]> {
  let names: string[] = [];
  try {
    names = await readdir(dirname(live));
  } catch {
    // No directory: only the live path, whose open then reports the error.
  }
  const rotated = orderRotated(basename(live), names).map((r) => ({ path: join(dirname(live), r.name), gz: r.gz }));
  return [...rotated, { path: live, gz: false }];
}

/** Random access to one file's bytes (plain, or gunzipped whole). */
export interface ByteSource {
  readonly size: number;
  readAt(pos: number, len: number): Promise<Buffer>;
  close(): Promise<void>;
}

export function bufferSource(b: Buffer): ByteSource {
  return { size: b.length, readAt: (pos, len) => Promise.resolve(b.subarray(pos, pos + len)), close: () => Promise.resolve() };
}

/** Opens a log file for random access; a gzipped one is inflated into memory (it was at most the rotation size). */
export async function openSource(f: LogFile): Promise<ByteSource> {
  if (f.gz) return bufferSource(await gunzipAsync(await readFile(f.path)));
  const fh = await open(f.path, 'r');
  const { size } = await fh.stat();
  return {
    size,
    readAt: async (pos, len) => {
      const buf = Buffer.alloc(len);
      const { bytesRead } = await fh.read(buf, 0, len, pos);
      return buf.subarray(0, bytesRead);
    },
    close: () => fh.close(),
  };
}

const CHUNK = 64 * 1024;
const NL = 0x0a;

/**
 * Scans `src` backwards for the start of its last `n` logical lines (counted
 * by their F records; P records before one belong to it). Returns the offset
 * to read from and how many lines were found: fewer than n means the whole
 * file (offset 0) and the caller goes on in the previous file. Bytes after
 * the last newline (a record being written) are not counted but are read.
 */
export async function tailStart(src: ByteSource, n: number): Promise<{ offset: number; found: number }> {
  let pos = src.size;
  let carry = Buffer.alloc(0); // bytes after `pos` up to the next unprocessed newline
  let found = 0;
  let sawNewline = false;
  while (pos > 0) {
    const len = Math.min(CHUNK, pos);
    pos -= len;
    const buf = Buffer.concat([await src.readAt(pos, len), carry]);
    let end = buf.length;
    for (let i = buf.length - 1; i >= 0; i--) {
      if (buf[i] !== NL) continue;
      if (sawNewline) {
        // buf[i+1 .. end) is one whole record whose newline is at `end`.
        if (isFullRecord(buf.subarray(i + 1, end))) {
          if (found === n) return { offset: pos + end + 1, found };
          found++;
        }
      }
      sawNewline = true;
      end = i;
    }
    carry = buf.subarray(0, end);
  }
  // The first record of the file.
  if (sawNewline && carry.length > 0 && isFullRecord(carry)) {
    if (found === n) return { offset: carry.length + 1, found };
    found++;
  }
  return { offset: 0, found };
}
