// The server's codec adapters: stored values own their memory (no pinned
// pool slab), and list pages from stored values equal encoding the decoded
// list, falling back (undefined) for kinds stored as JSON.
import { describe, expect, it } from 'vitest';
import { loadApiCodec } from '../../../../src/api/codec/index.js';
import { storageCodec, wireCodec } from '../../../../src/apiserver/assemble/wire.js';
import type { ApiObject } from '../../../../src/apiserver/registry/types.js';

const POD: ApiObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
const ROLE: ApiObject = { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'ns' }, rules: [] };

describe('storageCodec', () => {
  it.each([
    ['a protobuf kind', POD],
    ['a kind stored as JSON', ROLE],
  ])('%s: the stored bytes are a Buffer of their own and decode back', async (_name, obj) => {
    const sc = storageCodec(await loadApiCodec());
    const bytes = sc.encode(obj) as Buffer;
    expect(bytes.byteOffset).toBe(0);
    expect(bytes.buffer.byteLength).toBe(bytes.length);
    expect(sc.decode(bytes)).toMatchObject({ metadata: { name: obj.metadata.name } });
  });
});

describe('storageCodec.decodeMetadata', () => {
  it('reads the metadata of an envelope; undefined for bytes stored as JSON (the caller decodes them whole)', async () => {
    const sc = storageCodec(await loadApiCodec());
    expect(sc.decodeMetadata?.(sc.encode(POD))).toEqual(POD.metadata);
    expect(sc.decodeMetadata?.(Buffer.from(JSON.stringify(POD)))).toBeUndefined();
  });
});

describe('wireCodec.encodeStoredList', () => {
  it('equals encoding the decoded page with each item at its modRevision', async () => {
    const codec = await loadApiCodec();
    const sc = storageCodec(codec);
    const wc = wireCodec(codec);
    const values = [3, 9].map((rev, i) => ({ value: sc.encode({ ...POD, metadata: { ...POD.metadata, name: `p${i}` } }), modRevision: rev }));
    const meta = { resourceVersion: '10', continue: 'x' };
    const page = wc.encodeStoredList?.({ group: '', version: 'v1', kind: 'PodList' }, meta, values);
    const items = values.map((v) => {
      const { kind: _k, apiVersion: _a, ...o } = sc.decode(v.value);
      return { ...o, metadata: { ...o.metadata, resourceVersion: String(v.modRevision) } };
    });
    expect(page?.equals(wc.encodeProtobuf({ apiVersion: 'v1', kind: 'PodList', metadata: meta, items }, { group: '', version: 'v1', kind: 'PodList' }))).toBe(true);
  });

  it('is undefined when a value is not a protobuf envelope or the list kind has no protobuf form (the caller encodes the slow way)', async () => {
    const codec = await loadApiCodec();
    const values = [{ value: storageCodec(codec).encode(POD), modRevision: 2 }, { value: Buffer.from(JSON.stringify(POD)), modRevision: 3 }];
    expect(wireCodec(codec).encodeStoredList?.({ group: '', version: 'v1', kind: 'PodList' }, { resourceVersion: '3' }, values)).toBeUndefined();
    expect(wireCodec(codec).encodeStoredList?.({ group: 'example.io', version: 'v1', kind: 'WidgetList' }, { resourceVersion: '3' }, [])).toBeUndefined();
  });
});
