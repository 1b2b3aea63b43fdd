import { describe, expect, test } from 'vitest';
import { ValueError } from '../../../src/errors.js';
import { formatVmodule, parseVmodule } from '../../../src/log/index.js';
import { globMatch, verbosityResolver } from '../../../src/log/vmodule.js';

describe('parseVmodule', () => {
  test.each([
    ['', []],
    ['sync*=4', [{ filePattern: 'sync*', verbosity: 4 }]],
    [
      'sync*=4,server=2',
      [
        { filePattern: 'sync*', verbosity: 4 },
        { filePattern: 'server', verbosity: 2 },
      ],
    ],
    ['a=1,', [{ filePattern: 'a', verbosity: 1 }]],
    [',a=1,,b=0', [{ filePattern: 'a', verbosity: 1 }, { filePattern: 'b', verbosity: 0 }]],
    ['pod?=2147483647', [{ filePattern: 'pod?', verbosity: 2147483647 }]],
  ])('%j parses', (text, expected) => {
    expect(parseVmodule(text)).toEqual(expected);
  });

  test.each([
    ['a', /syntax error/],
    ['a=', /syntax error/],
    ['=3', /syntax error/],
    ['a=b', /syntax error/],
    ['a=1.5', /syntax error/],
    ['a=1=2', /syntax error/],
    ['a= 1', /syntax error/],
    ['a=0x10', /syntax error/],
    ['a=2147483648', /syntax error/],
    ['a=-1', /negative value/],
    ['ok=1,bad', /"bad"/],
  ])('%j is rejected', (text, message) => {
    let caught: unknown;
    try {
      parseVmodule(text);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ValueError);
    const err = caught as ValueError;
    expect(err.code).toBe('EVALUE');
    expect(err.flag).toBe('--vmodule');
    expect(err.message).toMatch(message);
  });
});

describe('formatVmodule', () => {
  test.each([
    [[], ''],
    [[{ filePattern: 'sync*', verbosity: 4 }], 'sync*=4'],
    [
      [
        { filePattern: 'sync*', verbosity: 4 },
        { filePattern: 'server', verbosity: 0 },
      ],
      'sync*=4,server=0',
    ],
  ])('%j -> %j and back', (list, text) => {
    expect(formatVmodule(list)).toBe(text);
    expect(parseVmodule(text)).toEqual(list);
  });
});

describe('verbosityResolver', () => {
  const resolve = verbosityResolver(2, [
    { filePattern: 'sync*', verbosity: 4 },
    { filePattern: 'server', verbosity: 1 },
    { filePattern: 'pod?', verbosity: 6 },
    { filePattern: 'a.b', verbosity: 7 },
    { filePattern: 'x*', verbosity: 3 },
    { filePattern: 'xy', verbosity: 5 },
  ]);

  test.each([
    ['agent', 2, 'no pattern matches: global level'],
    ['sync', 4, '* matches the empty string'],
    ['syncloop', 4, '* matches a suffix'],
    ['presync', 2, 'patterns are anchored'],
    ['server', 2, 'an entry never lowers the global level (klog checks the global level first)'],
    ['pod1', 6, '? matches one character'],
    ['pod12', 2, '? matches exactly one character'],
    ['a.b', 7, 'literal dot'],
    ['aXb', 2, 'dot is not a wildcard'],
    ['xy', 3, 'first matching entry wins'],
  ])('%s -> %i (%s)', (component, level) => {
    expect(resolve(component)).toBe(level);
    expect(resolve(component)).toBe(level);
  });

  test('no entries: every component gets the global level', () => {
    expect(verbosityResolver(5, [])('anything')).toBe(5);
  });
});

describe('globMatch', () => {
  test.each([
    ['pods', 'pods', true],
    ['pod*', 'pods', true],
    ['*s', 'pods', true],
    ['p?ds', 'pods', true],
    ['p?d', 'pods', false],
    ['*', '', true],
    ['', 'x', false],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXbYY', false],
    ['**', 'anything', true],
    ['*.go', 'x.ts', false],
  ])('%j against %j: %s', (pattern, name, want) => {
    expect(globMatch(pattern, name)).toBe(want);
  });

  // The regular expression this replaced backtracks exponentially here: it would
  // not answer within the test's timeout (years, not seconds).
  test('a pattern of many stars against a long name that does not match', () => {
    expect(globMatch(`${'*a'.repeat(40)}*b`, 'a'.repeat(200))).toBe(false);
    expect(verbosityResolver(0, [{ filePattern: `${'*a'.repeat(40)}*b`, verbosity: 5 }])('a'.repeat(200))).toBe(0);
  });
});
