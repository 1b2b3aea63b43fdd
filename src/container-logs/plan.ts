// What rotating one container's log means, as a pure function of its size
// and the rotated files beside it (the kubelet's rotateLog:
// cleanupUnusedLogs, removeExcessLogs, compress, rotateLatestLog). The
// rotation manager (manager.ts) lists the directory and carries the plan out.
//
// Files of a log `<dir>/<restartCount>.log`:
//   <log>                          the live file the runtime writes
//   <log>.<YYYYMMDD-hhmmss>        the newest rotated file, left uncompressed
//   <log>.<YYYYMMDD-hhmmss>.gz     older rotated files
//   <log>.<...>.tmp                a compression that did not finish
// After a rotation at most maxFiles remain: the live file, the file just
// rotated, and maxFiles - 2 compressed ones.

export const COMPRESS_SUFFIX = '.gz';
export const TMP_SUFFIX = '.tmp';

export interface RotationInput {
  /** The live log's path. */
  log: string;
  /** Its size in bytes now. */
  size: number;
  /** --container-log-max-size in bytes; rotation happens at or above it. */
  maxSize: number;
  /** --container-log-max-files (≥ 2): files kept, the live one included. */
  maxFiles: number;
  /** Paths in the log's directory that start with `<log>.` (the rotated files and leftovers). */
  rotated: readonly string[];
  /** Names the new rotated file. */
  now: Date;
}

export interface RotationPlan {
  /** Removed first: unfinished compressions, plain files whose .gz exists, the oldest beyond the limit. */
  remove: string[];
  /** Then gzipped (to `<file>.gz`, the plain file removed): every remaining uncompressed rotated file. */
  compress: string[];
  /** Then the live log is renamed to this, and the runtime reopens the live path. */
  rotateTo: string;
}

/** The kubelet's rotated-file timestamp (Go layout 20060102-150405), in UTC. */
export function rotationTimestamp(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/** What to do for one log; undefined when it is below the limit (or the limit is off: maxSize ≤ 0). Pure. */
export function planRotation(inp: RotationInput): RotationPlan | undefined {
  if (inp.maxSize <= 0 || inp.size < inp.maxSize) return undefined;
  const prefix = `${inp.log}.`;
  const files = inp.rotated.filter((f) => f.startsWith(prefix));
  const present = new Set(files);
  const remove: string[] = [];
  const kept: string[] = [];
  for (const f of files) {
    // A compression cut short, or one that finished without removing its source.
    if (f.endsWith(TMP_SUFFIX) || (!f.endsWith(COMPRESS_SUFFIX) && present.has(`${f}${COMPRESS_SUFFIX}`))) remove.push(f);
    else kept.push(f);
  }
  // Oldest first: the timestamps sort as text. Beside the live file and the one rotated now, maxFiles - 2 stay.
  kept.sort();
  const excess = Math.max(0, kept.length - Math.max(0, inp.maxFiles - 2));
  remove.push(...kept.slice(0, excess));
  const compress = kept.slice(excess).filter((f) => !f.endsWith(COMPRESS_SUFFIX));
  return { remove, compress, rotateTo: `${inp.log}.${rotationTimestamp(inp.now)}` };
}
