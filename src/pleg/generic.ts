// The generic PLEG (pod lifecycle event generator): relists the runtime every
// second and tells the sync loop which pods changed. Relist first, events
// later: an event-stream PLEG can replace this behind the same interface.
// Healthy while the last successful relist is recent (the kubelet: 3 minutes).
import type { RuntimeService } from '../cri/types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { waitForAbort } from '../lifecycle/abort.js';
import type { AgentLogger } from '../log/index.js';
import { newStatusCache, observeAll, signature } from '../runtime-view/observe.js';
import type { ObservedPod } from '../runtime-view/observed.js';
import { createCoalescer, type Coalescer } from '../util/coalesce.js';

export const RELIST_PERIOD_MS = 1000;
export const RELIST_THRESHOLD_MS = 3 * 60_000;

export interface PlegOptions {
  runtime: RuntimeService;
  log: AgentLogger;
  /**
   * Called after every relist with the pods whose runtime state changed (all
   * pods, the first time), the runtime state of every pod, and when the relist
   * began (performance.now()): the snapshot holds every change made before then.
   */
  onRelist: (changed: ReadonlySet<string>, snapshot: ReadonlyMap<string, ObservedPod>, startedAt: number) => void;
  periodMs?: number;
  now?: () => number;
  /** Relist timing and the runtime state seen (src/metrics' AgentMetrics fits); called synchronously, must not throw. */
  metrics?: PlegMetricsSink;
}

/** What the PLEG reports to the metrics: the kubelet's pleg_relist_* histograms, running_pods and running_containers. */
export interface PlegMetricsSink {
  /** Seconds the relist took, and seconds since the previous relist began (undefined for the first). */
  plegRelist(seconds: number, intervalSeconds: number | undefined): void;
  runtimeState(snapshot: ReadonlyMap<string, ObservedPod>): void;
}

export interface Pleg extends Component {
  /** undefined while healthy, else the reason (for /healthz). */
  unhealthy(): string | undefined;
  /** Relists now (outside the period), e.g. right after a sync changed something. */
  kick(): void;
}

export function createPleg(opts: PlegOptions): Pleg {
  const now = opts.now ?? Date.now;
  const period = opts.periodMs ?? RELIST_PERIOD_MS;
  let lastOk = now();
  let previous = new Map<string, { pod: ObservedPod; sig: string }>();
  let previousSnapshot: ReadonlyMap<string, ObservedPod> | undefined;
  const cache = newStatusCache();
  let lastError: string | undefined;
  /** performance.now() when the previous relist began (pleg_relist_interval_seconds). */
  let previousStart: number | undefined;

  async function relist(signal: AbortSignal): Promise<void> {
    const startedAt = performance.now();
    const interval = previousStart === undefined ? undefined : (startedAt - previousStart) / 1000;
    previousStart = startedAt;
    const snapshot = await observeAll(opts.runtime, cache, signal);
    const changed = new Set<string>();
    // observeAll hands back the same pod objects (and map) while nothing changed: only new objects need a signature.
    if (snapshot !== previousSnapshot) {
      const next = new Map<string, { pod: ObservedPod; sig: string }>();
      for (const [uid, pod] of snapshot) {
        const old = previous.get(uid);
        const sig = old?.pod === pod ? old.sig : signature(pod);
        next.set(uid, { pod, sig });
        if (old?.sig !== sig) changed.add(uid);
      }
      for (const uid of previous.keys()) if (!next.has(uid)) changed.add(uid);
      previous = next;
      previousSnapshot = snapshot;
    }
    lastOk = now();
    // As the kubelet: only a relist that worked is timed.
    opts.metrics?.plegRelist((performance.now() - startedAt) / 1000, interval);
    opts.metrics?.runtimeState(snapshot);
    opts.onRelist(changed, snapshot, startedAt);
  }

  /** Started with the component: one relist at a time, one every period, one more at once when kicked. */
  let relists: Coalescer | undefined;
  /** A kick before the component runs: its first relist may begin too early for the kicker, so one more follows. */
  let kickedEarly = false;

  /** One relist; a failure is logged (once while it repeats) and never ends the period. */
  async function relistOnce(signal: AbortSignal): Promise<void> {
    try {
      await relist(signal);
      if (lastError) opts.log.info('Runtime relist works again');
      lastError = undefined;
    } catch (e) {
      if (signal.aborted) return;
      const msg = (e as Error).message;
      if (msg !== lastError) opts.log.error('Runtime relist failed', { err: e });
      lastError = msg;
    }
  }

  const component = defineComponent('pleg', async (signal, markReady) => {
    // Ready after the first relist, whether it worked or not (a second one a kick asked for is not awaited);
    // stopped during it, never ready.
    const trigger = createCoalescer(async (s) => {
      await relistOnce(s);
      if (!s.aborted) markReady();
    }, { signal, periodMs: period });
    relists = trigger;
    try {
      // relistOnce never throws: neither do these.
      void trigger.kick();
      if (kickedEarly) void trigger.kick();
      await waitForAbort(signal);
    } finally {
      await trigger.idle();
    }
  });

  return Object.assign(component, {
    unhealthy: () => {
      const age = now() - lastOk;
      return age > RELIST_THRESHOLD_MS ? `pleg was last seen active ${Math.round(age / 1000)}s ago; threshold is ${RELIST_THRESHOLD_MS / 1000}s` : undefined;
    },
    kick: () => {
      if (relists) void relists.kick();
      else kickedEarly = true;
    },
  });
}
