import { describe, expect, it } from 'vitest';
import { parseGoInt } from '../../../../src/config/values/integer.js';
import { ValueError } from '../../../../src/errors.js';

const I32 = [-(2n ** 31n), 2n ** 31n - 1n] as const;

describe('parseGoInt (strconv.ParseInt(s, 0, bits))', () => {
  it.each([
    ['0', 0n],
    ['-0', 0n],
    ['42', 42n],
    ['+42', 42n],
    ['-42', -42n],
    ['0x10', 16n],
    ['0X1f', 31n],
    ['010', 8n],
    ['0o17', 15n],
    ['0O17', 15n],
    ['0b101', 5n],
    ['-0b101', -5n],
    ['1_000', 1000n],
    ['0x_FF', 255n],
    ['0_17', 15n],
    ['2147483647', 2147483647n],
    ['-2147483648', -2147483648n],
  ])('%s → %s', (text, want) => {
    expect(parseGoInt(text, ...I32, 'int32')).toBe(want);
  });
  it.each([['', 'not an integer'], [' 5', 'not an integer'], ['5 ', 'not an integer'], ['08', 'not an integer'], ['0x', 'not an integer'], ['0b2', 'not an integer'], ['1__0', 'not an integer'], ['_1', 'not an integer'], ['1_', 'not an integer'], ['0x_', 'not an integer'], ['1.5', 'not an integer'], ['1e3', 'not an integer'], ['--1', 'not an integer'], ['2147483648', 'out of range'], ['-0x80000001', 'out of range'],
    // As Go: the first digit past the range ends parsing (a 128 KiB run of digits once took seconds).
    ['99999999999x', 'out of range'], ['1'.repeat(131_072), 'out of range']])('rejects %j (%s)', (text, why) => {
    expect(() => parseGoInt(text, ...I32, 'int32')).toThrow(ValueError);
    expect(() => parseGoInt(text, ...I32, 'int32')).toThrow(why);
  });
});
