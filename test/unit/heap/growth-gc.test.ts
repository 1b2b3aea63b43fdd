// The growth collector: every CHECK_MS it measures; once the measure has grown
// GROWTH_BYTES past its lowest since the last collection it collects (never
// while a pod worker is busy), and nothing runs after stop.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHECK_MS, collectableBytes, createGrowthCollector, GROWTH_BYTES } from '../../../src/heap/growth-gc.js';
import { exposedGc } from '../../../src/heap/after-burst.js';
import { testLogger } from '../../helpers/test-logger.js';

const flags = vi.hoisted(() => [] as string[]);
vi.mock('node:v8', async (original) => ({ ...(await original<typeof import('node:v8')>()), setFlagsFromString: (f: string) => void flags.push(f) }));

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const MiB = 2 ** 20;

function harness() {
  // The measure: `used`, which a collection brings back to `kept`.
  const state = { busy: false, collections: 0, used: 30 * MiB, kept: 22 * MiB };
  const log = testLogger();
  const c = createGrowthCollector({
    collect: () => {
      state.collections++;
      state.used = state.kept;
    },
    busy: () => state.busy,
    log,
    measure: () => state.used,
  });
  const ac = new AbortController();
  const run = c.run(ac.signal);
  return { state, log, stop: async () => (ac.abort(), await run) };
}

describe('growth collector', () => {
  // Each row: the measure at successive checks (MiB); the collections after each check.
  const cases: Array<[string, number[], number[]]> = [
    ['flat: never', [30, 30, 30, 30], [0, 0, 0, 0]],
    ['growth short of GROWTH_BYTES: never', [30, 31, 32, 33.9], [0, 0, 0, 0]],
    ['GROWTH_BYTES past the first look: once', [30, 32, 34], [0, 0, 1]],
    ['growth counts from the lowest look (V8 collected meanwhile)', [30, 25, 28, 29], [0, 0, 0, 1]],
  ];
  it.each(cases)('%s', async (_name, looks, want) => {
    const h = harness();
    h.state.kept = 10 * MiB; // below every look: a collection resets the floor under the next ones
    const got: number[] = [];
    for (const l of looks) {
      h.state.used = l * MiB;
      await vi.advanceTimersByTimeAsync(CHECK_MS);
      got.push(h.state.collections);
    }
    expect(got).toEqual(want);
    await h.stop();
  });

  it('counts growth again from what the collection kept, and logs each at V(5)', async () => {
    const h = harness();
    await vi.advanceTimersByTimeAsync(CHECK_MS); // floor 30
    h.state.used = 30 * MiB + GROWTH_BYTES;
    await vi.advanceTimersByTimeAsync(CHECK_MS);
    expect(h.state.collections).toBe(1);
    expect(h.log.records.find((r) => r.msg === 'Collected the garbage of a steady period')).toMatchObject({ level: 'v5', fields: { keptMB: 23.1 } });
    h.state.used = 22 * MiB + GROWTH_BYTES - 1;
    await vi.advanceTimersByTimeAsync(CHECK_MS);
    expect(h.state.collections).toBe(1);
    h.state.used = 22 * MiB + GROWTH_BYTES;
    await vi.advanceTimersByTimeAsync(CHECK_MS);
    expect(h.state.collections).toBe(2);
    await h.stop();
  });

  it('waits while a pod worker is busy', async () => {
    const h = harness();
    await vi.advanceTimersByTimeAsync(CHECK_MS);
    h.state.busy = true;
    h.state.used = 40 * MiB;
    await vi.advanceTimersByTimeAsync(3 * CHECK_MS);
    expect(h.state.collections).toBe(0);
    h.state.busy = false;
    await vi.advanceTimersByTimeAsync(CHECK_MS);
    expect(h.state.collections).toBe(1);
    await h.stop();
  });

  it('nothing is measured or collected after stop', async () => {
    const h = harness();
    await h.stop();
    h.state.used = 100 * MiB;
    await vi.advanceTimersByTimeAsync(10 * CHECK_MS);
    expect(h.state.collections).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('measures the heap in use plus the ArrayBuffers', () => {
    const spy = vi.spyOn(process, 'memoryUsage').mockReturnValue({ rss: 9, heapTotal: 8, heapUsed: 5, external: 7, arrayBuffers: 3 });
    try {
      expect(collectableBytes()).toBe(8);
    } finally {
      spy.mockRestore();
    }
  });

  it('the steady collection is a plain gc(); the burst collector\'s compacts', () => {
    const g = globalThis as { gc?: unknown };
    const saved = g.gc;
    const calls: string[] = [];
    try {
      g.gc = () => void calls.push('gc');
      flags.length = 0;
      exposedGc({ compact: false })!();
      expect([...flags, ...calls]).toEqual(['gc']);
      calls.length = 0;
      exposedGc()!();
      expect(flags).toEqual(['--compact-on-every-full-gc', '--no-compact-on-every-full-gc']);
      expect(calls).toEqual(['gc']);
    } finally {
      if (saved === undefined) delete g.gc;
      else g.gc = saved;
    }
  });
});
