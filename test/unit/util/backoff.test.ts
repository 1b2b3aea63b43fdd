import { describe, expect, it } from 'vitest';
import { KeyedBackoff } from '../../../src/util/backoff.js';

describe('KeyedBackoff (CrashLoopBackOff timing)', () => {
  it('first restart is immediate, then 10 s doubling to 300 s, reset after 10 minutes quiet', () => {
    let now = 0;
    const b = new KeyedBackoff({ initialMs: 10_000, maxMs: 300_000, now: () => now });
    // Crash 1 at t=0: not in back-off; record it.
    expect(b.inBackoffSince('k', 0)).toBe(false);
    expect(b.next('k', 0)).toBe(10_000);
    // Crash 2 right after the restart: wait 10 s.
    now = 1_000;
    expect(b.inBackoffSince('k', 1_000)).toBe(true);
    expect(b.remaining('k', 1_000)).toBe(10_000);
    now = 11_000;
    expect(b.inBackoffSince('k', 1_000)).toBe(false);
    const seq = [20_000, 40_000, 80_000, 160_000, 300_000, 300_000];
    for (const want of seq) expect(b.next('k', now)).toBe(want);
    // Quiet for more than 2 × 300 s: back to 10 s.
    now += 600_001;
    expect(b.inBackoffSince('k', now)).toBe(false);
    expect(b.next('k', now)).toBe(10_000);
  });
  it('counts 10 minutes of running from the restart, not from the exit before the back-off', () => {
    let now = 0;
    const b = new KeyedBackoff({ initialMs: 10_000, maxMs: 300_000, now: () => now });
    // A container crash-looping up to the ceiling: each exit waits out its delay, then restarts.
    let exit = 0;
    for (;;) {
      now = exit + b.current('k');
      if (b.next('k', exit) === 300_000) break;
      exit = now + 1_000;
    }
    const restartedAt = now;
    // It runs 6 minutes this time: still crash-looping, the delay stays at the ceiling.
    exit = restartedAt + 360_000;
    now = exit;
    expect(b.inBackoffSince('k', exit)).toBe(true);
    expect(b.remaining('k', exit)).toBe(300_000);
    now = exit + 300_000;
    expect(b.next('k', exit)).toBe(300_000);
    // After the next restart it runs 10 minutes and a second: the back-off starts over.
    exit = now + 600_001;
    now = exit;
    expect(b.inBackoffSince('k', exit)).toBe(false);
    expect(b.next('k', exit)).toBe(10_000);
  });
  it('keys are independent and gc drops expired ones', () => {
    let now = 0;
    const b = new KeyedBackoff({ initialMs: 1000, maxMs: 4000, now: () => now });
    b.next('a', 0);
    b.next('b', 0);
    b.next('b', 0);
    expect([b.current('a'), b.current('b')]).toEqual([1000, 2000]);
    now = 8001;
    b.gc();
    expect([b.current('a'), b.current('b')]).toEqual([0, 0]);
  });
});
