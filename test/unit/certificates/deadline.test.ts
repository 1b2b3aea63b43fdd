import { describe, expect, it } from 'vitest';
import { RENEW_BACKOFF, renewRetryDelayMs, rotationDeadline } from '../../../src/certificates/deadline.js';

const H = 3_600_000;
const NB = Date.UTC(2026, 0, 1);

describe('rotationDeadline: a jittered 70–90 % of the lifetime', () => {
  it.each([
    ['no jitter: 70 %', 100 * H, 0, 70 * H],
    ['mid jitter: 80 %', 100 * H, 0.5, 80 * H],
    ['near the top: just under 90 %', 100 * H, 0.999999, 89.9999 * H],
    ['a year-long certificate at 70 %', 8760 * H, 0, 6132 * H],
    ['a 15 min certificate (10 min + 5 min backdating) at 80 %', 0.25 * H, 0.5, 0.2 * H],
  ])('%s', (_n, total, random, offset) => {
    const d = rotationDeadline({ notBefore: new Date(NB), notAfter: new Date(NB + total) }, random);
    expect(Math.abs(d.getTime() - (NB + offset))).toBeLessThan(1_000);
  });

  it('stays inside [70 %, 90 %) for any jitter', () => {
    for (let i = 0; i < 100; i++) {
      const r = i / 100;
      const off = rotationDeadline({ notBefore: new Date(NB), notAfter: new Date(NB + 1000 * H) }, r).getTime() - NB;
      expect(off).toBeGreaterThanOrEqual(700 * H);
      expect(off).toBeLessThan(900 * H);
    }
  });
});

describe('renewRetryDelayMs: 2 s doubling for the first steps, then every 32 s', () => {
  it.each([
    [1, 0, 2_000],
    [2, 0, 4_000],
    [3, 0, 8_000],
    [4, 0, 16_000],
    [4, 0.5, 16_800],
    [5, 0, RENEW_BACKOFF.pollMs],
    [50, 0.9, RENEW_BACKOFF.pollMs],
  ])('failure %i with jitter %f waits %i ms', (n, r, ms) => {
    expect(renewRetryDelayMs(n, r)).toBe(ms);
  });
});
