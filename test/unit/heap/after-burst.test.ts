// The burst collector: one collection once the pod workers have been quiet
// for QUIET_MS after at least MIN_CHANGES syncs, never while they are busy,
// never closer than MIN_INTERVAL_MS, and nothing after stop.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBurstCollector, exposedGc, MIN_INTERVAL_MS, MIN_CHANGES, QUIET_MS } from '../../../src/heap/after-burst.js';
import { testLogger } from '../../helpers/test-logger.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function harness() {
  const state = { busy: false, collections: 0 };
  const log = testLogger();
  const c = createBurstCollector({ collect: () => void state.collections++, busy: () => state.busy, log, now: () => Date.now() });
  const ac = new AbortController();
  const run = c.run(ac.signal);
  return { c, state, log, stop: async () => (ac.abort(), await run) };
}

describe('burst collector', () => {
  it('collects once, QUIET_MS after a burst of MIN_CHANGES syncs settles, and logs it at V(4)', async () => {
    const h = harness();
    await h.c.ready;
    h.c.settled(MIN_CHANGES - 5);
    h.c.settled(5);
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(h.state.collections).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.state.collections).toBe(1);
    expect(h.log.records.find((r) => r.msg === 'Collected garbage after a burst of pod changes')).toMatchObject({ level: 'v4', fields: { podChanges: MIN_CHANGES } });
    await vi.advanceTimersByTimeAsync(10 * MIN_INTERVAL_MS);
    expect(h.state.collections).toBe(1);
    await h.stop();
  });

  it('a few pod changes are no burst', async () => {
    const h = harness();
    h.c.settled(MIN_CHANGES - 1);
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(h.state.collections).toBe(0);
    await h.stop();
  });

  it('waits while a worker is busy: the next settle starts the quiet period again', async () => {
    const h = harness();
    h.c.settled(MIN_CHANGES);
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    h.state.busy = true;
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(h.state.collections).toBe(0);
    h.state.busy = false;
    h.c.settled(1);
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(h.state.collections).toBe(1);
    expect(h.log.records.at(-1)?.fields['podChanges']).toBe(MIN_CHANGES + 1);
    await h.stop();
  });

  it('keeps MIN_INTERVAL_MS between collections, collecting a second burst when the interval is over', async () => {
    const h = harness();
    h.c.settled(MIN_CHANGES);
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(h.state.collections).toBe(1);
    h.c.settled(MIN_CHANGES);
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(h.state.collections).toBe(1);
    // The first collection was at QUIET_MS: the second is due MIN_INTERVAL_MS later.
    await vi.advanceTimersByTimeAsync(MIN_INTERVAL_MS - QUIET_MS - 1);
    expect(h.state.collections).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.state.collections).toBe(2);
    await h.stop();
  });

  it('nothing is collected after stop, nor before start', async () => {
    const state = { collections: 0 };
    const c = createBurstCollector({ collect: () => void state.collections++, busy: () => false, log: testLogger() });
    c.settled(MIN_CHANGES);
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(state.collections).toBe(0);
    const ac = new AbortController();
    const run = c.run(ac.signal);
    c.settled(MIN_CHANGES);
    ac.abort();
    await run;
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(state.collections).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('finds V8\'s gc() only where node exposes it', () => {
    const g = globalThis as { gc?: unknown };
    const saved = g.gc;
    try {
      delete g.gc;
      expect(exposedGc()).toBeUndefined();
      let called = 0;
      g.gc = () => void called++;
      exposedGc()!();
      expect(called).toBe(1);
    } finally {
      if (saved === undefined) delete g.gc;
      else g.gc = saved;
    }
  });
});
