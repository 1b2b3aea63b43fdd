import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch, createTwoWayMergePatch, nodeStatusPatch, schemaFor, schemaForKind, type JsonObject, type PatchMessages } from '../../../../src/api/patch/index.js';

const MESSAGES: PatchMessages = {
  Item: { mergingList: { t: 'Item', s: 'merge', k: 'name' }, nonMergingList: {}, mergingIntList: { s: 'merge' }, replacingItem: { s: 'replace' } },
};
const S = schemaFor(MESSAGES, 'Item');
const L = (...names: string[]): JsonObject[] => names.map((name) => ({ name }));

describe('createTwoWayMergePatch (upstream two-way cases)', () => {
  it.each<[string, JsonObject, JsonObject, JsonObject]>([
    ['nothing changed', { a: 1, mergingList: L('1') }, { a: 1, mergingList: L('1') }, {}],
    ['field added, changed and removed', { a: 1, b: 2, c: { d: 1, e: 2 } }, { a: 3, c: { d: 1 }, f: 'x' }, { a: 3, b: null, c: { e: null }, f: 'x' }],
    ['item added to a merge list', { mergingList: L('1') }, { mergingList: L('1', '2') }, { '$setElementOrder/mergingList': L('1', '2'), mergingList: L('2') }],
    ['item changed in a merge list', { mergingList: [{ name: '1', value: 'a' }, { name: '2' }] }, { mergingList: [{ name: '1', value: 'b' }, { name: '2' }] }, { '$setElementOrder/mergingList': L('1', '2'), mergingList: [{ name: '1', value: 'b' }] }],
    ['item removed from a merge list', { mergingList: L('1', '2') }, { mergingList: L('1') }, { '$setElementOrder/mergingList': L('1'), mergingList: [{ $patch: 'delete', name: '2' }] }],
    ['merge list reordered', { mergingList: L('1', '2') }, { mergingList: L('2', '1') }, { '$setElementOrder/mergingList': L('2', '1') }],
    ['field removed inside a list item', { mergingList: [{ name: '1', value: 'a' }] }, { mergingList: [{ name: '1' }] }, { '$setElementOrder/mergingList': L('1'), mergingList: [{ name: '1', value: null }] }],
    ['primitive merge list: add and delete', { mergingIntList: [1, 2] }, { mergingIntList: [1, 3] }, { '$deleteFromPrimitiveList/mergingIntList': [2], '$setElementOrder/mergingIntList': [1, 3], mergingIntList: [3] }],
    ['primitive merge list reordered', { mergingIntList: [1, 2] }, { mergingIntList: [2, 1] }, { '$setElementOrder/mergingIntList': [2, 1] }],
    ['non-merge list replaced', { nonMergingList: L('1', '2') }, { nonMergingList: L('2') }, { nonMergingList: L('2') }],
    ['replace-strategy map sent whole', { replacingItem: { a: 1, b: 2 } }, { replacingItem: { a: 1 } }, { replacingItem: { a: 1 } }],
    ['type change', { a: { b: 1 } }, { a: [1] }, { a: [1] }],
  ])('%s', (_n, original, modified, want) => {
    const patch = createTwoWayMergePatch(original, modified, S);
    expect(patch).toEqual(want);
    // And it takes original to modified.
    expect(applyStrategicMergePatch(original, patch, S)).toEqual(modified);
  });

  it('emits keys sorted, so equal changes give equal bytes', () => {
    const p = createTwoWayMergePatch({ z: 1, a: 1 }, { z: 2, a: 2 }, S);
    expect(JSON.stringify(p)).toBe('{"a":2,"z":2}');
  });
});

describe('the agent node-status patch (wire notes (g))', () => {
  const oldNode: JsonObject = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', resourceVersion: '5' },
    spec: { podCIDR: '10.1.0.0/24' },
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: '2026-01-01T00:00:00Z' },
        { type: 'Ready', status: 'False', lastHeartbeatTime: '2026-01-01T00:00:00Z' },
      ],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'n1' },
      ],
    },
  };
  const withStatus = (status: JsonObject, spec?: JsonObject): JsonObject => ({ ...oldNode, ...(spec === undefined ? {} : { spec }), status: { ...(oldNode['status'] as JsonObject), ...status } });

  it('conditions by type with $setElementOrder; the spec is not sent', () => {
    const newNode = withStatus(
      {
        conditions: [
          { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: '2026-01-01T00:00:10Z' },
          { type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:10Z' },
        ],
      },
      { podCIDR: 'changed' },
    );
    const patch = nodeStatusPatch(oldNode, newNode);
    expect(patch).toEqual({
      status: {
        '$setElementOrder/conditions': [{ type: 'MemoryPressure' }, { type: 'Ready' }],
        conditions: [
          { lastHeartbeatTime: '2026-01-01T00:00:10Z', type: 'MemoryPressure' },
          { lastHeartbeatTime: '2026-01-01T00:00:10Z', status: 'True', type: 'Ready' },
        ],
      },
    });
    const applied = applyStrategicMergePatch(oldNode, patch, schemaForKind('v1', 'Node'));
    expect(applied['status']).toEqual(newNode['status']);
    expect(applied['spec']).toEqual(oldNode['spec']);
  });

  it('changed addresses are replaced wholesale with a $patch: replace element', () => {
    const addresses = [
      { type: 'InternalIP', address: '10.0.0.2' },
      { type: 'InternalIP', address: '10.0.0.3' },
      { type: 'Hostname', address: 'n1' },
    ];
    const patch = nodeStatusPatch(oldNode, withStatus({ addresses }));
    expect(patch).toEqual({ status: { addresses: [...addresses, { $patch: 'replace' }] } });
    const applied = applyStrategicMergePatch(oldNode, patch, schemaForKind('v1', 'Node'));
    expect((applied['status'] as JsonObject)['addresses']).toEqual(addresses);
  });

  it('first addresses (old list empty) go through the normal merge', () => {
    const bare: JsonObject = { ...oldNode, status: { conditions: (oldNode['status'] as JsonObject)['conditions']! } };
    const patch = nodeStatusPatch(bare, oldNode);
    expect(patch).toEqual({ status: { addresses: (oldNode['status'] as JsonObject)['addresses']! } });
  });

  it('nothing changed → {}', () => expect(nodeStatusPatch(oldNode, structuredClone(oldNode))).toEqual({}));
});
