import { describe, expect, it } from 'vitest';
import { isNegative, parseByteSize, parseQuantity } from '../../../../src/config/values/quantity.js';
import { ValueError } from '../../../../src/errors.js';

describe('parseQuantity', () => {
  it.each([
    ['10Mi', 10 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['1Ki', 1024],
    ['1.5Ki', 1536],
    ['2Ei', 2 * 2 ** 60],
    ['500m', 0.5],
    ['100u', 0.0001],
    ['5n', 5e-9],
    ['1e3', 1000],
    ['1E3', 1000],
    ['5e-3', 0.005],
    ['1e+2', 100],
    ['512', 512],
    ['.5', 0.5],
    ['1.', 1],
    ['0.1k', 100],
    ['1M', 1e6],
    ['3G', 3e9],
    ['1T', 1e12],
    ['1P', 1e15],
    ['1E', 1e18],
    ['+1', 1],
    ['-1Gi', -(2 ** 30)],
    ['-0', 0],
    ['0', 0],
  ])('parses %j as %d', (text, value) => {
    expect(parseQuantity(text)).toEqual({ text, value });
  });

  it.each([
    ['', 'invalid quantity "": empty (expected a number with an optional suffix, e.g. 100Mi or 500m)'],
    ['1K', 'invalid quantity "1K": unknown suffix "K" (use Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E, or an exponent such as e3)'],
    ['1ki', 'invalid quantity "1ki": unknown suffix "ki"'],
    ['1mi', 'invalid quantity "1mi": unknown suffix "mi"'],
    ['Mi', 'invalid quantity "Mi": expected a number with an optional suffix, e.g. 100Mi or 500m'],
    ['.', 'invalid quantity ".": expected a number'],
    ['1.2.3', 'invalid quantity "1.2.3": malformed number'],
    [' 1', 'invalid quantity " 1": expected a number'],
    ['1 ', 'invalid quantity "1 ": malformed number'],
    ['1 Gi', 'invalid quantity "1 Gi": malformed number'],
    ['1e', 'invalid quantity "1e": unknown suffix "e"'],
    ['1e3.5', 'invalid quantity "1e3.5": malformed number'],
    ['--1', 'invalid quantity "--1": expected a number'],
    ['1e400', 'invalid quantity "1e400": out of range'],
  ])('rejects %j', (text, message) => {
    expect(() => parseQuantity(text)).toThrow(ValueError);
    expect(() => parseQuantity(text)).toThrow(message);
  });

  it.each([
    ['-1', true],
    ['-1m', true],
    ['0', false],
    ['-0', false],
    ['1', false],
  ])('isNegative(%j) is %s', (text, negative) => {
    expect(isNegative(parseQuantity(text))).toBe(negative);
  });
});

describe('parseByteSize', () => {
  it.each([
    ['0', 0],
    ['512', 512],
    ['1K', 1000],
    ['1k', 1000],
    ['1.5K', 1500],
    ['2Ki', 2048],
    ['3M', 3_000_000],
    ['5Mi', 5 * 2 ** 20],
    ['1G', 1e9],
    ['1Gi', 2 ** 30],
    ['1e3', 1000],
    ['2000m', 2],
  ])('parses %j as %d bytes', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each([
    ['-1', 'invalid size "-1": must not be negative'],
    ['-1K', 'invalid size "-1K": must not be negative'],
    ['0.5', 'invalid size "0.5": expected a whole number of bytes such as 512, 1K, 2Ki, 3M or 5Mi'],
    ['500m', 'invalid size "500m": expected a whole number of bytes'],
    ['1X', 'invalid size "1X": expected a whole number of bytes'],
    ['K', 'invalid size "K": expected a whole number of bytes'],
    ['', 'invalid size "": expected a whole number of bytes'],
    ['1E', 'invalid size "1E": expected a whole number of bytes'],
  ])('rejects %j', (text, message) => {
    expect(() => parseByteSize(text)).toThrow(ValueError);
    expect(() => parseByteSize(text)).toThrow(message);
  });
});
