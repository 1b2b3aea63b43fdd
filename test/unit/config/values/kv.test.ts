import { describe, expect, it } from 'vitest';
import {
  parseGoBool,
  parseHeaders,
  parseLangleSeparatedMap,
  parseMapStringBool,
  parseMapStringString,
} from '../../../../src/config/values/kv.js';
import { ValueError } from '../../../../src/errors.js';

describe('parseGoBool', () => {
  it.each([
    ['1', true], ['t', true], ['T', true], ['TRUE', true], ['true', true], ['True', true],
    ['0', false], ['f', false], ['F', false], ['FALSE', false], ['false', false], ['False', false],
  ])('parses %j as %s', (text, value) => {
    expect(parseGoBool(text)).toBe(value);
  });

  it.each([['yes'], ['tRUE'], [''], [' true'], ['2']])('rejects %j', (text) => {
    expect(() => parseGoBool(text)).toThrow(ValueError);
    expect(() => parseGoBool(text)).toThrow(
      `invalid boolean ${JSON.stringify(text)}: expected one of 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False`,
    );
  });
});

describe('parseMapStringString', () => {
  it.each([
    ['', {}],
    ['a=1', { a: '1' }],
    [' a = 1 , b=2 ', { a: '1', b: '2' }],
    ['a=1,,b=2', { a: '1', b: '2' }],
    ['a=1,a=2', { a: '2' }],
    ['a=', { a: '' }],
    ['a=b=c', { a: 'b=c' }],
  ])('parses %j', (text, map) => {
    expect(parseMapStringString(text)).toEqual(map);
  });

  it('keeps __proto__ as a plain key', () => {
    const m = parseMapStringString('__proto__=x');
    expect(Object.keys(m)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
  });

  it('honours other separators', () => {
    expect(parseMapStringString('a:1;b:2', { pairSep: ';', kvSep: ':' })).toEqual({ a: '1', b: '2' });
  });

  it.each([
    ['a', 'malformed pair "a": expected key=value'],
    ['a=1,b', 'malformed pair "b": expected key=value'],
    ['=1', 'malformed pair "=1": empty key'],
    [' =1', 'malformed pair " =1": empty key'],
  ])('rejects %j', (text, message) => {
    expect(() => parseMapStringString(text)).toThrow(ValueError);
    expect(() => parseMapStringString(text)).toThrow(message);
  });
});

describe('parseMapStringBool', () => {
  it.each([
    ['', {}],
    ['A=true,B=0', { A: true, B: false }],
    [' A = T ', { A: true }],
    ['A=true,A=false', { A: false }],
  ])('parses %j', (text, map) => {
    expect(parseMapStringBool(text)).toEqual(map);
  });

  it.each([
    ['A=yes', 'invalid value of A: yes, err: expected one of 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False'],
    ['A=', 'invalid value of A: , err: expected one of'],
    ['A', 'malformed pair "A": expected key=value'],
    ['=true', 'malformed pair "=true": empty key'],
  ])('rejects %j', (text, message) => {
    expect(() => parseMapStringBool(text)).toThrow(ValueError);
    expect(() => parseMapStringBool(text)).toThrow(message);
  });
});

describe('parseLangleSeparatedMap', () => {
  it.each([
    ['', {}],
    ['memory.available<100Mi, nodefs.available<10%', { 'memory.available': '100Mi', 'nodefs.available': '10%' }],
  ])('parses %j', (text, map) => {
    expect(parseLangleSeparatedMap(text)).toEqual(map);
  });

  it('rejects an entry without <', () => {
    expect(() => parseLangleSeparatedMap('memory.available=1Gi')).toThrow('malformed pair "memory.available=1Gi": expected key<value');
  });
});

describe('parseHeaders', () => {
  it.each([
    ['', []],
    ['Authorization:Bearer x', [['Authorization', 'Bearer x']]],
    ['X-Url: http://a:80/b', [['X-Url', 'http://a:80/b']]],
    ['A:1,A:2,B:3', [['A', '1'], ['A', '2'], ['B', '3']]],
    ['A:1,,B:', [['A', '1'], ['B', '']]],
    ['A:caf\u00e9\tok', [['A', 'caf\u00e9\tok']]],
  ])('parses %j', (text, headers) => {
    expect(parseHeaders(text)).toEqual(headers);
  });

  it.each([
    ['Authorization', 'malformed header "Authorization": expected name:value'],
    ['A:1,B', 'malformed header "B": expected name:value'],
    [':x', 'malformed header ":x": "" is not a valid header name'],
    ['Bad Name:x', 'malformed header "Bad Name:x": "Bad Name" is not a valid header name'],
    // Values the HTTP client would refuse on every poll: rejected when the flag is read.
    ['A:x\ny', 'malformed header "A:x\\ny": the value of "A" holds U+000A, which an HTTP header cannot carry'],
    ['A:x\u0000', 'the value of "A" holds U+0000'],
    ['A:x\u007f', 'the value of "A" holds U+007F'],
    ['A:\u20ac5', 'the value of "A" holds U+20AC'],
  ])('rejects %j', (text, message) => {
    expect(() => parseHeaders(text)).toThrow(ValueError);
    expect(() => parseHeaders(text)).toThrow(message);
  });
});
