// The in-memory Storage: the default backend of platform-apiserver, for one
// machine and for tests. It keeps what etcd keeps, in one process: one
// revision counter, every key's versions inside the history window (so reads
// at an older revision and paged lists at a first page's revision see that
// exact state), and the ordered change log the watches read from. History
// older than the window (`historyWindowMs`, kube-apiserver's compaction
// interval) is compacted as time passes, on the next call: no timer runs, so
// nothing outlives close().
import { StorageError, type ListOptions, type ListResult, type Storage, type StorageEvent, type StoredValue, type WatchOptions } from './interface.js';

export interface MemoryStorageOptions {
  /** History kept for reads at old revisions and watch replays (default 5 min). */
  historyWindowMs?: number;
  now?: () => number;
}

/** One version of a key; `value` undefined = deleted at `rev`. */
interface Version {
  rev: number;
  createRevision: number;
  value: Uint8Array | undefined;
}

/** One write, in revision order: what watches replay. */
interface LogEntry {
  rev: number;
  at: number;
  event: Exclude<StorageEvent, { type: 'progress' }>;
}

const DEFAULT_WINDOW_MS = 5 * 60_000;
/** Lists whose live keys are kept for their next page (see liveKeys). */
const LIVE_MEMO_LISTS = 4;

export function createMemoryStorage(opts: MemoryStorageOptions = {}): Storage {
  return new MemoryStorage(opts.historyWindowMs ?? DEFAULT_WINDOW_MS, opts.now ?? Date.now);
}

class MemoryStorage implements Storage {
  private rev = 0;
  private compacted = 0;
  private closed = false;
  /** Every key with a version inside the window, sorted (binary-searched by list). */
  private readonly keys: string[] = [];
  private readonly versions = new Map<string, Version[]>();
  /** log[i].rev === compacted + 1 + i: revisions are contiguous. */
  private log: LogEntry[] = [];
  private readonly waiters = new Set<() => void>();
  /** Recent answers of liveKeys(), most recent first. */
  private readonly liveMemo: { prefix: string; at: number; keys: readonly string[] }[] = [];

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  currentRevision(): Promise<number> {
    return this.guard(() => this.rev);
  }

  compactedRevision(): Promise<number> {
    return this.guard(() => {
      this.expire();
      return this.compacted;
    });
  }

  get(key: string, revision?: number): Promise<StoredValue | undefined> {
    return this.guard(() => this.read(key, this.readRevision(key, revision)));
  }

  list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return this.guard(() => {
      const at = this.readRevision(prefix, opts.revision);
      const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : Infinity;
      const from = opts.startKey !== undefined && opts.startKey > prefix ? opts.startKey : prefix;
      if (opts.predicate === undefined) {
        const live = this.liveKeys(prefix, at);
        const first = lowerBound(live, from);
        const end = Math.min(live.length, first + limit);
        const items = live.slice(first, end).map((key) => this.read(key, at)!);
        return { items, revision: at, more: end < live.length, remaining: live.length - end };
      }
      const items: StoredValue[] = [];
      let more = false;
      for (let i = lowerBound(this.keys, from); i < this.keys.length; i++) {
        const key = this.keys[i]!;
        if (!key.startsWith(prefix)) break;
        const kv = this.read(key, at);
        if (kv === undefined) continue;
        if (items.length >= limit) {
          more = true;
          break;
        }
        if (opts.predicate(kv)) items.push(kv);
      }
      return { items, revision: at, more, remaining: undefined };
    });
  }

  create(key: string, value: Uint8Array): Promise<StoredValue> {
    return this.guard(() => {
      const current = this.read(key, this.rev);
      if (current !== undefined) throw new StorageError('KeyExists', key, { current });
      const rev = this.rev + 1;
      const kv: StoredValue = { key, value, createRevision: rev, modRevision: rev };
      this.commit(key, { rev, createRevision: rev, value }, { type: 'put', kv, prev: undefined });
      return kv;
    });
  }

  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<StoredValue> {
    return this.guard(() => {
      const current = this.read(key, this.rev);
      if (current === undefined) throw new StorageError('NotFound', key);
      if (current.modRevision !== expectedModRevision) throw new StorageError('Conflict', key, { current });
      const rev = this.rev + 1;
      const kv: StoredValue = { key, value, createRevision: current.createRevision, modRevision: rev };
      this.commit(key, { rev, createRevision: current.createRevision, value }, { type: 'put', kv, prev: current });
      return kv;
    });
  }

  delete(key: string, expectedModRevision?: number): Promise<{ prev: StoredValue; revision: number }> {
    return this.guard(() => {
      const current = this.read(key, this.rev);
      if (current === undefined) throw new StorageError('NotFound', key);
      if (expectedModRevision !== undefined && current.modRevision !== expectedModRevision) throw new StorageError('Conflict', key, { current });
      const rev = this.rev + 1;
      this.commit(key, { rev, createRevision: current.createRevision, value: undefined }, { type: 'delete', key, prev: current, revision: rev });
      return { prev: current, revision: rev };
    });
  }

  watch(prefix: string, opts: WatchOptions): AsyncIterable<StorageEvent> {
    return { [Symbol.asyncIterator]: () => this.watchIterator(prefix, opts) };
  }

  compact(revision: number): Promise<void> {
    return this.guard(() => this.compactTo(Math.min(revision, this.rev)));
  }

  close(): Promise<void> {
    this.closed = true;
    this.wake();
    return Promise.resolve();
  }

  private async *watchIterator(prefix: string, opts: WatchOptions): AsyncGenerator<StorageEvent> {
    if (this.closed) throw new StorageError('Closed', prefix);
    this.expire();
    if (opts.afterRevision < this.compacted) throw new StorageError('Compacted', prefix, { revision: this.compacted });
    let next = opts.afterRevision + 1;
    const { signal } = opts;
    const interval = opts.progressIntervalMs !== undefined && opts.progressIntervalMs > 0 ? opts.progressIntervalMs : undefined;
    // Progress is due `interval` after the last thing this watch sent, whatever
    // woke it: writes under other prefixes must not starve an idle watch of it.
    let lastSent = performance.now();
    while (!signal.aborted && !this.closed) {
      while (next <= this.rev) {
        if (next <= this.compacted) throw new StorageError('Compacted', prefix, { revision: this.compacted });
        const entry = this.log[next - this.compacted - 1]!;
        next++;
        const key = entry.event.type === 'put' ? entry.event.kv.key : entry.event.key;
        if (!key.startsWith(prefix)) continue;
        yield entry.event;
        lastSent = performance.now();
        if (signal.aborted || this.closed) return;
      }
      if (interval !== undefined && performance.now() - lastSent >= interval) {
        yield { type: 'progress', revision: this.rev };
        lastSent = performance.now();
        if (signal.aborted || this.closed) return;
      }
      await this.waitForWrite(signal, interval === undefined ? undefined : Math.max(1, lastSent + interval - performance.now()));
    }
  }

  /** Resolves true on the next write (or close/abort), false when `idleMs` passes first. */
  private waitForWrite(signal: AbortSignal, idleMs: number | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (woke: boolean): void => {
        this.waiters.delete(onWrite);
        signal.removeEventListener('abort', onAbort);
        if (timer !== undefined) clearTimeout(timer);
        resolve(woke);
      };
      const onWrite = (): void => done(true);
      const onAbort = (): void => done(true);
      this.waiters.add(onWrite);
      signal.addEventListener('abort', onAbort, { once: true });
      if (idleMs !== undefined && idleMs > 0) timer = setTimeout(() => done(false), idleMs);
    });
  }

  private wake(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) w();
  }

  private commit(key: string, version: Version, event: LogEntry['event']): void {
    this.expire();
    this.rev = version.rev;
    let versions = this.versions.get(key);
    if (versions === undefined) {
      versions = [];
      this.versions.set(key, versions);
      this.keys.splice(lowerBound(this.keys, key), 0, key);
    }
    versions.push(version);
    this.pruneKey(key, versions);
    this.log.push({ rev: version.rev, at: this.now(), event });
    this.wake();
  }

  /** The value of `key` as of revision `at` (undefined when absent then). */
  private read(key: string, at: number): StoredValue | undefined {
    const versions = this.versions.get(key);
    if (versions === undefined) return undefined;
    for (let i = versions.length - 1; i >= 0; i--) {
      const v = versions[i]!;
      if (v.rev > at) continue;
      return v.value === undefined ? undefined : { key, value: v.value, createRevision: v.createRevision, modRevision: v.rev };
    }
    return undefined;
  }

  /**
   * The keys under `prefix` that have a value at revision `at`, sorted. The
   * state at a revision inside the window never changes (later writes get
   * later revisions; compaction only drops what no read at or above the
   * compacted revision sees), so the answer is kept for the next pages of the
   * same list: a page is then a slice, and remainingItemCount a subtraction.
   * A few lists are kept (clients paging concurrently), the least recent out.
   */
  private liveKeys(prefix: string, at: number): readonly string[] {
    const hit = this.liveMemo.findIndex((m) => m.prefix === prefix && m.at === at);
    if (hit >= 0) {
      const m = this.liveMemo.splice(hit, 1)[0]!;
      this.liveMemo.unshift(m);
      return m.keys;
    }
    const keys: string[] = [];
    for (let i = lowerBound(this.keys, prefix); i < this.keys.length; i++) {
      const key = this.keys[i]!;
      if (!key.startsWith(prefix)) break;
      if (this.exists(key, at)) keys.push(key);
    }
    this.liveMemo.unshift({ prefix, at, keys });
    this.liveMemo.length = Math.min(this.liveMemo.length, LIVE_MEMO_LISTS);
    return keys;
  }

  /** Whether `key` has a value as of revision `at` (read's answer without building it). */
  private exists(key: string, at: number): boolean {
    const versions = this.versions.get(key);
    if (versions === undefined) return false;
    for (let i = versions.length - 1; i >= 0; i--) {
      const v = versions[i]!;
      if (v.rev <= at) return v.value !== undefined;
    }
    return false;
  }

  private readRevision(key: string, revision: number | undefined): number {
    this.expire();
    if (revision === undefined || revision === 0) return this.rev;
    if (revision > this.rev) throw new StorageError('FutureRevision', key, { revision: this.rev });
    if (revision < this.compacted) throw new StorageError('Compacted', key, { revision: this.compacted });
    return revision;
  }

  /** Compacts away the log entries older than the window. */
  private expire(): void {
    const cutoff = this.now() - this.windowMs;
    let n = 0;
    while (n < this.log.length && this.log[n]!.at < cutoff) n++;
    if (n > 0) this.compactTo(this.log[n - 1]!.rev);
  }

  private compactTo(revision: number): void {
    if (revision <= this.compacted) return;
    const dropped = this.log.slice(0, revision - this.compacted);
    this.log = this.log.slice(revision - this.compacted);
    this.compacted = revision;
    const touched = new Set(dropped.map((e) => (e.event.type === 'put' ? e.event.kv.key : e.event.key)));
    for (const key of touched) {
      const versions = this.versions.get(key);
      if (versions !== undefined) this.pruneKey(key, versions);
    }
  }

  /** Keeps the newest version at or below the compacted revision (the base) and everything after; forgets keys deleted before it. */
  private pruneKey(key: string, versions: Version[]): void {
    let base = -1;
    for (let i = versions.length - 1; i >= 0; i--) {
      if (versions[i]!.rev <= this.compacted) {
        base = i;
        break;
      }
    }
    if (base > 0) versions.splice(0, base);
    if (versions.length === 1 && versions[0]!.value === undefined && versions[0]!.rev <= this.compacted) {
      this.versions.delete(key);
      this.keys.splice(lowerBound(this.keys, key), 1);
    }
  }

  private guard<T>(fn: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new StorageError('Closed', ''));
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

/** Index of the first element >= `key`. */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
