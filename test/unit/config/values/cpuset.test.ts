import { describe, expect, it } from 'vitest';
import { formatCpuSet, parseCpuSet } from '../../../../src/config/values/cpuset.js';
import { ValueError } from '../../../../src/errors.js';

describe('parseCpuSet', () => {
  it.each([
    ['', []],
    ['  ', []],
    ['0', [0]],
    ['0-3,7', [0, 1, 2, 3, 7]],
    ['7,0-3', [0, 1, 2, 3, 7]],
    ['1-1', [1]],
    ['0-2,1-3,2', [0, 1, 2, 3]],
    [' 0 - 1 , 5 ', [0, 1, 5]],
    ['65535', [65535]],
  ])('parses %j', (text, cpus) => {
    expect(parseCpuSet(text)).toEqual(cpus);
  });

  it.each([
    ['3-1', 'invalid cpuset "3-1": range "3-1" is reversed (3 > 1)'],
    ['-1', 'invalid cpuset "-1": "-1" is not a CPU number (expected e.g. 0-3,7)'],
    ['1--2', 'invalid cpuset "1--2": "-2" is not a CPU number'],
    ['a', 'invalid cpuset "a": "a" is not a CPU number'],
    ['0,', 'invalid cpuset "0,": "" is not a CPU number'],
    ['0,,1', 'invalid cpuset "0,,1": "" is not a CPU number'],
    ['1-', 'invalid cpuset "1-": "" is not a CPU number'],
    ['1.5', 'invalid cpuset "1.5": "1.5" is not a CPU number'],
    ['0-65536', 'invalid cpuset "0-65536": CPU 65536 is above 65535'],
  ])('rejects %j', (text, message) => {
    expect(() => parseCpuSet(text)).toThrow(ValueError);
    expect(() => parseCpuSet(text)).toThrow(message);
  });

  // A flag value can be 128 KiB: the widest range repeated 16384 times once
  // took minutes (each repetition was expanded CPU by CPU), past the test timeout.
  it('merges repeated wide ranges instead of expanding each one', () => {
    const all = Array.from({ length: 65_536 }, (_, i) => i);
    expect(parseCpuSet('0-65535,'.repeat(16_384).slice(0, -1))).toEqual(all);
    expect(parseCpuSet(`${'1-65535,'.repeat(16_383)}0`)).toEqual(all);
  });

  it('keeps overlapping and nested ranges once', () => {
    expect(parseCpuSet('5-9,0-3,2-6,7,8-8,20-21,0')).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21]);
  });
});

describe('formatCpuSet', () => {
  it.each([
    [[], ''],
    [[0], '0'],
    [[0, 1, 2, 3, 7], '0-3,7'],
    [[7, 3, 2, 1, 0, 3], '0-3,7'],
    [[0, 1], '0-1'],
    [[0, 2, 4], '0,2,4'],
    [[1, 2, 5, 6, 7, 9], '1-2,5-7,9'],
  ])('formats %j as %j', (cpus, text) => {
    expect(formatCpuSet(cpus)).toBe(text);
  });

  it.each([['0-3,7'], ['1-2,5-7,9'], ['0']])('round-trips %j', (text) => {
    expect(formatCpuSet(parseCpuSet(text))).toBe(text);
  });
});
