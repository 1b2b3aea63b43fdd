// The sync loop (the kubelet's syncLoop around syncLoopIteration): every input
// becomes an event on one queue, handle() (sync-step.ts) decides, and this
// file carries out its commands: it owns the timers (resync tick, retries),
// the pod workers' runs and their AbortControllers, and the effects on the
// status store and the pod cache.
//
// Callers: the sources' merger (applyUpdates) and the PLEG (onRelist), from
// the composition root. Neither blocks: events are handled at once, in order,
// and the work they start runs in the background. Work runs only between
// run(signal) and the abort of `signal`; run() resolves once every pod's work
// in flight has ended.
import type { Pod } from '../pod-model/pod-types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { onAbort, waitForAbort } from '../lifecycle/abort.js';
import type { AgentLogger } from '../log/index.js';
import type { ObservedPod } from '../runtime-view/observed.js';
import type { PodUpdate } from '../sources/merger.js';
import { publishPodStatus } from '../status/publish.js';
import { podRef } from '../events/index.js';
import type { StatusStore } from '../status/store.js';
import { isFinished } from './admission.js';
import { podRefLabels } from './metrics-sink.js';
import { PodCache } from './pod-cache.js';
import { runSync, runTeardown, type WorkerDeps } from './pod-worker.js';
import { desiredPods, handle, initialState, POD_ERROR_BACKOFF_MS, type Command, type SyncEvent, type WorkOutcome } from './sync-step.js';
import type { SyncDeps } from './sync-pod.js';
import type { SysctlAllowlist } from './sysctls.js';

export interface PodManagerOptions {
  /** What a sync needs; its runtime, hostIP and log are the manager's too. */
  sync: SyncDeps;
  status: StatusStore;
  /** `containerd`: prefix of container IDs in statuses. */
  runtimeName: () => string;
  syncFrequencyMs: number;
  /** Effective pod capacity (--max-pods, capped by --pods-per-core). */
  maxPods: number;
  /** The node's sysctl allowlist (createSysctlAllowlist); absent: sysctls are not checked at admission. */
  sysctls?: SysctlAllowlist;
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
  now?: () => Date;
  /** The retry after a failed sync; POD_ERROR_BACKOFF_MS by default. */
  errorBackoffMs?: number;
  /** Observes every event handled and the commands it gave (tests wait on these; never blocks). */
  onStep?: (event: SyncEvent, commands: readonly Command[]) => void;
}

export interface PodManager extends Component {
  /** Source updates from the merger. */
  applyUpdates(updates: readonly PodUpdate[]): void;
  /** After each relist: the pods whose runtime state changed, the runtime state of every pod, and when the relist began. */
  onRelist(changed: ReadonlySet<string>, snapshot: ReadonlyMap<string, ObservedPod>, startedAt: number): void;
  /** Pods the sources want (after admission). */
  desiredPods(): Pod[];
  /** Whether a pod worker is syncing (or waiting for the relist its sync needs). */
  busy(): boolean;
  /** A probe verdict of one of the pod's containers changed (the prober calls this; never blocks). */
  probeChanged(uid: string): void;
  /**
   * Whether the pod may still have containers here (the kubelet's
   * CouldHaveRunningContainers): the loop still keeps it (declared, being
   * torn down, or waiting to be). The pod status sync deletes a pod from the
   * API only once this is false. Never blocks.
   */
  couldHaveRunningContainers(uid: string): boolean;
}

/** Why a pod's work in flight was aborted, other than the agent stopping. */
export class PodRemovedError extends Error {
  constructor(readonly podUID: string) {
    super(`pod ${podUID} was removed from its sources`);
    this.name = 'PodRemovedError';
  }
}

interface Running {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

export function createPodManager(opts: PodManagerOptions): PodManager {
  const log: AgentLogger = opts.sync.log;
  const now = opts.now ?? (() => new Date());
  const state = initialState({ maxPods: opts.maxPods, ...(opts.sysctls ? { sysctls: opts.sysctls } : {}), errorBackoffMs: opts.errorBackoffMs ?? POD_ERROR_BACKOFF_MS });
  const cache = new PodCache(opts.requestRelist ? { requestRelist: opts.requestRelist } : {});
  const running = new Map<string, Running>();
  const retries = new Map<string, { timer: NodeJS.Timeout; at: number }>();
  /** performance.now() when each pod's last work ended: a relist begun later has seen all it did. */
  const endedAt = new Map<string, number>();
  const queue: SyncEvent[] = [];
  let draining = false;
  let signal: AbortSignal | undefined;

  const worker: WorkerDeps = {
    sync: opts.sync,
    cache,
    desired: (uid) => state.pods.get(uid)?.desired,
    publish: (pod, observed, waiting) => {
      publishPodStatus(opts.status, log, { pod, observed, waiting, runtimeName: opts.runtimeName(), hostIP: opts.sync.hostIP, now: now(), ...(opts.sync.probes ? { probes: opts.sync.probes } : {}), sidecars: opts.sync.sidecars === true });
      // First reported Running ends the pod's start record (the kubelet observes pod_start_duration_seconds there too).
      if (metrics && opts.status.get(pod.metadata.uid)?.status.phase === 'Running') metrics.podStartPhase(podRefLabels(pod), 'running');
    },
    log,
  };
  const metrics = opts.sync.metrics;
  /** performance.now() when a source first declared each pod whose first worker has not started yet (pod_worker_start_duration_seconds). */
  const firstSeen = new Map<string, number>();

  // A step that throws is a bug (an illegal worker transition): the loop's
  // state can no longer be trusted, so the component fails and the agent
  // stops (to be restarted by its supervisor) rather than leave pods stuck.
  let fail: (err: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => {});

  /** Queues `event` and, unless already handling one, handles the queue in order. Never throws to the poster. */
  function post(event: SyncEvent): void {
    queue.push(event);
    if (draining) return;
    draining = true;
    try {
      for (let e = queue.shift(); e !== undefined; e = queue.shift()) {
        const commands = handle(state, e);
        for (const c of commands) execute(c);
        opts.onStep?.(e, commands);
      }
    } catch (err) {
      queue.length = 0;
      log.error('Sync loop failed', { err });
      fail(err);
    } finally {
      draining = false;
    }
  }

  function start(uid: string, work: (req: { uid: string; since: number; signal: AbortSignal }) => Promise<WorkOutcome>, operation: 'sync' | 'kill'): void {
    const controller = new AbortController();
    const startedAt = performance.now();
    // A pod's first work is its create (the kubelet's operation_type), every later one a sync.
    const op = operation === 'sync' && !endedAt.has(uid) ? 'create' : operation;
    const seenAt = firstSeen.get(uid);
    if (seenAt !== undefined) {
      firstSeen.delete(uid);
      metrics?.podWorkerStart((startedAt - seenAt) / 1000);
    }
    // The agent stopping cancels every pod's work; the link goes with the work.
    const detach = onAbort(signal!, (reason) => controller.abort(reason));
    const done = work({ uid, since: endedAt.get(uid) ?? -Infinity, signal: controller.signal })
      .catch((err: unknown): WorkOutcome => {
        // runSync/runTeardown never reject: this is a bug, and its cause must not be lost.
        log.error('Pod work failed unexpectedly', { podUID: uid, err });
        return { kind: 'failed' };
      })
      .then((outcome) => {
        detach();
        if (outcome.kind !== 'cancelled') metrics?.podWorker(op, (performance.now() - startedAt) / 1000);
        running.delete(uid);
        endedAt.set(uid, performance.now());
        post({ kind: 'done', uid, outcome });
      });
    running.set(uid, { controller, done });
  }

  function execute(c: Command): void {
    switch (c.kind) {
      case 'sync': {
        const pod = state.pods.get(c.uid)?.desired;
        if (metrics && pod) metrics.podStartPhase(podRefLabels(pod), 'admitted');
        return start(c.uid, (req) => runSync(worker, req), 'sync');
      }
      case 'teardown':
        return start(c.uid, (req) => runTeardown(worker, req, c.why, c.gracePeriod), 'kill');
      case 'cancel':
        return running.get(c.uid)?.controller.abort(new PodRemovedError(c.uid));
      case 'set-status':
        return opts.status.set(c.pod.metadata.uid, { pod: c.pod, status: c.status });
      case 'drop-status':
        return opts.status.delete(c.uid);
      case 'retry':
        return scheduleRetry(c.uid, c.delayMs);
      case 'hurry-relist':
        return cache.sourceChanged(c.uid);
      case 'forget':
        // The cache forgets the pod too: declared again, its first sync reads the runtime itself.
        cache.forget(c.uid);
        endedAt.delete(c.uid);
        firstSeen.delete(c.uid);
        metrics?.podGone(c.uid);
        clearTimeout(retries.get(c.uid)?.timer);
        retries.delete(c.uid);
        return;
      case 'settled':
        return opts.onSettled?.(c.changes);
      case 'housekeeping':
        // Back-off keys carry the container's spec hash: every edit leaves one behind.
        opts.sync.crashBackoff.gc();
        opts.sync.images.gc();
        return;
      case 'log':
        if (c.event) opts.sync.events?.event(podRef(c.event.pod.metadata), 'Warning', c.event.reason, c.event.message);
        return log[c.level](c.msg, c.fields);
    }
  }

  /** Posts a retry for `uid` after `delayMs`, unless one is due sooner. */
  function scheduleRetry(uid: string, delayMs: number): void {
    if (signal?.aborted || !state.running) return;
    const at = Date.now() + delayMs;
    const existing = retries.get(uid);
    if (existing && existing.at <= at) return;
    clearTimeout(existing?.timer);
    const timer = setTimeout(() => {
      retries.delete(uid);
      post({ kind: 'retry', uid });
    }, delayMs);
    retries.set(uid, { timer, at });
  }

  /** A pod declared for the first time starts its start record; a removed one ends it. */
  function noteSeen(updates: readonly PodUpdate[]): void {
    const at = performance.now();
    for (const u of updates) {
      const uid = u.pod.metadata.uid;
      if (u.op === 'REMOVE') {
        firstSeen.delete(uid);
        metrics?.podGone(uid);
      } else if (u.op === 'ADD' && !state.pods.has(uid)) {
        if (!firstSeen.has(uid)) firstSeen.set(uid, at);
        metrics?.podStartPhase(podRefLabels(u.pod), 'seen', at);
      }
    }
  }

  /** Pods whose published phase is Succeeded or Failed: admission does not count them. */
  function finished(): Set<string> {
    const out = new Set<string>();
    for (const { pod, status } of opts.status.all()) if (isFinished(status.phase)) out.add(pod.metadata.uid);
    return out;
  }

  const component = defineComponent('pod-manager', async (s, markReady) => {
    signal = s;
    post({ kind: 'start' });
    markReady();
    const tick = setInterval(() => post({ kind: 'resync' }), opts.syncFrequencyMs);
    try {
      await Promise.race([waitForAbort(s), failed]);
    } finally {
      clearInterval(tick);
      post({ kind: 'stop' });
      // Already aborted through the link to `s`, unless the loop failed: then its work stops too.
      for (const r of running.values()) r.controller.abort(new Error('the sync loop stopped'));
      for (const r of retries.values()) clearTimeout(r.timer);
      retries.clear();
      await Promise.all([...running.values()].map((r) => r.done));
    }
  });

  return Object.assign(component, {
    applyUpdates: (updates: readonly PodUpdate[]) => {
      if (metrics) noteSeen(updates);
      post({ kind: 'source', updates, allSourcesSeen: opts.allSourcesSeen(), finished: finished() });
    },
    onRelist: (changed: ReadonlySet<string>, snapshot: ReadonlyMap<string, ObservedPod>, startedAt: number) => {
      const waited = cache.update(snapshot, startedAt);
      post({ kind: 'relist', changed, present: snapshot, waited, allSourcesSeen: opts.allSourcesSeen() });
    },
    desiredPods: () => desiredPods(state),
    busy: () => state.busy > 0,
    probeChanged: (uid: string) => post({ kind: 'probe', uid }),
    couldHaveRunningContainers: (uid: string) => state.pods.has(uid),
  });
}
