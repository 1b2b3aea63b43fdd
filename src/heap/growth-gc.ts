// Collects what a steady agent promotes, before V8 would.
//
// With nothing changing, the 1 s relist, the 10 s stats refresh and the gRPC
// calls under them still leave short-lived objects behind, and they outlive
// the young generation's collections: Node's HTTP/2 stream objects are held
// by their native handles through a scavenge, and what they reference goes to
// the old generation with them (~0.2 MB/s at 110 pods). V8 starts its next
// full collection only once the old generation has grown 8 MB past what the
// last one kept (its minimum step; the smaller one comes only with
// --optimize-for-size, which slowed every pod batch by ~15 %), and keeps
// those pages committed afterwards. So every CHECK_MS, when no pod worker is
// busy and the heap in use plus the ArrayBuffers have grown GROWTH_BYTES past
// their lowest since the last collection, the agent runs one full collection
// itself: about as often as V8's own full collections came before the gRPC
// answers stopped being held (src/cri/grpc-connection.ts), ~15-25 ms of main
// thread each, and the old generation stays ~4 MB smaller. Not compacting:
// a compaction briefly holds the pages it fills and the ones it empties, a
// 10-15 MB spike in RSS each time.
//
// Needs V8's gc() (node --expose-gc, which bin/agent.js's launch line passes);
// without it the agent runs as before.
import { waitForAbort } from '../lifecycle/abort.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import type { AgentLogger } from '../log/index.js';
import { mb } from './after-burst.js';

/** How often the collector looks. */
export const CHECK_MS = 5_000;
/** Growth of the heap in use plus ArrayBuffers past the last low that warrants a collection. */
export const GROWTH_BYTES = 4 * 2 ** 20;

export interface GrowthCollectorOptions {
  /** A full garbage collection, not compacting (V8's gc()). */
  collect: () => void;
  /** Whether a pod sync is running now (a burst's garbage is the burst collector's). */
  busy: () => boolean;
  log: AgentLogger;
  /** What a collection can give back, in bytes (test seam; default collectableBytes). */
  measure?: () => number;
  checkMs?: number;
  growthBytes?: number;
}

/**
 * What a collection can give back: the JS heap in use and the memory of the
 * ArrayBuffers it holds (Buffers of gRPC frames, file reads and TLS records,
 * whose malloc'd memory goes only when their objects are collected).
 */
export function collectableBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

export function createGrowthCollector(o: GrowthCollectorOptions): Component {
  const checkMs = o.checkMs ?? CHECK_MS;
  const growth = o.growthBytes ?? GROWTH_BYTES;
  const measure = o.measure ?? collectableBytes;
  // The lowest size seen since the last collection: a drop means V8 (or the burst collector) collected meanwhile.
  let floor = Infinity;
  const check = (): void => {
    if (o.busy()) return;
    const used = measure();
    floor = Math.min(floor, used);
    if (used - floor < growth) return;
    const t0 = performance.now();
    o.collect();
    floor = measure();
    o.log.v(5)?.info('Collected the garbage of a steady period', { ms: Math.round(performance.now() - t0), grownMB: mb(used - floor), keptMB: mb(floor) });
  };
  return defineComponent('growth-gc', async (signal, markReady) => {
    const timer = setInterval(check, checkMs);
    markReady();
    await waitForAbort(signal);
    clearInterval(timer);
  });
}
