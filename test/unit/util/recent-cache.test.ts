import { describe, expect, it } from 'vitest';
import { RecentCache } from '../../../src/util/recent-cache.js';

describe('RecentCache', () => {
  it('computes a value once per key object and hands the same value back', () => {
    const cache = new RecentCache<object, { n: number }>();
    const key = {};
    let made = 0;
    const a = cache.get(key, () => ({ n: ++made }));
    const b = cache.get(key, () => ({ n: ++made }));
    expect(b).toBe(a);
    expect(made).toBe(1);
    expect(cache.get({}, () => ({ n: ++made })).n).toBe(2);
  });

  it('keeps at most `capacity` entries, forgetting the oldest first', () => {
    const cache = new RecentCache<object, number>(2);
    const [k1, k2, k3] = [{}, {}, {}];
    let made = 0;
    for (const k of [k1, k2, k3]) cache.get(k, () => ++made);
    expect(cache.get(k3, () => ++made)).toBe(3);
    expect(cache.get(k2, () => ++made)).toBe(2);
    expect(cache.get(k1, () => ++made)).toBe(4);
  });
});
