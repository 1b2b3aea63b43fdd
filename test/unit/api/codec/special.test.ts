// Time formatting and parsing of metav1.Time / MicroTime, checked against Date.
import { describe, expect, it } from 'vitest';
import { formatMicroTime, formatTime, isBase64, parseRfc3339 } from '../../../../src/api/codec/special.js';

describe('formatTime', () => {
  it('agrees with Date for a spread of instants, leap days and year ends included', () => {
    const instants = [0, 1, 59, 86399, 86400, 951782400, 951868799, 1709288430, 1709251199, 4102444799, 253402300799, -1, -86401, -62135596800];
    for (let s = -5e10; s < 2.5e11; s += 7654321987) instants.push(s);
    for (const s of instants) expect(formatTime(s)).toBe(`${new Date(s * 1000).toISOString().slice(0, 19)}Z`);
  });

  it('writes MicroTime with six digits, truncating nanoseconds', () => {
    expect(formatMicroTime(1709288430, 123456789)).toBe('2024-03-01T10:20:30.123456Z');
    expect(formatMicroTime(1709288430, 0)).toBe('2024-03-01T10:20:30.000000Z');
  });
});

describe('parseRfc3339', () => {
  it.each([
    ['2024-03-01T10:20:30Z', { seconds: 1709288430, nanos: 0 }],
    ['2024-03-01t10:20:30z', { seconds: 1709288430, nanos: 0 }],
    ['2024-03-01T12:20:30.5+02:00', { seconds: 1709288430, nanos: 500000000 }],
    ['2024-03-01T05:20:30.000000001-05:00', { seconds: 1709288430, nanos: 1 }],
    ['2024-03-01T10:20:30.123456Z', { seconds: 1709288430, nanos: 123456000 }],
    ['2024-02-29T00:00:00Z', { seconds: 1709164800, nanos: 0 }],
  ])('%s', (text, want) => expect(parseRfc3339(text)).toEqual(want));

  it('agrees with Date.parse across the years, year 1 (Go zero time) included', () => {
    for (let s = -62135596800; s < 253402300799; s += 3456789013) {
      const text = `${new Date(s * 1000).toISOString().slice(0, 19)}Z`;
      expect(parseRfc3339(text)).toEqual({ seconds: s, nanos: 0 });
    }
    expect(parseRfc3339('0001-01-01T00:00:00Z')).toEqual({ seconds: -62135596800, nanos: 0 });
  });

  it.each(['2023-02-29T00:00:00Z', '2024-04-31T00:00:00Z', '2024-03-01T10:20:3xZ', '2024-03-01T10:20:30,123456Z', '2024-03-01T10:60:00Z', '2024-03-01', '2024-03-01 10:20:30Z', '2024-13-01T10:20:30Z', '2024-03-01T10:20:30', 'now', '2024-03-01T25:00:00Z'])('refuses %s', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });
});

describe('isBase64', () => {
  it.each([
    ['', true],
    ['YQ==', true],
    ['YWI=', true],
    ['YWJj', true],
    ['YQ', false],
    ['Y Q==', false],
    ['YW-_', false],
  ])('%j is %s', (text, ok) => expect(isBase64(text)).toBe(ok));
});
