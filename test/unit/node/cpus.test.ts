import { describe, expect, it } from 'vitest';
import { onlineCpuCount } from '../../../src/node/cpus.js';

describe('onlineCpuCount', () => {
  it('counts the kernel online list, not the affinity mask', () => {
    expect(onlineCpuCount(() => '0-3,6\n', () => [])).toBe(5);
    expect(onlineCpuCount(() => '0\n', () => [])).toBe(1);
  });
  it('falls back to os.cpus() without /sys, and says nothing when neither knows', () => {
    const fail = (): string => {
      throw new Error('ENOENT');
    };
    expect(onlineCpuCount(fail, () => [1, 2, 3])).toBe(3);
    expect(onlineCpuCount(() => 'garbage', () => [1, 2])).toBe(2);
    expect(onlineCpuCount(fail, () => [])).toBeUndefined();
  });
  it('reads this host', () => {
    expect(onlineCpuCount()).toBeGreaterThan(0);
  });
});
