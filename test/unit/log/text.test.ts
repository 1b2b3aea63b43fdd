import { describe, expect, test } from 'vitest';
import { escapeMessage, formatTextLine, formatValue, textHeader, type Severity } from '../../../src/log/text.js';

const T = Date.UTC(2023, 10, 22, 2, 39, 27, 123);

describe('textHeader', () => {
  test.each<[Severity, number, number, string, string]>([
    ['I', T, 12345, 'agent', 'I1122 02:39:27.123000   12345 agent] '],
    ['W', T, 1, 'sync', 'W1122 02:39:27.123000       1 sync] '],
    ['E', T, 1234567, 'agent', 'E1122 02:39:27.123000 1234567 agent] '],
    ['F', T, 12345678, 'agent', 'F1122 02:39:27.123000 12345678 agent] '],
    ['I', Date.UTC(2024, 0, 5, 0, 0, 0, 7), 42, 'x', 'I0105 00:00:00.007000      42 x] '],
    ['I', Date.UTC(2024, 11, 31, 23, 59, 59, 999), 42, 'x', 'I1231 23:59:59.999000      42 x] '],
  ])('%s %i pid=%i source=%s', (sev, ms, pid, source, expected) => {
    expect(textHeader(sev, ms, pid, source)).toBe(expected);
  });
});

describe('formatValue', () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic['self'] = cyclic;
  test.each<[string, unknown, string | undefined]>([
    ['plain string is quoted', 'value', '"value"'],
    ['empty string', '', '""'],
    ['space', 'a b', '"a b"'],
    ['quote', 'a"b', '"a\\"b"'],
    ['equals', 'a=b', '"a=b"'],
    ['newline', 'l1\nl2', '"l1\\nl2"'],
    ['integer', 4, '4'],
    ['negative float', -1.5, '-1.5'],
    ['NaN', Number.NaN, 'NaN'],
    ['true', true, 'true'],
    ['false', false, 'false'],
    ['null', null, 'null'],
    ['undefined is dropped', undefined, undefined],
    ['function is dropped', () => 1, undefined],
    ['bigint', 10n, '10'],
    ['object as JSON', { a: 1, b: 'x' }, '{"a":1,"b":"x"}'],
    ['array as JSON', [1, 'x'], '[1,"x"]'],
    ['bigint inside object', { n: 1n }, '{"n":"1"}'],
    ['cyclic object', cyclic, '{"a":1,"self":"[Circular]"}'],
    ['error as quoted message', new Error('boom'), '"boom"'],
    ['date as ISO', new Date(T), '"2023-11-22T02:39:27.123Z"'],
    ['invalid date', new Date(Number.NaN), '"Invalid Date"'],
    ['symbol', Symbol('s'), '"Symbol(s)"'],
  ])('%s', (_name, value, expected) => {
    expect(formatValue(value)).toBe(expected);
  });
});

describe('escapeMessage', () => {
  test.each([
    ['no control characters', 'plain text', 'plain text'],
    ['newline', 'a\nb', 'a\\nb'],
    ['carriage return', 'a\r\nb', 'a\\r\\nb'],
    ['other C0 control', 'a\u0001b', 'a\\u0001b'],
    ['line separator', 'a\u2028b', 'a\\u2028b'],
    ['tab is kept', 'a\tb', 'a\tb'],
    ['backslash is kept', 'C:\\dir', 'C:\\dir'],
  ])('%s', (_name, input, expected) => {
    expect(escapeMessage(input)).toBe(expected);
  });
});

describe('formatTextLine', () => {
  const base = { sev: 'I' as const, ms: T, pid: 12345, source: 'sync' };

  test.each([
    ['message only', { msg: 'hi', bindings: {}, fields: undefined }, 'hi'],
    ['empty message', { msg: '', bindings: {}, fields: { a: 1 } }, ' a=1'],
    ['bindings before fields', { msg: 'm', bindings: { pod: 'ns/p' }, fields: { n: 1 } }, 'm pod="ns/p" n=1'],
    ['err comes first', { msg: 'm', bindings: { pod: 'p' }, fields: { n: 1, err: new Error('x') } }, 'm err="x" pod="p" n=1'],
    ['field overrides binding', { msg: 'm', bindings: { a: 1, b: 2 }, fields: { b: 3 } }, 'm a=1 b=3'],
    ['undefined field dropped', { msg: 'm', bindings: {}, fields: { a: undefined, b: 2 } }, 'm b=2'],
    ['undefined err dropped', { msg: 'm', bindings: {}, fields: { err: undefined } }, 'm'],
    ['thrown string as err', { msg: 'm', bindings: {}, fields: { err: 'bad thing' } }, 'm err="bad thing"'],
    ['multi-line message stays on one line', { msg: 'a\nb', bindings: {}, fields: undefined }, 'a\\nb'],
  ])('%s', (_name, rec, tail) => {
    expect(formatTextLine({ ...base, ...rec })).toBe(`I1122 02:39:27.123000   12345 sync] ${tail}\n`);
  });
});
