import { describe, expect, it } from 'vitest';
import { podCgroupOf } from '../../../src/stats/collect-pods.js';
import { nanoCoresBetween, RateCache } from '../../../src/stats/rates.js';

const S = 1_000_000_000n;

describe('nanoCoresBetween', () => {
  it.each([
    ['no earlier sample', undefined, { timestampNs: 10n * S, usageCoreNanoSeconds: 5e9 }, undefined],
    ['one core for 2 s', { timestampNs: 10n * S, usageCoreNanoSeconds: 1e9 }, { timestampNs: 12n * S, usageCoreNanoSeconds: 3e9 }, 1e9],
    ['a quarter core', { timestampNs: 0n, usageCoreNanoSeconds: 0 }, { timestampNs: 4n * S, usageCoreNanoSeconds: 1e9 }, 250_000_000],
    ['idle', { timestampNs: 0n, usageCoreNanoSeconds: 7 }, { timestampNs: S, usageCoreNanoSeconds: 7 }, 0],
    ['same instant', { timestampNs: S, usageCoreNanoSeconds: 0 }, { timestampNs: S, usageCoreNanoSeconds: 5 }, undefined],
    ['counter went back (new cgroup)', { timestampNs: 0n, usageCoreNanoSeconds: 9e9 }, { timestampNs: S, usageCoreNanoSeconds: 1e9 }, undefined],
  ])('%s', (_name, prev, cur, want) => {
    expect(nanoCoresBetween(prev, cur)).toBe(want);
  });
});

describe('RateCache', () => {
  it('keeps the previous rate for a sample that is not newer, and forgets keys not retained', () => {
    const c = new RateCache();
    expect(c.update('a', { timestampNs: 0n, usageCoreNanoSeconds: 0 })).toBeUndefined();
    expect(c.update('a', { timestampNs: S, usageCoreNanoSeconds: 5e8 })).toBe(5e8);
    expect(c.update('a', { timestampNs: S, usageCoreNanoSeconds: 5e8 })).toBe(5e8);
    expect(c.update('b', { timestampNs: 0n, usageCoreNanoSeconds: 0 })).toBeUndefined();
    c.retain(new Set(['b']));
    expect(c.size).toBe(1);
    expect(c.update('a', { timestampNs: 2n * S, usageCoreNanoSeconds: 1e9 })).toBeUndefined();
  });
});

describe('podCgroupOf', () => {
  it.each([
    ['/platformpods/podu1/sandbox1', 'u1', '/platformpods/podu1'],
    ['/custom/root/podu1/abc', 'u1', '/custom/root/podu1'],
    ['/k8s.io/sandbox1', 'u1', undefined],
    ['/platformpods/podu2/sandbox1', 'u1', undefined],
    ['/podu1', 'u1', undefined],
    ['/x/pod/sb', '', undefined],
  ])('%s of pod %s', (cg, uid, want) => {
    expect(podCgroupOf(cg, uid)).toBe(want);
  });
});
