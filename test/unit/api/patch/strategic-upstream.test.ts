// Cases from upstream's strategicpatch tests (apimachinery), restated as
// tables over a schema shaped like upstream's test type: what applying a
// patch gives, and what the two-way diff sends.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/api/errors.js';
import { applyStrategicMergePatch, createTwoWayMergePatch, schemaFor, type Json, type JsonObject, type PatchMessages } from '../../../../src/api/patch/index.js';

const MESSAGES: PatchMessages = {
  Item: {
    mergingList: { t: 'Item', s: 'merge', k: 'name' },
    mergeItemPtr: { t: 'Item', s: 'merge', k: 'name' },
    mergingIntList: { s: 'merge' },
    retainKeysMap: { t: 'Item', s: 'retainKeys' },
    retainKeysMergingList: { t: 'Item', s: 'merge,retainKeys', k: 'name' },
  },
};
const S = schemaFor(MESSAGES, 'Item');
const N = (...names: Array<string | number>): JsonObject[] => names.map((name) => ({ name }));

describe('applying (upstream cases)', () => {
  it.each<[string, JsonObject, Json, JsonObject]>([
    ['preserve the order from the patch in a merging int list', { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1, 2] }, { mergingIntList: [3, 1, 2] }],
    ['preserve the patch order, server-only values keep their place', { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1] }, { mergingIntList: [2, 3, 1] }],
    ['$setElementOrder names an item missing from the list (maps)', { mergingList: N(1, 3) }, { '$setElementOrder/mergingList': N(3, 2, 1), mergingList: [{ name: 3, value: 3 }, { name: 1, value: 1 }] }, { mergingList: [{ name: 3, value: 3 }, { name: 1, value: 1 }] }],
    ['$setElementOrder names an item missing from the list (ints)', { mergingIntList: [1, 3] }, { '$setElementOrder/mergingIntList': [3, 2, 1] }, { mergingIntList: [3, 1] }],
    ['delete items in lists of scalars, server-only values stay', { mergingIntList: [1, 2, 3, 4] }, { '$setElementOrder/mergingIntList': [1, 2], '$deleteFromPrimitiveList/mergingIntList': [3] }, { mergingIntList: [1, 2, 4] }],
    ['server-only values interleave by their live positions', { mergingIntList: [1, 2, 7, 9, 8, 3, 4] }, { '$setElementOrder/mergingIntList': [2, 1, 4, 3] }, { mergingIntList: [2, 1, 7, 9, 8, 4, 3] }],
    ['set element order with duplicates (maps)', { mergingList: [{ name: 1 }, { name: 2, value: 'dup1' }, { name: 3 }, { name: 2, value: 'dup2' }, { name: 4 }] }, { '$setElementOrder/mergingList': N(2, 1, 4, 3, 2) }, { mergingList: [{ name: 2, value: 'dup1' }, { name: 2, value: 'dup2' }, { name: 1 }, { name: 4 }, { name: 3 }] }],
    ['set element order with duplicates (ints)', { mergingIntList: [1, 2, 3, 2, 4] }, { '$setElementOrder/mergingIntList': [2, 1, 4, 3, 2] }, { mergingIntList: [2, 2, 1, 4, 3] }],
    ['nested patch merge with empty list: the delete of a missing item is dropped', { name: 'hi' }, { mergingList: [{ name: 'hello' }, { $patch: 'delete', name: 'doesntexist' }] }, { name: 'hi', mergingList: [{ name: 'hello' }] }],
    ['retainKeys map with a nested merging list', { retainKeysMap: { name: 'foo', mergingList: N('a', 'b', 'c') } }, { retainKeysMap: { $retainKeys: ['mergingList', 'name', 'value'], value: 'bar' } }, { retainKeysMap: { name: 'foo', mergingList: N('a', 'b', 'c'), value: 'bar' } }],
  ])('%s', (_n, original, patch, want) => expect(applyStrategicMergePatch(original, patch, S)).toEqual(want));

  it("checks that $setElementOrder and the patch list agree (upstream: \"doesn't match\")", () => {
    const f = (): JsonObject => applyStrategicMergePatch({ mergingList: N(1, 3, 2) }, { '$setElementOrder/mergingList': N(1, 2, 3), mergingList: [{ name: 3, value: 3 }, { name: 1, value: 1 }] }, S);
    expect(f).toThrow(ApiError);
    expect(f).toThrow(/doesn't match/);
  });
});

describe('two-way diff (upstream cases)', () => {
  it.each<[string, JsonObject, JsonObject, JsonObject]>([
    ['retainKeys map drops a field', { retainKeysMap: { name: 'foo', mergingIntList: [1, 2, 3] } }, { retainKeysMap: { name: 'foo' } }, { retainKeysMap: { $retainKeys: ['name'], mergingIntList: null } }],
    ['retainKeys map gains a field, nested merging list unchanged', { retainKeysMap: { name: 'foo', mergingList: N('a', 'b') } }, { retainKeysMap: { name: 'foo', value: 'bar', mergingList: N('a', 'b') } }, { retainKeysMap: { $retainKeys: ['mergingList', 'name', 'value'], value: 'bar' } }],
    ['retainKeys map adds an item in a nested merging list', { retainKeysMap: { name: 'foo', mergingList: N('a', 'b') } }, { retainKeysMap: { name: 'foo', mergingList: N('a', 'b', 'c') } }, { retainKeysMap: { $retainKeys: ['mergingList', 'name'], '$setElementOrder/mergingList': N('a', 'b', 'c'), mergingList: N('c') } }],
    ['retainKeys merging list item drops a field', { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'x' }] }, { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo' }] }, { '$setElementOrder/retainKeysMergingList': N('bar', 'foo'), retainKeysMergingList: [{ $retainKeys: ['name'], name: 'foo', value: null }] }],
    [
      'delete and reorder in one list, reorder in another',
      { mergingList: [{ name: 'a', value: 'a' }, { name: 'b', value: 'b' }], mergeItemPtr: [{ name: 'c', value: 'c' }, { name: 'd', value: 'd' }] },
      { mergingList: [{ name: 'b', value: 'b' }], mergeItemPtr: [{ name: 'd', value: 'd' }, { name: 'c', value: 'c' }] },
      { '$setElementOrder/mergingList': N('b'), '$setElementOrder/mergeItemPtr': N('d', 'c'), mergingList: [{ $patch: 'delete', name: 'a' }] },
    ],
    ['delete items in lists of scalars', { mergingIntList: [1, 2, 3] }, { mergingIntList: [1, 2] }, { '$setElementOrder/mergingIntList': [1, 2], '$deleteFromPrimitiveList/mergingIntList': [3] }],
  ])('%s', (_n, original, modified, want) => {
    const patch = createTwoWayMergePatch(original, modified, S);
    expect(patch).toEqual(want);
    expect(applyStrategicMergePatch(original, patch, S)).toEqual(modified);
  });
});
