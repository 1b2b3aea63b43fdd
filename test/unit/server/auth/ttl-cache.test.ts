import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../../../src/server/auth/ttl-cache.js';

describe('TtlCache', () => {
  it('expires at the deadline, not before', () => {
    let now = 0;
    const c = new TtlCache<string>(10, () => now);
    c.set('a', 'x', 100);
    now = 99;
    expect(c.get('a')).toBe('x');
    now = 100;
    expect(c.get('a')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('stays within its bound, dropping the oldest entry', () => {
    const c = new TtlCache<number>(3, () => 0);
    for (let i = 0; i < 5; i++) c.set(`k${i}`, i, 1000);
    expect(c.size).toBe(3);
    expect([c.get('k0'), c.get('k1'), c.get('k2'), c.get('k4')]).toEqual([undefined, undefined, 2, 4]);
  });

  it('a ttl of 0 or less stores nothing', () => {
    const c = new TtlCache<number>(3, () => 0);
    c.set('a', 1, 0);
    c.set('b', 1, -5);
    expect(c.size).toBe(0);
  });
});
