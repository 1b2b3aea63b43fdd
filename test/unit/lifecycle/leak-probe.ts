// Per-test leak check: timers created through the globals during the test
// (ref'd or not) must be cleared or fired, and node's active resources
// (sockets, servers, child processes, pipes, ref'd timers) must be back to
// what they were before the test.

import { expect } from 'vitest';

export interface LeakProbe {
  /** Timers created since the probe started that are still pending. */
  liveTimers(): number;
  /**
   * Restores the globals and fails the test on pending timers that keep the
   * process alive (ref'd ones are cleared); unref'd timers are left to fire.
   * For code that leaves a library's unref'd timers behind by design.
   */
  assertNoRefTimers(): void;
  /** Restores the globals and fails the test on leaks; waits (bounded) for handles that close asynchronously. */
  assertClean(): Promise<void>;
}

type Handle = ReturnType<typeof setTimeout>;

export function startLeakProbe(): LeakProbe {
  const baseline = countResources();
  const live = new Set<Handle>();
  const orig = {
    setTimeout: globalThis.setTimeout,
    setInterval: globalThis.setInterval,
    clearTimeout: globalThis.clearTimeout,
    clearInterval: globalThis.clearInterval,
  };

  const patchedSetTimeout = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): Handle => {
    const handle = orig.setTimeout(
      (...a: unknown[]) => {
        live.delete(handle);
        fn(...a);
      },
      ms,
      ...args,
    );
    live.add(handle);
    return handle;
  };
  const patchedSetInterval = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): Handle => {
    const handle = orig.setInterval(fn, ms, ...args);
    live.add(handle);
    return handle;
  };
  const patchedClear = (handle: Handle | string | number | undefined): void => {
    if (handle !== undefined && typeof handle === 'object') live.delete(handle);
    orig.clearTimeout(handle);
  };
  globalThis.setTimeout = patchedSetTimeout as unknown as typeof setTimeout;
  globalThis.setInterval = patchedSetInterval as unknown as typeof setInterval;
  globalThis.clearTimeout = patchedClear as typeof clearTimeout;
  globalThis.clearInterval = patchedClear as typeof clearInterval;

  const restore = (): void => {
    globalThis.setTimeout = orig.setTimeout;
    globalThis.setInterval = orig.setInterval;
    globalThis.clearTimeout = orig.clearTimeout;
    globalThis.clearInterval = orig.clearInterval;
  };

  return {
    liveTimers: () => live.size,
    assertNoRefTimers() {
      restore();
      const held = [...live].filter((h) => h.hasRef());
      for (const h of held) orig.clearTimeout(h);
      expect(held.length, 'timers left pending by the test that keep the process alive').toBe(0);
    },
    async assertClean() {
      restore();
      const pendingTimers = live.size;
      for (const h of live) orig.clearTimeout(h);
      expect(pendingTimers, 'timers left pending by the test').toBe(0);
      const deadline = Date.now() + 2000;
      let extra = excess(baseline, countResources());
      while (Object.keys(extra).length > 0 && Date.now() < deadline) {
        await new Promise<void>((resolve) => orig.setTimeout(resolve, 10));
        extra = excess(baseline, countResources());
      }
      expect(extra, 'resources left open by the test').toEqual({});
    },
  };
}

function countResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
}

function excess(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, n] of after) {
    const allowed = before.get(kind) ?? 0;
    if (n > allowed) out[kind] = n - allowed;
  }
  return out;
}
