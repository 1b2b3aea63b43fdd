// The coalescing trigger (util/coalesce.ts): one run at a time, and a kick
// during a run causes exactly one more run. Runs are held open by the test
// and finished one by one; the period is driven by fake timers.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCoalescer } from '../../../src/util/coalesce.js';

/** A trigger whose runs the test finishes: `finish(i)` ends run i (0-based), `fail(i)` makes it throw. */
function harness(periodMs?: number) {
  const ac = new AbortController();
  const runs: Array<{ end: () => void; fail: (e: Error) => void }> = [];
  let active = 0;
  let maxActive = 0;
  const t = createCoalescer(
    () =>
      new Promise<void>((resolve, reject) => {
        active++;
        maxActive = Math.max(maxActive, active);
        const done = (): void => void active--;
        runs.push({ end: () => (done(), resolve()), fail: (e) => (done(), reject(e)) });
      }),
    { signal: ac.signal, periodMs },
  );
  return { t, ac, runs, maxActive: () => maxActive };
}

/** Lets the trigger's promise chain settle (a run's end, the next run's start). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

afterEach(() => {
  vi.useRealTimers();
});

describe('createCoalescer', () => {
  // Steps: k = kick, f = the latest run finishes, x = the latest run throws, a = abort.
  it.each([
    ['nothing runs before a kick', '', 0, false],
    ['a kick while idle runs at once', 'k', 1, true],
    ['a run that finished leaves the trigger idle', 'kf', 1, false],
    ['a kick during a run: exactly one more run', 'kkf', 2, true],
    ['many kicks during a run: still exactly one more', 'kkkkkf', 2, true],
    ['the one more run ends the series', 'kkff', 2, false],
    ['a kick during the one more run: one more again', 'kkfkf', 3, true],
    ['kicks after the series ended start a new one', 'kfkf', 2, false],
    ['a failed run ends the series; the kick it owed is not made', 'kkx', 1, false],
    ['after a failure the next kick runs', 'kxk', 2, true],
    ['a kick after the abort runs nothing', 'akk', 0, false],
    ['the abort during a run: no more run, though one was asked for', 'kkaf', 1, false],
  ])('%s (%s)', async (_, steps, wantRuns, wantRunning) => {
    const h = harness();
    const settled: Array<Promise<unknown>> = [];
    for (const s of steps) {
      if (s === 'k') settled.push(h.t.kick().catch((e: Error) => e.message));
      if (s === 'f') h.runs.at(-1)!.end();
      if (s === 'x') h.runs.at(-1)!.fail(new Error('boom'));
      if (s === 'a') h.ac.abort();
      await settle();
    }
    expect(h.runs).toHaveLength(wantRuns);
    expect(h.t.running).toBe(wantRunning);
    expect(h.maxActive()).toBeLessThanOrEqual(1);
    for (const r of h.runs) r.end();
    h.ac.abort();
    await h.t.idle();
    await Promise.all(settled);
  });

  it('kick() settles once the run covering it has ended, and rejects with its error', async () => {
    const h = harness();
    let first = 'pending';
    let second = 'pending';
    void h.t.kick().then(() => (first = 'done'));
    await settle();
    void h.t.kick().then(() => (second = 'done'));
    h.runs[0]!.end();
    await settle();
    // The second kick came during run 0: it is covered only by run 1.
    expect([first, second, h.runs.length]).toEqual(['pending', 'pending', 2]);
    h.runs[1]!.end();
    await settle();
    expect([first, second]).toEqual(['done', 'done']);
    const failing = h.t.kick();
    await settle();
    h.runs[2]!.fail(new Error('scan failed'));
    await expect(failing).rejects.toThrow('scan failed');
  });

  it('idle() resolves at once when idle, and after the run under way otherwise (never rejecting)', async () => {
    const h = harness();
    await h.t.idle();
    void h.t.kick().catch(() => undefined);
    await settle();
    let idle = false;
    void h.t.idle().then(() => (idle = true));
    await settle();
    expect(idle).toBe(false);
    h.runs[0]!.fail(new Error('x'));
    await settle();
    expect(idle).toBe(true);
  });

  describe('periodic', () => {
    it('runs again periodMs after a run ended; a kick in between runs at once and restarts the period', async () => {
      vi.useFakeTimers();
      const h = harness(1000);
      void h.t.kick();
      await settle();
      h.runs[0]!.end();
      await settle();
      await vi.advanceTimersByTimeAsync(999);
      expect(h.runs).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(h.runs).toHaveLength(2);
      // No period runs while a run is under way.
      await vi.advanceTimersByTimeAsync(5000);
      expect(h.runs).toHaveLength(2);
      h.runs[1]!.end();
      await settle();
      await vi.advanceTimersByTimeAsync(400);
      void h.t.kick();
      await settle();
      expect(h.runs).toHaveLength(3);
      h.runs[2]!.end();
      await settle();
      await vi.advanceTimersByTimeAsync(999);
      expect(h.runs).toHaveLength(3);
      await vi.advanceTimersByTimeAsync(1);
      expect(h.runs).toHaveLength(4);
      h.runs[3]!.fail(new Error('relist failed'));
      await settle();
      // The period goes on after a failure.
      await vi.advanceTimersByTimeAsync(1000);
      expect(h.runs).toHaveLength(5);
      h.runs[4]!.end();
      await settle();
      expect(vi.getTimerCount()).toBe(1);
      h.ac.abort();
      // The abort clears the period's timer: nothing is left pending.
      expect(vi.getTimerCount()).toBe(0);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(h.runs).toHaveLength(5);
    });

    it('the abort during a run arms no period after it', async () => {
      vi.useFakeTimers();
      const h = harness(1000);
      void h.t.kick();
      await settle();
      h.ac.abort();
      h.runs[0]!.end();
      await h.t.idle();
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
