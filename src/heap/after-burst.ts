// Returns a burst's garbage once the burst is over.
//
// Starting or stopping many pods at once keeps hundreds of calls and their
// state in flight for seconds, and V8 promotes what lives that long to the old
// generation. When the burst ends that garbage stays until V8's next full
// collection: its memory reducer runs one only at an 8-second tick that
// follows an 8-second interval of low allocation, 8 to 16 s later, and the
// allocation limit only after another 8 MB. Meanwhile the agent holds ~15 MB more than it needs (110 pods started
// at once: ~84 instead of ~70 MB RSS). So when the pod workers have gone quiet
// after at least MIN_CHANGES pod syncs that changed the runtime, the agent
// asks for one full collection itself (~40-50 ms, at most once per
// MIN_INTERVAL_MS). Syncs that change nothing (the periodic resync) do not
// count: they leave little garbage, and the compaction briefly needs the
// pages it empties and the ones it fills at once.
//
// Needs V8's gc() (node --expose-gc, which bin/agent.js's launch line passes);
// without it the agent runs as before.
import { setFlagsFromString } from 'node:v8';
import { waitForAbort } from '../lifecycle/abort.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import type { AgentLogger } from '../log/index.js';

/** How long the pod workers must stay quiet before the collection. */
export const QUIET_MS = 2_000;
/** Fewer pod changes than this since the last collection are no burst (one edit, one crash). */
export const MIN_CHANGES = 20;
/** Collections are at least this far apart. */
export const MIN_INTERVAL_MS = 10_000;

export interface BurstCollectorOptions {
  /** A full garbage collection (V8's gc()). */
  collect: () => void;
  /** Whether a pod sync is running now. */
  busy: () => boolean;
  log: AgentLogger;
  quietMs?: number;
  minChanges?: number;
  minIntervalMs?: number;
  now?: () => number;
}

export interface BurstCollector extends Component {
  /** The pod workers went idle after `changes` syncs that changed the runtime. */
  settled(changes: number): void;
}

/**
 * A full collection, when node runs with --expose-gc; compacting unless told
 * otherwise. gc() alone frees the objects but keeps their pages: the burst's
 * survivors are spread over them. Compacting moves the survivors together so
 * the emptied pages go back to the OS at once; V8 has no such option for
 * gc(), hence the flag for this one collection (V8 reads it when a collection
 * starts). The steady-state collector (growth-gc.ts) does not compact.
 */
export function exposedGc({ compact = true }: { compact?: boolean } = {}): (() => void) | undefined {
  const gc: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') return undefined;
  if (!compact) return () => void (gc as () => unknown)();
  return () => {
    setFlagsFromString('--compact-on-every-full-gc');
    try {
      (gc as () => unknown)();
    } finally {
      setFlagsFromString('--no-compact-on-every-full-gc');
    }
  };
}

export function createBurstCollector(opts: BurstCollectorOptions): BurstCollector {
  const quietMs = opts.quietMs ?? QUIET_MS;
  const minChanges = opts.minChanges ?? MIN_CHANGES;
  const minIntervalMs = opts.minIntervalMs ?? MIN_INTERVAL_MS;
  const now = opts.now ?? (() => performance.now());
  let pending = 0;
  let last = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  const arm = (ms: number): void => {
    clearTimeout(timer);
    timer = setTimeout(fire, ms);
  };

  function fire(): void {
    timer = undefined;
    if (!running || pending < minChanges || opts.busy()) return; // a busy worker's settle re-arms
    const wait = last + minIntervalMs - now();
    if (wait > 0) return arm(wait);
    const podChanges = pending;
    pending = 0;
    const before = process.memoryUsage.rss();
    const t0 = now();
    opts.collect();
    last = now();
    opts.log.v(4)?.info('Collected garbage after a burst of pod changes', { podChanges, ms: Math.round(last - t0), rssBeforeMB: mb(before), rssAfterMB: mb(process.memoryUsage.rss()) });
  }

  const component = defineComponent('burst-gc', async (signal, markReady) => {
    running = true;
    markReady();
    await waitForAbort(signal);
    running = false;
    clearTimeout(timer);
    timer = undefined;
  });

  return Object.assign(component, {
    settled(changes: number): void {
      if (!running) return;
      pending += changes;
      if (pending >= minChanges) arm(quietMs);
    },
  });
}

/** Bytes as MB (10^6) with one decimal, for the heap folder's log lines. */
export const mb = (bytes: number): number => Math.round(bytes / 1e5) / 10;
