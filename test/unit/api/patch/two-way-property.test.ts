// Property: for any two objects of a schema with merge lists, the two-way
// strategic patch takes the first to the second (upstream's own invariant).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch, createTwoWayMergePatch, schemaFor, type JsonObject, type PatchMessages } from '../../../../src/api/patch/index.js';

const MESSAGES: PatchMessages = {
  Item: { mergingList: { t: 'Item', s: 'merge', k: 'name' }, mergingIntList: { s: 'merge' }, simpleMap: {}, other: {} },
};
const S = schemaFor(MESSAGES, 'Item');

const scalar = fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 3 }), fc.boolean());
const simpleMap = fc.dictionary(fc.constantFrom('k1', 'k2', 'k3'), scalar, { maxKeys: 3 });
const leafItem = (name: string) => fc.record({ value: scalar, simpleMap }, { requiredKeys: [] }).map((r) => ({ name, ...r }) as JsonObject);
const uniqueNames = fc.uniqueArray(fc.constantFrom('1', '2', '3', '4', '5'), { maxLength: 5 });
const nested = uniqueNames.chain((names) => fc.tuple(...names.map(leafItem))).map((items) => items as JsonObject[]);
const item = (name: string) =>
  fc.record({ value: scalar, simpleMap, mergingList: nested, mergingIntList: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { maxLength: 5 }) }, { requiredKeys: [] }).map((r) => ({ name, ...r }) as JsonObject);
const items = uniqueNames.chain((names) => fc.tuple(...names.map(item))).map((xs) => xs as JsonObject[]);
const doc = fc.record({ mergingList: items, mergingIntList: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { maxLength: 6 }), simpleMap, other: scalar }, { requiredKeys: [] }) as fc.Arbitrary<JsonObject>;

describe('createTwoWayMergePatch round trip', () => {
  it('apply(original, twoWay(original, modified)) equals modified', () => {
    fc.assert(
      fc.property(doc, doc, (original, modified) => {
        expect(applyStrategicMergePatch(original, createTwoWayMergePatch(original, modified, S), S)).toEqual(modified);
      }),
      { numRuns: 300, seed: 1601 },
    );
  });
  it('the patch of an object to itself is empty', () => {
    fc.assert(
      fc.property(doc, (d) => {
        expect(createTwoWayMergePatch(d, structuredClone(d), S)).toEqual({});
      }),
      { numRuns: 100, seed: 1602 },
    );
  });
});
