import { describe, expect, it } from 'vitest';
import { classifyGet, classifyList, classifyWatch, parseResourceVersion, type VersionQuery } from '../../../src/api/resource-version.js';
import { thrownApiError } from '../../helpers/api-error.js';

const q = (o: Partial<VersionQuery>): VersionQuery => ({ resourceVersion: '', resourceVersionMatch: '', limit: 0, continue: '', sendInitialEvents: undefined, ...o });
const thrown = thrownApiError;
const INVALID = (msg: string): string => `ListOptions.meta.platform.io "" is invalid: ${msg}`;

describe('resourceVersion values', () => {
  it.each([
    ['', 0],
    ['0', 0],
    ['17', 17],
    ['007', 7],
  ])('%j → %d', (rv, n) => expect(parseResourceVersion(rv)).toBe(n));
  it.each([
    ['abc', 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
    ['-1', 'invalid resource version: resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax'],
    ['99999999999999999999', 'invalid resource version: resourceVersion: Invalid value: "99999999999999999999": strconv.ParseUint: parsing "99999999999999999999": value out of range'],
  ])('%j is a 400', (rv, msg) => {
    const e = thrown(() => parseResourceVersion(rv));
    expect([e.code, e.reason, e.message]).toEqual([400, 'BadRequest', msg]);
  });
});

describe('get (§4.13)', () => {
  it.each([
    ['', { kind: 'MostRecent' }],
    ['0', { kind: 'Any' }],
    ['5', { kind: 'NotOlderThan', rv: 5 }],
  ])('rv %j', (rv, want) => expect(classifyGet(rv)).toEqual(want));
  it('non-numeric is a 400', () => expect(thrown(() => classifyGet('x')).code).toBe(400));
});

describe('list table (§4.13), every cell', () => {
  const FORBID_NO_RV = INVALID('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  const FORBID_EXACT_0 = INVALID('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  // [match, paging, rv, expected semantic or error message]
  const rows: Array<[string, 'none' | 'limit' | 'continue', string, object | string]> = [
    ['', 'none', '', { kind: 'MostRecent' }],
    ['', 'none', '0', { kind: 'Any' }],
    ['', 'none', '9', { kind: 'NotOlderThan', rv: 9 }],
    ['', 'limit', '', { kind: 'MostRecent' }],
    ['', 'limit', '0', { kind: 'Any' }],
    ['', 'limit', '9', { kind: 'Exact', rv: 9 }],
    ['', 'continue', '', { kind: 'Continue', token: 'tok' }],
    ['', 'continue', '0', { kind: 'Continue', token: 'tok' }],
    ['', 'continue', '9', '400:specifying resource version is not allowed when using continue'],
    ['Exact', 'none', '', FORBID_NO_RV],
    ['Exact', 'none', '0', FORBID_EXACT_0],
    ['Exact', 'none', '9', { kind: 'Exact', rv: 9 }],
    ['Exact', 'limit', '', FORBID_NO_RV],
    ['Exact', 'limit', '0', FORBID_EXACT_0],
    ['Exact', 'limit', '9', { kind: 'Exact', rv: 9 }],
    ['NotOlderThan', 'none', '', FORBID_NO_RV],
    ['NotOlderThan', 'none', '0', { kind: 'Any' }],
    ['NotOlderThan', 'none', '9', { kind: 'NotOlderThan', rv: 9 }],
    ['NotOlderThan', 'limit', '', FORBID_NO_RV],
    ['NotOlderThan', 'limit', '0', { kind: 'Any' }],
    ['NotOlderThan', 'limit', '9', { kind: 'NotOlderThan', rv: 9 }],
  ];
  it.each(rows)('match=%j paging=%s rv=%j', (match, paging, rv, want) => {
    const query = q({ resourceVersionMatch: match, resourceVersion: rv, limit: paging === 'none' ? 0 : 500, continue: paging === 'continue' ? 'tok' : '' });
    if (typeof want === 'object') {
      expect(classifyList(query)).toEqual(want);
      return;
    }
    const e = thrown(() => classifyList(query));
    if (want.startsWith('400:')) expect([e.code, e.reason, e.message]).toEqual([400, 'BadRequest', want.slice(4)]);
    else {
      expect([e.code, e.reason, e.message]).toEqual([422, 'Invalid', want]);
      expect(e.details).toMatchObject({ group: 'meta.platform.io', kind: 'ListOptions', name: '' });
    }
  });

  it.each([
    [q({ resourceVersionMatch: 'Exact', resourceVersion: '5', continue: 'tok' }), INVALID('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided')],
    [q({ resourceVersionMatch: 'Newest', resourceVersion: '5' }), INVALID('resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""')],
    [q({ sendInitialEvents: true }), INVALID('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list')],
    [q({ sendInitialEvents: false, resourceVersionMatch: 'Exact' }), INVALID('[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list]')],
  ])('other ListOptions messages: %j', (query, msg) => {
    const e = thrown(() => classifyList(query));
    expect([e.code, e.message]).toEqual([422, msg]);
  });
  it('non-numeric rv is a 400', () => expect(thrown(() => classifyList(q({ resourceVersion: 'x' }))).code).toBe(400));
});

describe('watch (§4.13, §4.5 rule 6)', () => {
  it.each([
    [q({}), { kind: 'StartMostRecent' }],
    [q({ resourceVersion: '0' }), { kind: 'StartAny' }],
    [q({ resourceVersion: '12' }), { kind: 'StartExact', rv: 12 }],
    [q({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }), { kind: 'StreamingList', rv: undefined }],
    [q({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '0' }), { kind: 'StreamingList', rv: 0 }],
    [q({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '40' }), { kind: 'StreamingList', rv: 40 }],
    [q({ sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan' }), { kind: 'StartCurrent' }],
    [q({ sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan', resourceVersion: '4' }), { kind: 'StartExact', rv: 4 }],
  ])('%j', (query, want) => expect(classifyWatch(query, true)).toEqual(want));

  it.each([
    [q({ sendInitialEvents: true }), true, INVALID('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan')],
    [q({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }), false, INVALID('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled')],
    [q({ resourceVersionMatch: 'NotOlderThan', resourceVersion: '1' }), true, INVALID('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided')],
    [q({ sendInitialEvents: true, resourceVersionMatch: 'Exact', resourceVersion: '1' }), true, INVALID('[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]')],
    [q({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', continue: 'c' }), true, INVALID('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided')],
  ])('%j (WatchList %s) is 422', (query, gate, msg) => {
    const e = thrown(() => classifyWatch(query, gate));
    expect([e.code, e.reason, e.message]).toEqual([422, 'Invalid', msg]);
  });
  it('non-numeric rv is a 400', () => expect(thrown(() => classifyWatch(q({ resourceVersion: 'x' }), false)).code).toBe(400));
});
