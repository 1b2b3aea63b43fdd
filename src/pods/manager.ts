// The sync loop's owner (the kubelet's syncLoop + podWorkers, simplified):
// holds the desired pods, runs one worker per pod (serialized per pod,
// concurrent across pods; a newer desired state replaces a pending one),
// admits pods against the pod cap, tears down pods no source wants once every
// source has reported, and resyncs every --sync-frequency.
//
// Callers: the sources' merger (applyUpdates), the PLEG (onRelist). Neither
// blocks: work is scheduled and done by the workers.
import type { Pod } from '../api/pod-types.js';
import { podRef } from '../api/pod-types.js';
import type { RuntimeService } from '../cri/types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { onAbort, waitForAbort } from '../lifecycle/abort.js';
import type { AgentLogger } from '../log/index.js';
import type { PodUpdate } from '../sources/merger.js';
import { computePodStatus } from '../status/compute.js';
import type { StatusStore } from '../status/store.js';
import { changesRuntime } from './actions.js';
import { observePod } from './observe.js';
import { emptyObserved, type ObservedPod } from './observed.js';
import { syncPod, teardownPod, type SyncDeps } from './sync-pod.js';

/** The kubelet's retry after a failed pod sync. */
export const POD_ERROR_BACKOFF_MS = 10_000;

/**
 * How long a sync waits for a relist newer than its pod's last sync before it
 * reads the runtime itself: two relist periods, so only a stuck or failing PLEG
 * costs the per-pod reads.
 */
export const RELIST_WAIT_MS = 2_000;

export interface PodManagerOptions {
  runtime: RuntimeService;
  sync: SyncDeps;
  status: StatusStore;
  /** `containerd`: prefix of container IDs in statuses. */
  runtimeName: () => string;
  hostIP: string;
  syncFrequencyMs: number;
  /** Effective pod capacity (--max-pods, capped by --pods-per-core). */
  maxPods: number;
  allSourcesSeen: () => boolean;
  /**
   * Asks the PLEG for a relist now. A sync for a source change (a pod added,
   * edited or removed) that would otherwise wait up to a relist period for a
   * fresh view asks for one: a deleted manifest's teardown starts at once.
   */
  requestRelist?: () => void;
  /**
   * Called when the last busy pod worker goes idle, with the number of syncs
   * since the previous call that changed the runtime (started, stopped or
   * removed something); syncs that found nothing to do do not count.
   */
  onSettled?: (changes: number) => void;
  log: AgentLogger;
  now?: () => Date;
  /** The retry after a failed sync; POD_ERROR_BACKOFF_MS by default. */
  errorBackoffMs?: number;
}

/**
 * When to sync the pod again without a change to prompt it. Like the kubelet's
 * pod worker, a sync that failed (an error, or a container left waiting on a
 * failure: image, create or start) is retried after the error back-off; a
 * crash-looping container at the end of its back-off (if sooner).
 */
export function retryDelay(result: { error?: Error; waiting: ReadonlyMap<string, { reason: string }>; retryAfterMs?: number }, errorBackoffMs: number): number | undefined {
  const failed = result.error !== undefined || [...result.waiting.values()].some((w) => w.reason !== 'CrashLoopBackOff');
  const backoffEnds = result.retryAfterMs === undefined ? undefined : result.retryAfterMs + 50;
  if (!failed) return backoffEnds;
  return Math.min(errorBackoffMs, backoffEnds ?? Infinity);
}

interface Worker {
  busy: boolean;
  /** performance.now() when this pod's last sync finished: a relist begun later has seen all it did. */
  syncedAt: number;
  again: boolean;
  /** Waiting for the next relist: a relist reporting this pod changed needs no further sync. */
  awaitingRelist: boolean;
  /** A source changed the pod since its last sync began: its sync may ask for an early relist. */
  sourceChanged: boolean;
  timer?: NodeJS.Timeout;
  timerAt?: number;
  done?: Promise<void>;
}

export class PodManager {
  private readonly desired = new Map<string, Pod>();
  /** Specs of pods removed from every source, kept until their teardown finished (for the grace period). */
  private readonly removed = new Map<string, Pod>();
  /** Pods rejected at admission, by UID: they never run; an edit is admitted afresh. */
  private readonly rejected = new Map<string, Pod>();
  private readonly workers = new Map<string, Worker>();
  private readonly waiting = new Map<string, Map<string, { reason: string; message: string }>>();
  private signal: AbortSignal | undefined;
  private orphansChecked = false;
  /** The latest relist: the runtime state of every managed pod, and when that relist began. */
  private snapshot: { pods: ReadonlyMap<string, ObservedPod>; startedAt: number } | undefined;
  private readonly relistWaiters = new Set<() => void>();
  private readonly now: () => Date;
  private busyWorkers = 0;
  private changesSinceSettled = 0;

  private readonly errorBackoffMs: number;

  constructor(private readonly opts: PodManagerOptions) {
    this.now = opts.now ?? (() => new Date());
    this.errorBackoffMs = opts.errorBackoffMs ?? POD_ERROR_BACKOFF_MS;
  }

  /** Source updates from the merger. */
  applyUpdates(updates: readonly PodUpdate[]): void {
    for (const u of updates) {
      const uid = u.pod.metadata.uid;
      if (u.op === 'REMOVE') {
        this.desired.delete(uid);
        if (this.rejected.delete(uid)) {
          // It never ran here: nothing to stop. (What a previous agent left running
          // for it is torn down as an orphan, once every source has reported.)
          this.opts.status.delete(uid);
          this.opts.log.info('Rejected pod removed from its source; it never ran', { pod: podRef(u.pod), podUID: uid, source: u.source });
          continue;
        }
        this.removed.set(uid, u.pod);
        this.opts.log.info('Pod removed from its source; stopping it', { pod: podRef(u.pod), podUID: uid, source: u.source });
      } else {
        // The kubelet gives an edited static pod a new UID and admits it as a new
        // pod; here the UID survives the edit (static-pod.ts), so an edit of a
        // rejected pod is admitted again, as is an ADD whatever came before.
        if ((u.op === 'ADD' || this.rejected.has(uid)) && !this.admit(u.pod)) continue;
        this.desired.set(uid, u.pod);
        this.removed.delete(uid);
        this.opts.log.info(u.op === 'ADD' ? 'Pod added' : 'Pod changed', { pod: podRef(u.pod), podUID: uid, source: u.source });
      }
      const w = this.worker(uid);
      w.sourceChanged = true;
      // A sync already waiting for a relist would otherwise wait out the period.
      if (w.awaitingRelist) this.opts.requestRelist?.();
      this.kick(uid);
    }
  }

  /** Desired pods that have not finished: the ones admission counts, as the kubelet's active pods. */
  private activePods(): number {
    let n = 0;
    for (const uid of this.desired.keys()) {
      const phase = this.opts.status.get(uid)?.status.phase;
      if (phase !== 'Succeeded' && phase !== 'Failed') n++;
    }
    return n;
  }

  /** The kubelet rejects pods beyond the node's pod capacity at admission: they never start. */
  private admit(pod: Pod): boolean {
    const uid = pod.metadata.uid;
    const used = this.activePods();
    if (used < this.opts.maxPods) {
      // An earlier rejection's Failed status is stale now (it would also keep the pod out of activePods()).
      if (this.rejected.delete(uid)) this.opts.status.delete(uid);
      return true;
    }
    this.rejected.set(uid, pod);
    const message = `Node didn't have enough resource: pods, requested: 1, used: ${used}, capacity: ${this.opts.maxPods}`;
    this.opts.log.warn('Pod rejected at admission', { pod: podRef(pod), podUID: uid, reason: 'OutOfpods', message });
    this.opts.status.set(uid, { pod, status: { phase: 'Failed', reason: 'OutOfpods', message, conditions: [], containerStatuses: [] } });
    return false;
  }

  /** After each relist: pods whose runtime state changed get a sync; once all sources reported, orphans go. */
  onRelist(changed: ReadonlySet<string>, snapshot: ReadonlyMap<string, ObservedPod>, startedAt: number): void {
    this.snapshot = { pods: snapshot, startedAt };
    for (const wake of this.relistWaiters) wake();
    for (const uid of changed) if (this.workers.get(uid)?.awaitingRelist !== true) this.kick(uid);
    if (!this.orphansChecked && this.opts.allSourcesSeen()) {
      this.orphansChecked = true;
      for (const uid of snapshot.keys()) if (!this.desired.has(uid)) this.kick(uid);
    }
  }

  private worker(uid: string): Worker {
    let w = this.workers.get(uid);
    if (!w) {
      w = { busy: false, again: false, awaitingRelist: false, sourceChanged: false, syncedAt: -Infinity };
      this.workers.set(uid, w);
    }
    return w;
  }

  /** Schedules a sync of `uid` now, or after `delayMs` (keeping an earlier scheduled one). */
  kick(uid: string, delayMs = 0): void {
    if (this.signal?.aborted) return;
    const w = this.worker(uid);
    if (delayMs > 0) {
      const at = Date.now() + delayMs;
      if (w.timer && (w.timerAt ?? Infinity) <= at) return;
      clearTimeout(w.timer);
      w.timerAt = at;
      w.timer = setTimeout(() => {
        w.timer = undefined;
        this.kick(uid);
      }, delayMs);
      return;
    }
    if (w.busy) {
      w.again = true;
      return;
    }
    if (!this.signal) return; // not started yet: run() kicks everything desired
    w.busy = true;
    this.busyWorkers++;
    w.done = this.work(uid, w);
  }

  /** Whether a pod worker is syncing (or waiting for the relist its sync needs). */
  busy(): boolean {
    return this.busyWorkers > 0;
  }

  private async work(uid: string, w: Worker): Promise<void> {
    try {
      do {
        w.again = false;
        if (await this.syncOnce(uid)) this.changesSinceSettled++;
        w.syncedAt = performance.now();
      } while (w.again && !this.signal!.aborted);
    } finally {
      w.busy = false;
      if (!w.timer && !this.desired.has(uid) && !this.removed.has(uid)) this.workers.delete(uid);
      if (--this.busyWorkers === 0) {
        const changes = this.changesSinceSettled;
        this.changesSinceSettled = 0;
        this.opts.onSettled?.(changes);
      }
    }
  }

  /**
   * The pod's runtime state, no older than its last sync. A sync must not act
   * on a stale view: it could start a second copy of a container it just
   * started. Like the kubelet's pod cache (GetNewerThan), this waits for a
   * relist begun after the last sync instead of asking the runtime per pod;
   * the runtime is read directly only before the first relist and when none
   * comes within RELIST_WAIT_MS.
   */
  private async observe(uid: string, w: Worker | undefined, signal: AbortSignal): Promise<ObservedPod> {
    const syncedAt = w?.syncedAt ?? -Infinity;
    const sourceChanged = w?.sourceChanged === true;
    if (w) w.sourceChanged = false;
    if (this.snapshot !== undefined && w !== undefined) {
      if (sourceChanged && this.snapshot.startedAt <= syncedAt) this.opts.requestRelist?.();
      // A relist already under way when the sync finished may not have seen all it did: wait for a later one.
      const deadline = performance.now() + RELIST_WAIT_MS;
      w.awaitingRelist = true;
      try {
        while (this.snapshot.startedAt <= syncedAt && !signal.aborted) {
          const left = deadline - performance.now();
          if (left <= 0) break;
          await this.nextRelist(left, signal);
        }
      } finally {
        w.awaitingRelist = false;
      }
      const snap = this.snapshot;
      if (snap.startedAt > syncedAt) return snap.pods.get(uid) ?? emptyObserved(uid);
    }
    return observePod(this.opts.runtime, uid, signal);
  }

  /** Resolves at the next relist, after `ms`, or when `signal` aborts. */
  private nextRelist(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let detach = (): void => {};
      const done = (): void => {
        clearTimeout(timer);
        detach();
        this.relistWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.relistWaiters.add(done);
      detach = onAbort(signal, done);
    });
  }

  /** One sync of the pod; true when it changed the runtime. */
  private async syncOnce(uid: string): Promise<boolean> {
    const signal = this.signal!;
    try {
      const observed = await this.observe(uid, this.workers.get(uid), signal);
      // Read after the wait for a relist: the sources may have changed the pod meanwhile.
      const pod = this.desired.get(uid);
      if (pod) {
        const result = await syncPod(pod, observed, this.opts.sync, signal);
        this.waiting.set(uid, result.waiting);
        // Published from the state seen before acting, as the kubelet does: the next
        // relist sees what the sync changed and brings the status up to date.
        this.publish(pod, observed, result.waiting);
        if (result.error) this.opts.log.error('Error syncing pod, skipping', { pod: podRef(pod), podUID: uid, err: result.error });
        const retry = retryDelay(result, this.errorBackoffMs);
        if (retry !== undefined) this.kick(uid, retry);
        return changesRuntime(result.actions);
      }
      if (observed.sandboxes.length === 0 && observed.containers.length === 0) {
        this.finishRemoval(uid);
        return false;
      }
      // Before every source has reported, a pod unknown to them may still come back: keep it.
      if (!this.opts.allSourcesSeen()) return false;
      const removed = this.removed.get(uid);
      const spec = removed ?? this.rejected.get(uid);
      const gracePeriod = spec ? spec.spec.terminationGracePeriodSeconds : graceFromAnnotations(observed);
      const why = removed ? 'Tearing down pod' : spec ? 'Tearing down a pod rejected at admission' : 'Tearing down a pod no source declares';
      this.opts.log.info(why, { pod: `${observed.namespace}/${observed.name}`, podUID: uid, gracePeriod });
      await teardownPod(observed, gracePeriod, this.opts.sync, signal);
      this.finishRemoval(uid);
      this.opts.log.info('Pod torn down', { pod: `${observed.namespace}/${observed.name}`, podUID: uid });
      return true;
    } catch (e) {
      if (signal.aborted) return false;
      this.opts.log.error('Error syncing pod, skipping', { podUID: uid, err: e });
      this.kick(uid, this.errorBackoffMs);
      return false;
    }
  }

  private finishRemoval(uid: string): void {
    this.removed.delete(uid);
    this.waiting.delete(uid);
    // A rejected pod keeps its rejection as its status while its source declares it.
    if (!this.desired.has(uid) && !this.rejected.has(uid)) this.opts.status.delete(uid);
  }

  private publish(pod: Pod, observed: ObservedPod, waiting: ReadonlyMap<string, { reason: string; message: string }>): void {
    const uid = pod.metadata.uid;
    const previous = this.opts.status.get(uid)?.status;
    const status = computePodStatus({ pod, observed, waiting, previous, runtimeName: this.opts.runtimeName(), hostIP: this.opts.hostIP, now: this.now() });
    if (previous?.phase !== status.phase) this.opts.log.info('Pod phase changed', { pod: podRef(pod), podUID: uid, from: previous?.phase ?? 'none', to: status.phase });
    // Why a container is not running is what an operator looks for first (the kubelet emits events).
    for (const cs of [...(status.initContainerStatuses ?? []), ...status.containerStatuses]) {
      const was = [...(previous?.initContainerStatuses ?? []), ...(previous?.containerStatuses ?? [])].find((p) => p.name === cs.name)?.state.waiting?.reason;
      const w = cs.state.waiting;
      if (w && w.reason !== 'ContainerCreating' && w.reason !== was) {
        this.opts.log.warn('Container is waiting', { pod: podRef(pod), podUID: uid, container: cs.name, reason: w.reason, message: w.message ?? '' });
      }
    }
    this.opts.status.set(uid, { pod, status });
  }

  desiredPods(): Pod[] {
    return [...this.desired.values()];
  }

  /** Runs the resync tick until `signal` aborts, then waits for the workers to finish their current step. */
  component(): Component {
    return defineComponent('pod-manager', async (signal, markReady) => {
      this.signal = signal;
      for (const uid of this.desired.keys()) this.kick(uid);
      for (const uid of this.removed.keys()) this.kick(uid);
      markReady();
      const tick = setInterval(() => {
        for (const uid of this.desired.keys()) this.kick(uid);
        // Back-off keys carry the container's spec hash: every edit leaves one behind.
        this.opts.sync.crashBackoff.gc();
        this.opts.sync.images.gc();
      }, this.opts.syncFrequencyMs);
      try {
        await waitForAbort(signal);
      } finally {
        clearInterval(tick);
        for (const w of this.workers.values()) clearTimeout(w.timer);
        await Promise.all([...this.workers.values()].map((w) => w.done));
      }
    });
  }
}

/** The grace period recorded on the containers of a pod whose spec is unknown (e.g. after a restart). */
function graceFromAnnotations(observed: ObservedPod): number {
  for (const c of observed.containers) if (c.gracePeriodSeconds !== undefined) return c.gracePeriodSeconds;
  return 30;
}
