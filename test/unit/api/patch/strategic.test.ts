import { describe, expect, it } from 'vitest';
import { applyPatch, applyStrategicMergePatch, schemaFor, schemaForKind, type Json, type JsonObject, type PatchMessages } from '../../../../src/api/patch/index.js';
import { thrownApiError } from '../../../helpers/api-error.js';

// A schema like upstream's strategicpatch test type (MergeItem).
const MESSAGES: PatchMessages = {
  Item: {
    mergingList: { t: 'Item', s: 'merge', k: 'name' },
    nonMergingList: { t: 'Item' },
    mergingIntList: { s: 'merge' },
    nonMergingIntList: {},
    simpleMap: {},
    mergeItemPtr: { t: 'Item' },
    replacingItem: { s: 'replace' },
    retainKeysMap: { t: 'Item', s: 'retainKeys' },
  },
};
const S = schemaFor(MESSAGES, 'Item');
const apply = (o: JsonObject, p: Json): JsonObject => applyStrategicMergePatch(o, p, S);
const thrown = thrownApiError;

describe('strategic merge patch: maps, nulls, replaced lists', () => {
  it.each<[string, JsonObject, Json, JsonObject]>([
    ['add a field', { name: '1' }, { value: '1' }, { name: '1', value: '1' }],
    ['null deletes a field', { name: '1', value: '1' }, { value: null }, { name: '1' }],
    ['null on a missing field is dropped', { name: '1' }, { other: null }, { name: '1' }],
    ['nested maps merge', { simpleMap: { a: '1', b: '2' } }, { simpleMap: { b: '3', c: '4', a: null } }, { simpleMap: { b: '3', c: '4' } }],
    ['$patch: replace on a map', { simpleMap: { a: '1' } }, { simpleMap: { $patch: 'replace', c: '3' } }, { simpleMap: { c: '3' } }],
    ['$patch: delete on a map', { simpleMap: { a: '1' }, name: 'x' }, { simpleMap: { $patch: 'delete' } }, { simpleMap: {}, name: 'x' }],
    ['$patch: delete at the top', { a: 1 }, { $patch: 'delete' }, {}],
    ['replace strategy on a map field', { replacingItem: { a: 1, b: 2 } }, { replacingItem: { c: 3 } }, { replacingItem: { c: 3 } }],
    ['lists without merge strategy are replaced', { nonMergingList: [{ name: '1' }, { name: '2' }] }, { nonMergingList: [{ name: '3' }] }, { nonMergingList: [{ name: '3' }] }],
    ['primitive lists without merge strategy are replaced', { nonMergingIntList: [1, 2] }, { nonMergingIntList: [2, 3] }, { nonMergingIntList: [2, 3] }],
    ['type change replaces', { simpleMap: { a: 1 } }, { simpleMap: 'x' }, { simpleMap: 'x' }],
    ['a new nested map has its nulls dropped', {}, { simpleMap: { a: null, b: 1 } }, { simpleMap: { b: 1 } }],
    ['$retainKeys clears keys not listed', { retainKeysMap: { name: 'a', value: 'b', other: 'c' } }, { retainKeysMap: { $retainKeys: ['name', 'value'], value: 'd' } }, { retainKeysMap: { name: 'a', value: 'd' } }],
  ])('%s', (_n, o, p, want) => expect(apply(o, p)).toEqual(want));

  it('does not modify its inputs', () => {
    const o = { mergingList: [{ name: '1', value: 'a' }] };
    const p = { mergingList: [{ name: '1', value: 'b' }] };
    apply(o, p);
    expect(o).toEqual({ mergingList: [{ name: '1', value: 'a' }] });
    expect(p).toEqual({ mergingList: [{ name: '1', value: 'b' }] });
  });
});

describe('strategic merge patch: merge lists', () => {
  const L = (...names: string[]): JsonObject[] => names.map((name) => ({ name }));
  it.each<[string, JsonObject, Json, JsonObject]>([
    ['merge by key and append', { mergingList: [{ name: '1', value: 'a' }, { name: '2' }] }, { mergingList: [{ name: '1', value: 'b', other: 'x' }, { name: '3' }] }, { mergingList: [{ name: '1', value: 'b', other: 'x' }, { name: '3' }, { name: '2' }] }],
    // Without $setElementOrder upstream puts patched items before server-only ones they are not ordered against
    // (kubectl patch adding a container lists it first).
    ['new items go before server-only items', { mergingList: L('1') }, { mergingList: L('2') }, { mergingList: L('2', '1') }],
    ['null inside a merged item deletes the field', { mergingList: [{ name: '1', value: 'a', other: 'o' }] }, { mergingList: [{ name: '1', value: null }] }, { mergingList: [{ name: '1', other: 'o' }] }],
    ['$patch: delete removes by key', { mergingList: L('1', '2', '3') }, { mergingList: [{ name: '2', $patch: 'delete' }] }, { mergingList: L('1', '3') }],
    ['$patch: delete of a missing key is a no-op', { mergingList: L('1') }, { mergingList: [{ name: '9', $patch: 'delete' }] }, { mergingList: L('1') }],
    ['$patch: replace element replaces the list', { mergingList: L('1', '2') }, { mergingList: [{ name: '3', value: '3' }, { $patch: 'replace' }] }, { mergingList: [{ name: '3', value: '3' }] }],
    ['$patch: replace with nothing else empties the list', { mergingList: L('1', '2') }, { mergingList: [{ $patch: 'replace' }] }, { mergingList: [] }],
    ['$setElementOrder adds in order', { mergingList: L('1', '2') }, { $setElementOrder: null, '$setElementOrder/mergingList': L('1', '3', '2'), mergingList: L('3') }, { $setElementOrder: null, mergingList: L('1', '3', '2') } as JsonObject],
    ['$setElementOrder reorders without changes', { mergingList: L('1', '2', '3') }, { '$setElementOrder/mergingList': L('3', '2', '1') }, { mergingList: L('3', '2', '1') }],
    ['$setElementOrder keeps server-only items around the patched ones', { mergingList: L('a', 'b', 'c', 'd') }, { '$setElementOrder/mergingList': L('d', 'b'), mergingList: [{ name: 'd', v: 1 }] }, { mergingList: [{ name: 'a' }, { name: 'c' }, { name: 'd', v: 1 }, { name: 'b' }] }],
    ['$setElementOrder with a delete', { mergingList: L('1', '2', '3') }, { '$setElementOrder/mergingList': L('3', '1'), mergingList: [{ name: '2', $patch: 'delete' }] }, { mergingList: L('3', '1') }],
    ['primitive merge list is a union', { mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }, { mergingIntList: [1, 2, 3] }],
    ['primitive merge list: additions before server-only values', { mergingIntList: [1] }, { mergingIntList: [3] }, { mergingIntList: [3, 1] }],
    ['primitive merge list with order', { mergingIntList: [1, 2] }, { '$setElementOrder/mergingIntList': [3, 2, 1], mergingIntList: [3] }, { mergingIntList: [3, 2, 1] }],
    ['$deleteFromPrimitiveList', { mergingIntList: [1, 2, 3, 2] }, { '$deleteFromPrimitiveList/mergingIntList': [2, 9] }, { mergingIntList: [1, 3] }],
    ['$deleteFromPrimitiveList with order and additions', { mergingIntList: [1, 2] }, { '$setElementOrder/mergingIntList': [3, 1], mergingIntList: [3], '$deleteFromPrimitiveList/mergingIntList': [2] }, { mergingIntList: [3, 1] }],
    ['$deleteFromPrimitiveList on a missing list is a no-op', { name: 'x' }, { '$deleteFromPrimitiveList/mergingIntList': [1] }, { name: 'x' }],
    ['a new merge list has its directives processed', {}, { mergingList: [{ name: '1' }, { name: '2', $patch: 'delete' }] }, { mergingList: L('1') }],
    ['nested merge lists merge', { mergingList: [{ name: '1', mergingList: L('a') }] }, { mergingList: [{ name: '1', mergingList: L('b') }] }, { mergingList: [{ name: '1', mergingList: L('b', 'a') }] }],
  ])('%s', (_n, o, p, want) => {
    const got = apply(o, p);
    if ('$setElementOrder' in want) {
      delete want['$setElementOrder'];
      delete got['$setElementOrder'];
    }
    expect(got).toEqual(want);
  });

  it.each<[string, JsonObject, Json, number, string]>([
    ['unknown $patch on a map', { simpleMap: {} }, { simpleMap: { $patch: 'frob' } }, 400, 'unknown patch type: frob in map: map[$patch:frob]'],
    ['$patch: merge in a list', { mergingList: [] }, { mergingList: [{ $patch: 'merge' }] }, 400, 'merging lists cannot yet be specified in the patch'],
    ['delete without merge key', { mergingList: L('1') }, { mergingList: [{ $patch: 'delete' }] }, 400, 'map: map[$patch:delete] does not contain declared merge key: name'],
    ['patch items out of $setElementOrder order', { mergingList: L('1', '2') }, { '$setElementOrder/mergingList': L('1', '2'), mergingList: L('2', '1') }, 400, "The order in patch list:\n[map[name:2] map[name:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2]]\n"],
    ['patch item missing from $setElementOrder', { mergingList: L('1') }, { '$setElementOrder/mergingList': L('1'), mergingList: L('3') }, 400, "The order in patch list:\n[map[name:3]]\n doesn't match $setElementOrder list:\n[map[name:1]]\n"],
    ['item without merge key', { mergingList: L('1') }, { mergingList: [{ value: 'x' }] }, 400, 'map: map[value:x] does not contain declared merge key: name'],
    ['bad $setElementOrder', { mergingList: L('1') }, { '$setElementOrder/mergingList': 'x' }, 400, 'invalid patch format of setElementOrder list'],
    ['bad $deleteFromPrimitiveList', { mergingIntList: [1] }, { '$deleteFromPrimitiveList/mergingIntList': 1 }, 400, 'invalid patch format of primitive list'],
    ['bad $retainKeys', { retainKeysMap: {} }, { retainKeysMap: { $retainKeys: 'name' } }, 400, 'invalid patch format of retainKeys'],
    ['a patch that is not an object', {}, [1], 400, 'invalid JSON document'],
  ])('%s', (_n, o, p, code, msg) => {
    const e = thrown(() => apply(o, p));
    expect([e.code, e.message]).toEqual([code, msg]);
  });
  it('retainKeys not covering the patch is a 422', () => {
    const e = thrown(() => apply({ retainKeysMap: { name: 'a' } }, { retainKeysMap: { $retainKeys: ['name'], value: 'b' } }));
    expect([e.code, e.details?.causes?.[0]?.message]).toEqual([422, "patch content doesn't match retainKeys list"]);
  });
  it('lists of lists are a 422', () => {
    expect(thrown(() => apply({ mergingIntList: [[1]] }, { mergingIntList: [[2]] })).code).toBe(422);
  });
});

describe('strategic merge patch on served kinds (generated schema)', () => {
  const node: JsonObject = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', finalizers: ['a'], labels: { x: 'y' } },
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory' },
        { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'starting' },
      ],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'n1' },
      ],
      images: [{ names: ['a'] }],
    },
  };
  it('conditions merge by type with $setElementOrder (the agent status patch)', () => {
    const patch = { status: { '$setElementOrder/conditions': [{ type: 'MemoryPressure' }, { type: 'Ready' }], conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: null }] } };
    const got = applyPatch('application/strategic-merge-patch+json', node, JSON.stringify(patch));
    expect((got['status'] as JsonObject)['conditions']).toEqual([
      { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory' },
      { type: 'Ready', status: 'True', reason: 'KubeletReady' },
    ]);
  });
  it('addresses: merge by type, and the agent\'s $patch: replace', () => {
    const merged = applyStrategicMergePatch(node, { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] } }, schemaForKind('v1', 'Node'));
    expect((merged['status'] as JsonObject)['addresses']).toEqual([
      { type: 'InternalIP', address: '10.0.0.2' },
      { type: 'Hostname', address: 'n1' },
    ]);
    const replaced = applyStrategicMergePatch(node, { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }, { type: 'InternalIP', address: '10.0.0.3' }, { $patch: 'replace' }] } }, schemaForKind('v1', 'Node'));
    expect((replaced['status'] as JsonObject)['addresses']).toEqual([
      { type: 'InternalIP', address: '10.0.0.2' },
      { type: 'InternalIP', address: '10.0.0.3' },
    ]);
  });
  it('images (no strategy) are replaced; finalizers merge; labels merge', () => {
    const got = applyStrategicMergePatch(node, { metadata: { finalizers: ['b'], labels: { z: '1' } }, status: { images: [{ names: ['b'] }] } }, schemaForKind('v1', 'Node'));
    expect(got['metadata']).toEqual({ name: 'n1', finalizers: ['b', 'a'], labels: { x: 'y', z: '1' } });
    expect((got['status'] as JsonObject)['images']).toEqual([{ names: ['b'] }]);
  });
  it('pod containers merge by name, ownerReferences by uid; other kinds replace lists but merge metadata', () => {
    const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { ownerReferences: [{ uid: 'u1', name: 'a' }] }, spec: { containers: [{ name: 'c', image: 'i1' }, { name: 'd', image: 'i2' }] } };
    const got = applyStrategicMergePatch(pod, { metadata: { ownerReferences: [{ uid: 'u2', name: 'b' }] }, spec: { containers: [{ name: 'd', image: 'i3' }] } }, schemaForKind('v1', 'Pod'));
    expect(got['spec']).toEqual({ containers: [{ name: 'c', image: 'i1' }, { name: 'd', image: 'i3' }] });
    expect((got['metadata'] as JsonObject)['ownerReferences']).toEqual([{ uid: 'u2', name: 'b' }, { uid: 'u1', name: 'a' }]);
    const other = applyStrategicMergePatch({ items: [1], metadata: { finalizers: ['a'] } }, { items: [2], metadata: { finalizers: ['b'] } }, schemaForKind('rbac.authorization.platform.io/v1', 'Role'));
    expect(other).toEqual({ items: [2], metadata: { finalizers: ['b', 'a'] } });
  });
  it('inlined Go structs are flattened: volumes by name reach the ephemeral claim template; ephemeral containers merge env by name', () => {
    const pod: JsonObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      spec: {
        volumes: [{ name: 'v', ephemeral: { volumeClaimTemplate: { metadata: { finalizers: ['a'] } } } }],
        ephemeralContainers: [{ name: 'e', env: [{ name: 'A', value: '1' }] }],
      },
    };
    const got = applyStrategicMergePatch(
      pod,
      { spec: { volumes: [{ name: 'v', ephemeral: { volumeClaimTemplate: { metadata: { finalizers: ['b'] } } } }], ephemeralContainers: [{ name: 'e', env: [{ name: 'B', value: '2' }] }] } },
      schemaForKind('v1', 'Pod'),
    );
    expect(got['spec']).toEqual({
      volumes: [{ name: 'v', ephemeral: { volumeClaimTemplate: { metadata: { finalizers: ['b', 'a'] } } } }],
      ephemeralContainers: [{ name: 'e', env: [{ name: 'B', value: '2' }, { name: 'A', value: '1' }] }],
    });
  });
  it('pod status conditions and podIPs merge', () => {
    const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', status: { podIPs: [{ ip: '1' }], conditions: [{ type: 'Ready', status: 'False' }] } };
    const got = applyStrategicMergePatch(pod, { status: { podIPs: [{ ip: '2' }], conditions: [{ type: 'Ready', status: 'True' }] } }, schemaForKind('v1', 'Pod'));
    expect(got['status']).toEqual({ podIPs: [{ ip: '2' }, { ip: '1' }], conditions: [{ type: 'Ready', status: 'True' }] });
  });
  it('serviceaccount secrets merge by name', () => {
    const sa: JsonObject = { apiVersion: 'v1', kind: 'ServiceAccount', secrets: [{ name: 'a' }] };
    expect(applyStrategicMergePatch(sa, { secrets: [{ name: 'b' }] }, schemaForKind('v1', 'ServiceAccount'))['secrets']).toEqual([{ name: 'b' }, { name: 'a' }]);
  });
});
