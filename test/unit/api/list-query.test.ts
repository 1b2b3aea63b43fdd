import { describe, expect, it } from 'vitest';
import { parseDeleteQuery, parseListQuery, parseWriteQuery, queryBool } from '../../../src/api/list-query.js';
import { thrownApiError } from '../../helpers/api-error.js';

const thrown = thrownApiError;
const P = (s: string): URLSearchParams => new URLSearchParams(s);

describe('booleans as upstream parses them', () => {
  it.each([
    ['watch=1', true],
    ['watch=true', true],
    ['watch', true],
    ['watch=', true],
    ['watch=yes', true],
    ['watch=0', false],
    ['watch=false', false],
    ['watch=FALSE', false],
    ['', undefined],
  ])('%j → %s', (s, want) => expect(queryBool(P(s), 'watch')).toBe(want));
});

describe('the list set', () => {
  it('parses every parameter', () => {
    const l = parseListQuery(P('watch=1&allowWatchBookmarks=true&continue=c&fieldSelector=spec.nodeName%3Dn1&labelSelector=a%3Db&limit=500&resourceVersion=7&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=300&pretty=true'));
    expect(l).toMatchObject({ watch: true, allowWatchBookmarks: true, continue: 'c', limit: 500, resourceVersion: '7', resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, timeoutSeconds: 300, pretty: true });
    expect(parseListQuery(P('pretty=0')).pretty).toBe(false);
    expect(parseListQuery(P('pretty=yes')).pretty).toBe(false);
    expect(parseListQuery(P('pretty=')).pretty).toBeUndefined();
    expect(l.fieldSelector.exactMatch('spec.nodeName')).toBe('n1');
    expect(l.labelSelector.toString()).toBe('a=b');
  });
  it('defaults', () => {
    const l = parseListQuery(P(''));
    expect(l).toMatchObject({ watch: false, allowWatchBookmarks: false, continue: '', limit: 0, resourceVersion: '', resourceVersionMatch: '', sendInitialEvents: undefined, timeoutSeconds: undefined, pretty: undefined });
    expect(l.labelSelector.empty()).toBe(true);
    expect(l.fieldSelector.empty()).toBe(true);
  });
  it('ignores limit and continue with APIListChunking off, and a non-positive limit', () => {
    expect(parseListQuery(P('limit=5&continue=x'), { listChunking: false })).toMatchObject({ limit: 0, continue: '' });
    expect(parseListQuery(P('limit=-5')).limit).toBe(0);
  });
  it.each([
    ['limit=abc', 'limit: strconv.ParseInt: parsing "abc": invalid syntax'],
    ['limit=1.5', 'limit: strconv.ParseInt: parsing "1.5": invalid syntax'],
    ['limit=', 'limit: strconv.ParseInt: parsing "": invalid syntax'],
    ['timeoutSeconds=x', 'timeoutSeconds: strconv.ParseInt: parsing "x": invalid syntax'],
    ['timeoutSeconds=99999999999999999999', 'timeoutSeconds: strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    ['labelSelector=a%20in', "unable to parse requirement: found '' expected: '('"],
    ['fieldSelector=nope', "invalid selector: 'nope'; can't understand 'nope'"],
  ])('%j is a 400', (s, msg) => {
    const e = thrown(() => parseListQuery(P(s)));
    expect([e.code, e.reason]).toEqual([400, 'BadRequest']);
    expect(e.message).toContain(msg);
  });
  it('names the parameter in the cause', () => {
    expect(thrown(() => parseListQuery(P('limit=x'))).details?.causes?.[0]?.field).toBe('limit');
  });
});

describe('the write set', () => {
  it.each([
    ['', 'create', false, { dryRun: false, fieldManager: '', fieldValidation: 'Warn', force: false, pretty: undefined }],
    ['dryRun=All', 'create', false, { dryRun: true }],
    ['dryRun', 'update', false, { dryRun: true }],
    ['fieldValidation=Strict&fieldManager=agent', 'update', false, { fieldValidation: 'Strict', fieldManager: 'agent' }],
    ['fieldValidation=Ignore', 'patch', false, { fieldValidation: 'Ignore' }],
    ['fieldManager=m&force=true', 'patch', true, { force: true, fieldManager: 'm' }],
  ] as const)('%j (%s)', (s, verb, apply, want) => expect(parseWriteQuery(P(s), verb, apply)).toMatchObject(want));

  it.each([
    ['dryRun=Yes', 'create', false, 'CreateOptions.meta.platform.io "" is invalid: dryRun: Unsupported value: ["Yes"]: supported values: "All"'],
    ['fieldValidation=strict', 'update', false, 'UpdateOptions.meta.platform.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"'],
    ['force=true', 'patch', false, 'PatchOptions.meta.platform.io "" is invalid: force: Forbidden: may not be specified for non-apply patch'],
    ['', 'patch', true, 'PatchOptions.meta.platform.io "" is invalid: fieldManager: Required value: is required for apply patch'],
    [`fieldManager=${'m'.repeat(129)}`, 'create', false, 'CreateOptions.meta.platform.io "" is invalid: fieldManager: Too long: must have at most 128 bytes'],
    ['fieldManager=a%01b', 'create', false, 'CreateOptions.meta.platform.io "" is invalid: fieldManager: Invalid value: "a\\u0001b": invalid character U+0001 (at position 1)'],
    ['fieldManager=%C3%A9%0A', 'create', false, 'CreateOptions.meta.platform.io "" is invalid: fieldManager: Invalid value: "é\\n": invalid character U+000A (at position 2)'],
  ] as const)('%j (%s) is a 422', (s, verb, apply, msg) => {
    const e = thrown(() => parseWriteQuery(P(s), verb, apply));
    expect([e.code, e.reason, e.message]).toEqual([422, 'Invalid', msg]);
  });
});

describe('delete options', () => {
  it('parses', () => {
    expect(parseDeleteQuery(P('dryRun=All&gracePeriodSeconds=0&propagationPolicy=Background'))).toEqual({ dryRun: true, gracePeriodSeconds: 0, propagationPolicy: 'Background', pretty: undefined });
  });
  it.each([
    ['propagationPolicy=All', 'DeleteOptions.meta.platform.io "" is invalid: propagationPolicy: Unsupported value: "All": supported values: "Foreground", "Background", "Orphan", "nil"'],
    ['dryRun=x', 'DeleteOptions.meta.platform.io "" is invalid: dryRun: Unsupported value: ["x"]: supported values: "All"'],
  ])('%j is a 422', (s, msg) => expect(thrown(() => parseDeleteQuery(P(s))).message).toBe(msg));
  it('a bad grace period is a 400', () => expect(thrown(() => parseDeleteQuery(P('gracePeriodSeconds=z'))).code).toBe(400));
});
