// Value kinds (src/config/kinds.ts) at the edges the fuzz tier found.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { flagTextOf, float, headers, optionalInt32, reservedMemory, shutdownByPriority, strings } from '../../../../src/config/kinds.js';

describe('strings', () => {
  it.each([
    ['', []],
    [' ', []],
    ['\n', []],
    ['a', ['a']],
    [' a , b ', ['a', 'b']],
    [',', ['', '']],
  ])('reads %j as %j, and its flag text reads back the same', (text, list) => {
    const v = strings.parseFlag(text, undefined);
    expect(v).toEqual(list);
    expect(strings.parseFlag(flagTextOf(strings, v), undefined)).toEqual(v);
  });
});

describe('float', () => {
  it.each([['0.9', 0.9], ['1', 1], ['-.5', -0.5], ['5.', 5], ['1e-3', 0.001], ['+2E2', 200]])('reads %j as %d', (text, n) => {
    expect(float.parseFlag(text, undefined)).toBe(n);
  });
  // Number() took these; Go's strconv.ParseFloat does not (and overflow is a range error there).
  it.each([' 5', '5 ', '0x10', '0b1', '0o7', '', '.', 'Infinity', 'NaN', '1e309'])('rejects %j', (text) => {
    expect(() => float.parseFlag(text, undefined)).toThrow(`invalid float "${text}"`);
  });
});

describe('optionalInt32', () => {
  // 0 is "unset" and encodes as null in files, but as a flag argument it must stay a number.
  it.each([0, 1, -5, 2147483647])('%d has flag text that reads back the same', (v) => {
    expect(optionalInt32.parseFlag(flagTextOf(optionalInt32, v), undefined)).toBe(v);
  });
});

describe('file schemas keep values in the kubelet types', () => {
  it.each([
    [reservedMemory, [{ numaNode: 2 ** 31, limits: { memory: '1Gi' } }], [0, 'numaNode']],
    [shutdownByPriority, [{ priority: 2 ** 31, shutdownGracePeriodSeconds: 10 }], [0, 'priority']],
    [shutdownByPriority, [{ priority: -(2 ** 31) - 1, shutdownGracePeriodSeconds: 10 }], [0, 'priority']],
  ] as const)('rejects %#', (kind, value, path) => {
    const r = (kind.file(z) as z.ZodType).safeParse(value);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(path);
  });

  it.each([
    [reservedMemory, [{ numaNode: 2 ** 31 - 1, limits: { memory: '1Gi' } }]],
    [shutdownByPriority, [{ priority: 2 ** 31 - 1, shutdownGracePeriodSeconds: -5 }]],
  ] as const)('accepts %#', (kind, value) => {
    expect((kind.file(z) as z.ZodType).safeParse(value).success).toBe(true);
  });
});

describe('headers from a file', () => {
  it.each([
    [{ 'Bad Name': ['x'] }, ['Bad Name', 0], '"Bad Name" is not a valid header name'],
    [{ A: ['ok', 'x\r\nInjected: 1'] }, ['A', 1], 'the value of "A" holds U+000D'],
    [{ A: ['\u20ac'] }, ['A', 0], 'holds U+20AC'],
  ])('rejects %j, naming the header', (value, path, message) => {
    const r = headers.file(z).safeParse(value);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(path);
    expect(r.error?.issues[0]?.message).toContain(message);
  });

  it('accepts what the flag accepts', () => {
    expect(headers.file(z).safeParse({ Authorization: ['Bearer x'], 'X-A': ['caf\u00e9', ''] }).success).toBe(true);
  });
});
