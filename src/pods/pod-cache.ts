// The pod cache (the kubelet's GetNewerThan): the latest relist snapshot, and
// the waits of syncs that need a view newer than their pod's previous sync.
// A sync must not act on a stale view: it could start a second copy of a
// container it just started. Rather than asking the runtime per pod, a sync
// waits for a relist begun after its previous sync; only before the first
// relist, or when none comes within RELIST_WAIT_MS (a stuck PLEG), does its
// caller read the runtime itself.
//
// Callers: the sync loop (update() after each relist, sourceChanged() on a
// source change, forget() when a pod's worker goes) and the pod workers
// (getNewerThan, which may block up to the wait). Single-threaded; no timer
// outlives a wait.
import { onAbort } from '../lifecycle/abort.js';
import { emptyObserved, type ObservedPod } from '../runtime-view/observed.js';
import { RELIST_PERIOD_MS } from '../pleg/index.js';

/**
 * How long a sync waits for a relist newer than its pod's last sync before it
 * reads the runtime itself: two relist periods, so only a stuck or failing PLEG
 * costs the per-pod reads.
 */
export const RELIST_WAIT_MS = 2 * RELIST_PERIOD_MS;

export interface PodCacheOptions {
  /** Asks the PLEG for a relist now (a source change must not wait out the relist period). */
  requestRelist?: () => void;
  waitMs?: number;
  /** Monotonic milliseconds (performance.now by default), the clock relists are stamped with. */
  now?: () => number;
}

export class PodCache {
  private snapshot: { pods: ReadonlyMap<string, ObservedPod>; startedAt: number } | undefined;
  private readonly wakers = new Set<() => void>();
  /** Pods whose sync is waiting for a relist, with how many waits (one per sync; more is harmless). */
  private readonly waiting = new Map<string, number>();
  /** Pods a source changed since their last wait: their next wait asks for a relist at once. */
  private readonly hurried = new Set<string>();
  private readonly now: () => number;

  constructor(private readonly opts: PodCacheOptions = {}) {
    this.now = opts.now ?? (() => performance.now());
  }

  /**
   * A relist begun at `startedAt` saw `pods`. Wakes the waits and returns the
   * pods that were waiting for it: a change the relist reports for them needs
   * no further sync, the waiting one sees it.
   */
  update(pods: ReadonlyMap<string, ObservedPod>, startedAt: number): ReadonlySet<string> {
    const waited = new Set(this.waiting.keys());
    this.snapshot = { pods, startedAt };
    for (const wake of [...this.wakers]) wake();
    return waited;
  }

  /** A source changed the pod: a sync of it waiting (or about to wait) for a relist asks for one now. */
  sourceChanged(uid: string): void {
    this.hurried.add(uid);
    if (this.waiting.has(uid)) this.opts.requestRelist?.();
  }

  /** The pod's worker is gone: nothing of it is kept. */
  forget(uid: string): void {
    this.hurried.delete(uid);
  }

  /**
   * The pod as a relist begun after `since` (this clock) saw it, waiting for
   * one if needed; undefined before the first relist, when none comes within
   * the wait, or when `signal` aborts: the caller then reads the runtime.
   * May block up to RELIST_WAIT_MS.
   */
  async getNewerThan(uid: string, since: number, signal: AbortSignal): Promise<ObservedPod | undefined> {
    const hurried = this.hurried.delete(uid);
    if (this.snapshot === undefined) return undefined;
    if (hurried && this.snapshot.startedAt <= since) this.opts.requestRelist?.();
    const deadline = this.now() + (this.opts.waitMs ?? RELIST_WAIT_MS);
    this.waiting.set(uid, (this.waiting.get(uid) ?? 0) + 1);
    try {
      // A relist already under way when the sync finished may not have seen all it did: wait for a later one.
      while (this.snapshot.startedAt <= since && !signal.aborted) {
        const left = deadline - this.now();
        if (left <= 0) break;
        await this.nextRelist(left, signal);
      }
    } finally {
      const n = this.waiting.get(uid)! - 1;
      if (n === 0) this.waiting.delete(uid);
      else this.waiting.set(uid, n);
    }
    const snap = this.snapshot;
    return snap.startedAt > since ? (snap.pods.get(uid) ?? emptyObserved(uid)) : undefined;
  }

  /** Resolves at the next relist, after `ms`, or when `signal` aborts. */
  private nextRelist(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let detach = (): void => {};
      const done = (): void => {
        clearTimeout(timer);
        detach();
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
      detach = onAbort(signal, done);
    });
  }
}
