import { describe, expect, it } from 'vitest';
import { formatDuration, formatDurationNs, parseDuration, parseDurationNs } from '../../../../src/config/values/duration.js';
import { ValueError } from '../../../../src/errors.js';

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['-0', 0],
    ['+5s', 5000],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['2h45m', 9_900_000],
    ['-1m', -60_000],
    ['1h0m0s', 3_600_000],
    ['10us', 0.01],
    ['10\u00b5s', 0.01],
    ['10\u03bcs', 0.01],
    ['1500us', 1.5],
    ['.5s', 500],
    ['5.s', 5000],
    ['1ns', 0.000001],
    ['1h1h', 7_200_000],
    ['0.1s', 100],
    ['2562047h47m16.854775807s', 9_223_372_036_854.775],
  ])('parses %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['', 'invalid duration "": expected a number followed by a unit, e.g. 300ms, 1.5h or 2h45m'],
    ['5', 'invalid duration "5": missing unit (use ns, us, ms, s, m, h)'],
    ['5x', 'invalid duration "5x": unknown unit "x" (use ns, us, ms, s, m, h)'],
    ['1d', 'invalid duration "1d": unknown unit "d" (use ns, us, ms, s, m, h)'],
    ['5 s', 'invalid duration "5 s": unknown unit " s" (use ns, us, ms, s, m, h)'],
    ['.s', 'invalid duration ".s": expected digits before the unit'],
    ['-', 'invalid duration "-": expected a number followed by a unit, e.g. 300ms, 1.5h or 2h45m'],
    ['1h-5m', 'invalid duration "1h-5m": unknown unit "h-" (use ns, us, ms, s, m, h)'],
    ['-s', 'invalid duration "-s": unexpected "s" (expected a number followed by a unit)'],
    ['s', 'invalid duration "s": unexpected "s" (expected a number followed by a unit)'],
    ['2562047h47m16.854775808s', 'invalid duration "2562047h47m16.854775808s": out of range'],
    ['9999999999999999999h', 'invalid duration "9999999999999999999h": out of range'],
  ])('rejects %j', (text, message) => {
    expect(() => parseDuration(text)).toThrow(ValueError);
    expect(() => parseDuration(text)).toThrow(message);
  });

  it('follows Go at the int64 limits', () => {
    expect(parseDurationNs('-2562047h47m16.854775808s')).toBe(-(1n << 63n));
    expect(parseDurationNs('2562047h47m16.854775807s')).toBe((1n << 63n) - 1n);
  });

  it('truncates sub-nanosecond fractions like Go', () => {
    expect(parseDurationNs('1.9ns')).toBe(1n);
    expect(parseDurationNs('0.3333333333s')).toBe(333_333_333n);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [300, '300ms'],
    [1500, '1.5s'],
    [20_000, '20s'],
    [60_000, '1m0s'],
    [300_000, '5m0s'],
    [14_400_000, '4h0m0s'],
    [9_900_000, '2h45m0s'],
    [0.0015, '1.5µs'],
    [0.000001, '1ns'],
    [-60_000, '-1m0s'],
    [100, '100ms'],
    [1.5, '1.5ms'],
    [61_001, '1m1.001s'],
  ])('formats %d ms as %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('formats the int64 extremes', () => {
    expect(formatDurationNs((1n << 63n) - 1n)).toBe('2562047h47m16.854775807s');
    expect(formatDurationNs(-(1n << 63n))).toBe('-2562047h47m16.854775808s');
  });

  it.each([[Number.NaN], [Number.POSITIVE_INFINITY], [1e16]])('rejects %d', (ms) => {
    expect(() => formatDuration(ms)).toThrow(ValueError);
  });
});

describe('round trip', () => {
  it.each([
    ['0s', '0s'],
    ['300ms', '300ms'],
    ['1.5h', '1h30m0s'],
    ['2h45m', '2h45m0s'],
    ['-1m', '-1m0s'],
    ['1h0m0s', '1h0m0s'],
    ['10us', '10µs'],
    ['1500us', '1.5ms'],
    ['.5s', '500ms'],
    ['90s', '1m30s'],
    ['1h2m3.004005006s', '1h2m3.004005006s'],
    ['72h', '72h0m0s'],
    ['123ns', '123ns'],
  ])('%j formats back as %j and re-parses to the same value', (text, canonical) => {
    const ms = parseDuration(text);
    expect(formatDuration(ms)).toBe(canonical);
    expect(parseDuration(canonical)).toBe(ms);
  });
});
