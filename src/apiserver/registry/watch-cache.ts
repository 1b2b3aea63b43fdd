// The watch fan-out of one resource (kube-apiserver's cacher, reduced to its
// watch half): ONE storage watch per (store, resource prefix) while anyone
// watches that resource, whose events every watcher of the resource receives
// as the same objects (so they are decoded and encoded once, not once per
// watcher), with a bounded history so a watcher whose start is a little
// behind still joins it. Called by store-watch.ts only.
//
// Contract of subscribe(): the iterable yields the storage events under the
// watcher's prefix with revision > afterRevision, in order, and 'progress'
// events when the watcher asked for them and has been idle that long; it
// returns undefined when the history no longer covers afterRevision (the
// caller then watches storage directly, which answers 'Compacted' when
// storage no longer has it either: the 410 rules stay storage's). The
// iterable ends when the watcher's signal aborts, when the watcher falls
// `maxQueue` events behind (it is ended, not waited for, so one slow client
// never holds back the others; it resumes from the last version it got, as
// upstream's cacher terminates an unresponsive watcher), and throws what the
// shared storage watch throws ('Compacted', 'Unavailable', 'Closed').
// The shared storage watch stops when its last watcher leaves: nothing runs
// after the last watcher and no timer outlives a watcher.
import type { Storage, StorageEvent } from '../storage/interface.js';

type Change = Exclude<StorageEvent, { type: 'progress' }>;

export interface WatchCacheLimits {
  /** Changes kept for late joiners (default 4096). */
  history: number;
  /** Changes a watcher may have pending before it is ended (default 1024). */
  maxQueue: number;
}

export interface Subscription {
  /** Deliver changes with revision > afterRevision. */
  afterRevision: number;
  /** Only changes whose key starts with this (the namespace or object narrowing of the resource prefix). */
  prefix: string;
  signal: AbortSignal;
  /** Send 'progress' after this long without sending anything (undefined: never). */
  progressIntervalMs?: number;
}

const DEFAULT_LIMITS: WatchCacheLimits = { history: 4096, maxQueue: 1024 };

export const revisionOf = (ev: StorageEvent): number => (ev.type === 'put' ? ev.kv.modRevision : ev.revision);
const keyOf = (ev: Change): string => (ev.type === 'put' ? ev.kv.key : ev.key);

interface Watcher {
  readonly sub: Subscription;
  queue: Change[];
  head: number;
  /** Ended by the cache: after the queue drains, return (no error) or throw. */
  ended: boolean;
  error: unknown;
  wake: (() => void) | undefined;
}

class WatchCache {
  private readonly watchers = new Set<Watcher>();
  private readonly stop = new AbortController();
  /** history[i] are the newest changes, oldest first; every change in (covered, rev] is there. */
  private history: Change[] = [];
  private covered: number;
  /** The newest revision the storage watch reported (a change or progress). */
  rev: number;

  constructor(
    private readonly storage: Storage,
    private readonly resourcePrefix: string,
    start: number,
    private readonly limits: WatchCacheLimits,
    private readonly onEnd: (c: WatchCache) => void,
  ) {
    this.covered = start;
    this.rev = start;
  }

  /** Starts the one storage watch; never rejects (failures end the watchers). */
  async run(progressIntervalMs: number): Promise<void> {
    try {
      for await (const ev of this.storage.watch(this.resourcePrefix, { afterRevision: this.rev, signal: this.stop.signal, progressIntervalMs })) {
        if (ev.type === 'progress') {
          this.rev = Math.max(this.rev, ev.revision);
          continue;
        }
        this.dispatch(ev);
      }
      this.finish(undefined);
    } catch (e) {
      this.finish(e);
    }
  }

  covers(afterRevision: number): boolean {
    return !this.stop.signal.aborted && afterRevision >= this.covered;
  }

  /** Drops the history up to `revision`: a watcher starting before it is no longer served from here. */
  forget(revision: number): void {
    if (revision <= this.covered) return;
    this.covered = revision;
    this.history = this.history.filter((ev) => revisionOf(ev) > revision);
  }

  /** Adds a watcher and queues what the history holds after its start. */
  add(sub: Subscription): Watcher {
    const w: Watcher = { sub, queue: [], head: 0, ended: false, error: undefined, wake: undefined };
    for (const ev of this.history) if (revisionOf(ev) > sub.afterRevision && keyOf(ev).startsWith(sub.prefix)) w.queue.push(ev);
    this.watchers.add(w);
    return w;
  }

  remove(w: Watcher): void {
    if (!this.watchers.delete(w) || this.watchers.size > 0) return;
    // The last watcher left: stop the storage watch now (a later watcher starts a new one).
    this.stop.abort();
    this.onEnd(this);
  }

  private dispatch(ev: Change): void {
    const rev = revisionOf(ev);
    this.rev = Math.max(this.rev, rev);
    this.history.push(ev);
    if (this.history.length > this.limits.history * 2) {
      const drop = this.history.length - this.limits.history;
      this.covered = revisionOf(this.history[drop - 1]!);
      this.history = this.history.slice(drop);
    }
    const key = keyOf(ev);
    for (const w of this.watchers) {
      if (w.ended || rev <= w.sub.afterRevision || !key.startsWith(w.sub.prefix)) continue;
      if (w.queue.length - w.head >= this.limits.maxQueue) {
        // Too far behind: end it (resumable from what it got) instead of buffering without bound.
        end(w, undefined, true);
        continue;
      }
      w.queue.push(ev);
      wakeUp(w);
    }
  }

  private finish(error: unknown): void {
    this.stop.abort();
    this.onEnd(this);
    for (const w of this.watchers) end(w, error, false);
  }
}

function wakeUp(w: Watcher): void {
  const f = w.wake;
  w.wake = undefined;
  f?.();
}

function end(w: Watcher, error: unknown, dropQueue: boolean): void {
  w.ended = true;
  w.error = error;
  if (dropQueue) {
    w.queue = [];
    w.head = 0;
  }
  wakeUp(w);
}

/** Resolves true when woken, false when `idleMs` passed first. */
function sleepUntilWoken(w: Watcher, idleMs: number | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    w.wake = () => {
      if (timer !== undefined) clearTimeout(timer);
      resolve(true);
    };
    if (idleMs !== undefined) {
      timer = setTimeout(() => {
        w.wake = undefined;
        resolve(false);
      }, Math.max(1, idleMs));
    }
  });
}

async function* deliver(cache: WatchCache, w: Watcher): AsyncGenerator<StorageEvent, void, undefined> {
  const { sub } = w;
  // A flag, not signal.aborted per event: the abort listener sets it.
  let aborted = sub.signal.aborted;
  const onAbort = (): void => {
    aborted = true;
    end(w, undefined, true);
  };
  sub.signal.addEventListener('abort', onAbort, { once: true });
  let lastSent = performance.now();
  try {
    for (;;) {
      if (aborted) return;
      if (w.head < w.queue.length) {
        const ev = w.queue[w.head]!;
        w.head++;
        if (w.head === w.queue.length) {
          w.queue = [];
          w.head = 0;
        }
        lastSent = performance.now();
        yield ev;
        continue;
      }
      if (w.ended) {
        if (w.error !== undefined) throw w.error;
        return;
      }
      const interval = sub.progressIntervalMs;
      const woke = await sleepUntilWoken(w, interval === undefined ? undefined : lastSent + interval - performance.now());
      if (!woke && !w.ended && !aborted) {
        lastSent = performance.now();
        yield { type: 'progress', revision: Math.max(cache.rev, sub.afterRevision) };
      }
    }
  } finally {
    sub.signal.removeEventListener('abort', onAbort);
    wakeUp(w);
    cache.remove(w);
  }
}

/** The caches of each storage, by resource prefix. */
const caches = new WeakMap<Storage, Map<string, WatchCache>>();

/**
 * Makes every shared watch of `storage` forget its history up to `revision`,
 * so watches from before it go to storage and get its 410. For the test-only
 * compact fault, whose promise is that history up to the current revision is
 * gone; regular compaction leaves the bounded history alone, as upstream's
 * cacher keeps its own window.
 */
export function forgetHistory(storage: Storage, revision: number): void {
  for (const cache of caches.get(storage)?.values() ?? []) cache.forget(revision);
}

/**
 * Joins (or starts) the shared watch of `resourcePrefix` on `storage`.
 * `progressIntervalMs` is how often the shared storage watch asks for
 * progress when the resource is idle (it keeps bookmark revisions fresh).
 */
export function subscribe(
  storage: Storage,
  resourcePrefix: string,
  sub: Subscription,
  opts: { progressIntervalMs: number; limits?: Partial<WatchCacheLimits> },
): AsyncIterable<StorageEvent> | undefined {
  let byPrefix = caches.get(storage);
  if (byPrefix === undefined) caches.set(storage, (byPrefix = new Map()));
  let cache = byPrefix.get(resourcePrefix);
  if (cache === undefined || !cache.covers(sub.afterRevision)) {
    if (cache !== undefined) return undefined;
    const map = byPrefix;
    cache = new WatchCache(storage, resourcePrefix, sub.afterRevision, { ...DEFAULT_LIMITS, ...opts.limits }, (c) => {
      if (map.get(resourcePrefix) === c) map.delete(resourcePrefix);
    });
    byPrefix.set(resourcePrefix, cache);
    void cache.run(opts.progressIntervalMs);
  }
  const w = cache.add(sub);
  const c = cache;
  return { [Symbol.asyncIterator]: () => deliver(c, w) };
}
