// The stats' file-system effects: reading kernel files, statfs, measuring a
// directory tree, and finding a container's cgroup. Every function here
// answers undefined (or an empty result) for a path that is missing or
// unreadable: one absent source must not fail a whole refresh.
import { readFileSync } from 'node:fs';
import { lstat, readdir, statfs } from 'node:fs/promises';
import type { FsReading, Usage } from './build.js';
import type { MemoryReading } from './parse.js';

/**
 * A kernel file (/proc, /sys, a cgroup's). Read synchronously on purpose:
 * these pseudo-files are generated in memory and never wait on a disk, while
 * fs/promises' readFile costs four thread-pool round trips (open, fstat,
 * read, close) per file — with 110 pods, six files each every refresh, that
 * was most of the idle agent's CPU.
 */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

export async function statfsReading(path: string): Promise<FsReading | undefined> {
  try {
    const s = await statfs(path);
    return {
      capacityBytes: s.blocks * s.bsize,
      availableBytes: s.bavail * s.bsize,
      usedBytes: (s.blocks - s.bfree) * s.bsize,
      inodes: s.files,
      inodesFree: s.ffree,
    };
  } catch {
    return undefined;
  }
}

/** Upper bound of entries one directory measurement visits (a pod's volume may hold anything). */
export const MAX_WALK_ENTRIES = 20_000;

/**
 * Disk usage of a tree as `du` counts it (allocated blocks, one inode per
 * entry), without following symlinks. Stops counting after MAX_WALK_ENTRIES;
 * undefined when `dir` does not exist.
 */
export async function treeUsage(dir: string, signal: AbortSignal): Promise<Usage | undefined> {
  let top;
  try {
    top = await lstat(dir);
  } catch {
    return undefined;
  }
  let usedBytes = top.blocks * 512;
  let inodesUsed = 1;
  const queue = top.isDirectory() ? [dir] : [];
  while (queue.length > 0 && inodesUsed < MAX_WALK_ENTRIES && !signal.aborted) {
    const d = queue.shift() as string;
    let names: string[];
    try {
      names = await readdir(d);
    } catch {
      continue;
    }
    for (const name of names) {
      if (inodesUsed >= MAX_WALK_ENTRIES) break;
      try {
        const st = await lstat(`${d}/${name}`);
        usedBytes += st.blocks * 512;
        inodesUsed += 1;
        if (st.isDirectory()) queue.push(`${d}/${name}`);
      } catch {
        // removed while walking
      }
    }
  }
  return { usedBytes, inodesUsed };
}

/** Upper bounds of one cgroup search: how deep below the hierarchy root, and how many directories. */
const MAX_CGROUP_DEPTH = 5;
const MAX_CGROUP_DIRS = 5_000;

/**
 * Finds cgroup directories by name (a container's or sandbox's runtime ID)
 * in the v1 memory hierarchy (v2: the unified one): with the cgroupfs driver the runtime names each
 * container's cgroup after its ID below a parent that depends on the runtime
 * and the pod (cgroup_parent), so the path is searched once and remembered.
 * The same relative path holds in the cpu,cpuacct hierarchy.
 */
export class CgroupLocator {
  private readonly known = new Map<string, string>();

  constructor(private readonly mount: string) {}

  /** Paths (relative to a hierarchy root, leading '/') for each of `ids` found; one bounded search covers all unknown ones. */
  async locate(ids: readonly string[], signal: AbortSignal): Promise<Map<string, string>> {
    const missing = new Set(ids.filter((id) => !this.known.has(id)));
    if (missing.size > 0) await this.search(missing, signal);
    const out = new Map<string, string>();
    for (const id of ids) {
      const p = this.known.get(id);
      if (p !== undefined) out.set(id, p);
    }
    for (const id of this.known.keys()) if (!ids.includes(id)) this.known.delete(id);
    return out;
  }

  private async search(wanted: Set<string>, signal: AbortSignal): Promise<void> {
    const root = (await isUnified(this.mount)) ? this.mount : `${this.mount}/memory`;
    let level = [''];
    let visited = 0;
    for (let depth = 0; depth < MAX_CGROUP_DEPTH && level.length > 0 && wanted.size > 0 && !signal.aborted; depth++) {
      const next: string[] = [];
      for (const rel of level) {
        if (visited++ >= MAX_CGROUP_DIRS) return;
        let entries;
        try {
          entries = await readdir(`${root}${rel}`, { withFileTypes: true });
        } catch {
          continue;
        }
        for (const e of entries) {
          if (!e.isDirectory()) continue;
          const p = `${rel}/${e.name}`;
          if (wanted.has(e.name)) {
            this.known.set(e.name, p);
            wanted.delete(e.name);
          } else next.push(p);
        }
      }
      level = next;
    }
  }
}

export interface CgroupReading {
  cpuNanos?: number;
  memory: MemoryReading;
  /** The first process in the cgroup, to read its network namespace's counters. */
  firstPid?: number;
}

/** Whether `mount` is the unified (v2) hierarchy; remembered per mount. */
const unifiedByMount = new Map<string, Promise<boolean>>();
export function isUnified(mount: string): Promise<boolean> {
  let p = unifiedByMount.get(mount);
  if (p === undefined) {
    p = readText(`${mount}/cgroup.controllers`).then((t) => t !== undefined);
    unifiedByMount.set(mount, p);
  }
  return p;
}

/**
 * Disk usage walks, each repeated at most once per `ttlMs` (the kubelet
 * recomputes volume and log usage once per --volume-stats-agg-period, 1 min,
 * not at every stats refresh: a walk costs a stat per file). An entry not
 * asked for during two periods is dropped.
 */
export class UsageCache {
  private readonly entries = new Map<string, { at: number; usage: Usage | undefined }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async usage(dir: string, signal: AbortSignal): Promise<Usage | undefined> {
    const t = this.now();
    const hit = this.entries.get(dir);
    if (hit !== undefined && t - hit.at < this.ttlMs) return hit.usage;
    const usage = await treeUsage(dir, signal);
    if (!signal.aborted) this.entries.set(dir, { at: t, usage });
    return usage;
  }

  /** Drops what has not been measured for two periods (pods that went). */
  prune(): void {
    const t = this.now();
    for (const [dir, e] of this.entries) if (t - e.at >= 2 * this.ttlMs) this.entries.delete(dir);
  }
}
