import { describe, expect, it } from 'vitest';
import { ExponentialBackoff, REFLECTOR_BACKOFF } from '../../../../src/client/informer/backoff.js';

describe('ExponentialBackoff (client-go exponential back-off manager)', () => {
  it.each([
    ['no jitter (random 0): 0.8, 1.6, 3.2 … capped at 30 s', 0, [800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000]],
    ['full jitter (random → 1): up to twice each step, [30, 60) s at the cap', 0.999, [1_599.2, 3_198.4, 6_396.8, 12_793.6, 25_587.2, 51_174.4, 59_970, 59_970]],
  ])('%s', (_n, random, want) => {
    const b = new ExponentialBackoff(REFLECTOR_BACKOFF, { now: () => 0, random: () => random });
    const got = want.map(() => b.next());
    got.forEach((g, i) => expect(g).toBeCloseTo(want[i]!, 6));
  });
  it('starts over after 2 minutes without a request', () => {
    let now = 0;
    const b = new ExponentialBackoff(REFLECTOR_BACKOFF, { now: () => now, random: () => 0 });
    expect([b.next(), b.next(), b.next()]).toEqual([800, 1_600, 3_200]);
    now += 120_000;
    expect(b.next()).toBe(6_400);
    now += 120_001;
    expect(b.next()).toBe(800);
  });
});
