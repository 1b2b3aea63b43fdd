import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { thrownApiError } from '../../helpers/api-error.js';
import { checkFieldsSupported, labelSelectorFromObject, labelSelectorOf, newRequirement, parseFieldSelector, parseLabelSelector } from '../../../src/api/selectors.js';

const err = thrownApiError;

describe('label selectors: parse, print, match', () => {
  const labels = { a: 'b', n: '5', x: 'y' };
  it.each([
    ['', '', true],
    ['a=b', 'a=b', true],
    ['a==b', 'a==b', true],
    ['a!=b', 'a!=b', false],
    ['a!=c', 'a!=c', true],
    ['zz!=c', 'zz!=c', true],
    ['a in (b,c)', 'a in (b,c)', true],
    ['a in (c, b ,b)', 'a in (b,c)', true],
    ['a notin (b)', 'a notin (b)', false],
    ['zz notin (b)', 'zz notin (b)', true],
    ['a', 'a', true],
    ['!a', '!a', false],
    ['!zz', '!zz', true],
    ['n>4', 'n>4', true],
    ['n<4', 'n<4', false],
    ['zz>1', 'zz>1', false],
    ['n<99999999999999999', 'n<99999999999999999', true],
    ['a>1', 'a>1', false],
    ['  x = y ,  a  ', 'a,x=y', true],
    ['x=,a', 'a,x=', false],
    ['a in ()', 'a in ()', false],
    ['a in (,b)', 'a in (,b)', true],
    ['x in (in,notin)', 'x in (in,notin)', false],
    ['example.com/k=v', 'example.com/k=v', false],
  ])('%j', (text, printed, match) => {
    const s = parseLabelSelector(text);
    expect(s.toString()).toBe(printed);
    expect(s.matches(labels)).toBe(match);
  });

  it.each([
    ['a=b,', "found '', expected: identifier after ','"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a>b', "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ['a>99999999999999999999', "for 'Gt', 'Lt' operators, the value must be an integer"],
    ['a>+4', 'values[0][a]: Invalid value: "+4": a valid label must be an empty string'],
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['a=>', "unable to parse requirement: found '>', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    [
      '-x',
      "unable to parse requirement: <nil>: Invalid value: \"-x\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
    ['a/b/c', 'unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of'],
    ['/b', 'unable to parse requirement: <nil>: Invalid value: "/b": prefix part must be non-empty'],
    ['A_B/c', 'unable to parse requirement: <nil>: Invalid value: "A_B/c": prefix part a lowercase RFC 1123 subdomain'],
    ['a=-b', 'unable to parse requirement: values[0][a]: Invalid value: "-b": a valid label must be an empty string'],
    [`a=${'v'.repeat(64)}`, 'must be no more than 63 characters'],
    [`${'k'.repeat(64)}`, 'name part must be no more than 63 characters'],
  ])('%j is a 400: %s', (text, msg) => {
    const e = err(() => parseLabelSelector(text));
    expect(e.code).toBe(400);
    expect(e.reason).toBe('BadRequest');
    expect(e.message).toContain(msg);
  });

  it('requiresExactMatch only for a single-valued =, == or in', () => {
    expect(parseLabelSelector('a=b,c').requiresExactMatch('a')).toBe('b');
    expect(parseLabelSelector('a in (b)').requiresExactMatch('a')).toBe('b');
    expect(parseLabelSelector('a in (b,c)').requiresExactMatch('a')).toBeUndefined();
    expect(parseLabelSelector('a!=b').requiresExactMatch('a')).toBeUndefined();
  });

  it('matches undefined labels as an empty set', () => {
    expect(parseLabelSelector('!a').matches(undefined)).toBe(true);
    expect(parseLabelSelector('a').matches(undefined)).toBe(false);
  });
});

describe('LabelSelector objects', () => {
  it.each([
    [null, '', false, false],
    [{}, '', true, true],
    [{ matchLabels: { a: 'b' } }, 'a=b', true, false],
    [{ matchExpressions: [{ key: 'x', operator: 'In', values: ['y', 'w'] }] }, 'x in (w,y)', true, false],
    [{ matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['z'] }] }, 'x notin (z)', true, false],
    [{ matchExpressions: [{ key: 'x', operator: 'Exists' }] }, 'x', true, false],
    [{ matchLabels: { b: 'c' }, matchExpressions: [{ key: 'zz', operator: 'DoesNotExist' }] }, '!zz', false, false],
  ])('%j', (obj, printed, match, empty) => {
    const s = labelSelectorFromObject(obj);
    expect(s.toString().endsWith(printed)).toBe(true);
    expect(s.matches({ a: 'b', x: 'y' })).toBe(match);
    expect(s.empty()).toBe(empty);
  });
  it('sorts by key when printing', () => {
    expect(labelSelectorFromObject({ matchLabels: { b: 'c' }, matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }).toString()).toBe('!a,b=c');
  });
  it.each([
    [{ matchExpressions: [{ key: 'x', operator: 'In', values: [] }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: 'x', operator: 'Exists', values: ['a'] }] }, 'values: Invalid value: []string{"a"}: values set must be empty for exists and does not exist'],
    [{ matchExpressions: [{ key: 'x', operator: 'Gt', values: ['1'] }] }, '"Gt" is not a valid label selector operator'],
    [{ matchLabels: { 'a b': 'c' } }, 'key: Invalid value: "a b"'],
  ])('%j is a 400', (obj, msg) => {
    expect(err(() => labelSelectorFromObject(obj)).message).toContain(msg);
  });
});

describe('field selectors', () => {
  const obj: Record<string, string> = { 'spec.nodeName': 'n1', 'metadata.name': 'a,b=c\\' };
  const get = (f: string): string | undefined => obj[f];
  it.each([
    ['', '', true],
    ['spec.nodeName=n1', 'spec.nodeName=n1', true],
    ['spec.nodeName==n1', 'spec.nodeName=n1', true],
    ['spec.nodeName!=n1', 'spec.nodeName!=n1', false],
    ['spec.nodeName=n2', 'spec.nodeName=n2', false],
    ['spec.nodeName=', 'spec.nodeName=', false],
    ['status.phase=', 'status.phase=', true],
    ['metadata.name=a\\,b\\=c\\\\', 'metadata.name=a\\,b\\=c\\\\', true],
    ['spec.nodeName=n1,metadata.name!=x', 'metadata.name!=x,spec.nodeName=n1', true],
    ['spec.nodeName=n1,', 'spec.nodeName=n1', true],
  ])('%j', (text, printed, match) => {
    const s = parseFieldSelector(text);
    expect(s.toString()).toBe(printed);
    expect(s.matches(get)).toBe(match);
  });
  it.each([
    ['abc', "invalid selector: 'abc'; can't understand 'abc'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=b=c', 'invalid field selector: unescaped character in value: ='],
  ])('%j is a 400: %s', (text, msg) => {
    const e = err(() => parseFieldSelector(text));
    expect(e.code).toBe(400);
    expect(e.message).toBe(msg);
  });
  it('lists fields, pins exact matches and refuses unsupported fields', () => {
    const s = parseFieldSelector('spec.nodeName=n1,metadata.name!=x,spec.nodeName!=n2');
    expect(s.fields().sort()).toEqual(['metadata.name', 'spec.nodeName']);
    expect(s.exactMatch('spec.nodeName')).toBe('n1');
    expect(s.exactMatch('metadata.name')).toBeUndefined();
    expect(() => checkFieldsSupported(s, ['metadata.name', 'spec.nodeName'])).not.toThrow();
    const e = err(() => checkFieldsSupported(s, ['metadata.name']));
    expect([e.code, e.message]).toEqual([400, 'field label not supported: spec.nodeName']);
  });
});

describe('printing and parsing agree', () => {
  it('parse(print(s)) has the same requirements and matches the same labels', () => {
    const key = fc.constantFrom('a', 'b.c/d', 'example.com/k', 'in', 'x_y');
    const value = fc.constantFrom('', 'v', 'w-1', 'in', 'notin', 'Z.z');
    const int = fc.integer({ min: -5, max: 5 }).map(String).filter((v) => !v.startsWith('-'));
    const req = fc.oneof(
      fc.tuple(key, fc.constantFrom('=' as const, '==' as const, '!=' as const), value).map(([k, op, v]) => newRequirement(k, op, [v])),
      fc.tuple(key, fc.constantFrom('in' as const, 'notin' as const), fc.uniqueArray(value, { minLength: 1, maxLength: 3 })).map(([k, op, vs]) => newRequirement(k, op, vs)),
      fc.tuple(key, fc.constantFrom('exists' as const, '!' as const)).map(([k, op]) => newRequirement(k, op, [])),
      fc.tuple(key, fc.constantFrom('gt' as const, 'lt' as const), int).map(([k, op, v]) => newRequirement(k, op, [v])),
    );
    const labels = fc.dictionary(key, fc.oneof(value, int), { maxKeys: 4 });
    fc.assert(
      fc.property(fc.array(req, { maxLength: 4 }), labels, (reqs, ls) => {
        const s = labelSelectorOf(reqs);
        const back = parseLabelSelector(s.toString());
        expect(back.requirements).toEqual(s.requirements);
        expect(back.matches(ls)).toBe(s.matches(ls));
      }),
      { numRuns: 300, seed: 1603 },
    );
  });
});
