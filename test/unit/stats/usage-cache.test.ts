import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageCache } from '../../../src/stats/files.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('UsageCache', () => {
  it('walks a directory at most once per period, and forgets what is no longer asked for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usage-cache-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'a'), 'x'.repeat(10_000));
    let t = 0;
    const cache = new UsageCache(60_000, () => t);
    const signal = new AbortController().signal;
    const first = await cache.usage(dir, signal);
    expect(first?.inodesUsed).toBe(2);
    writeFileSync(join(dir, 'b'), 'y');
    t = 59_999;
    expect(await cache.usage(dir, signal)).toEqual(first); // within the period: the last walk's answer
    t = 60_000;
    expect((await cache.usage(dir, signal))?.inodesUsed).toBe(3);
    rmSync(dir, { recursive: true });
    t = 119_999;
    cache.prune();
    expect((await cache.usage(dir, signal))?.inodesUsed).toBe(3); // still cached: measured 59 999 ms ago
    t = 240_000;
    cache.prune();
    expect(await cache.usage(dir, signal)).toBeUndefined(); // dropped, walked again: gone
  });
});
