// A selective list decodes only the metadata of the objects it skips when the
// codec can (labels, metadata.name/namespace), and whole objects otherwise;
// either way the answer is the same.
import { afterEach, describe, expect, it } from 'vitest';
import { parseFieldSelector } from '../../../../src/api/field-selector.js';
import { parseLabelSelector } from '../../../../src/api/selectors.js';
import { selectionOf } from '../../../../src/apiserver/handlers/read.js';
import { createRegistry, jsonStorageCodec } from '../../../../src/apiserver/registry/index.js';
import type { ApiObject, ObjectMeta, StorageCodec } from '../../../../src/apiserver/registry/types.js';
import { createMemoryStorage } from '../../../../src/apiserver/storage/memory.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function listWith(withMetadata: boolean, labels: string, fields: string): Promise<{ names: string[]; full: number; meta: number }> {
  const counts = { full: 0, meta: 0 };
  const codec: StorageCodec = {
    encode: jsonStorageCodec.encode,
    decode(bytes) {
      counts.full++;
      return jsonStorageCodec.decode(bytes);
    },
    ...(withMetadata
      ? {
          decodeMetadata(bytes: Uint8Array): ObjectMeta {
            counts.meta++;
            return jsonStorageCodec.decode(bytes).metadata;
          },
        }
      : {}),
  };
  const storage = createMemoryStorage();
  closers.push(() => storage.close());
  const registry = createRegistry({ storage, codec, clock: { now: () => Date.parse('2026-01-01T00:00:00Z') } });
  await registry.store({ group: '', resource: 'namespaces' })!.create('', { metadata: { name: 'ns1' } });
  const pods = registry.store({ group: '', resource: 'pods' })!;
  for (let i = 0; i < 10; i++) {
    const pod: ApiObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, labels: { shard: String(i % 5) } }, spec: { nodeName: `n${i % 2}`, containers: [{ name: 'c', image: 'i' }] } };
    await pods.create('ns1', pod);
  }
  counts.full = 0;
  counts.meta = 0;
  const selection = selectionOf(parseLabelSelector(labels), parseFieldSelector(fields));
  const list = await pods.list('ns1', { readAt: { kind: 'MostRecent' }, ...(selection === undefined ? {} : { selection }) });
  return { names: list.items.map((p) => p.metadata.name ?? ''), ...counts };
}

describe('selective lists', () => {
  it.each([
    ['labels only', 'shard=1', '', ['p1', 'p6'], { full: 2, meta: 10 }],
    ['metadata.name', '', 'metadata.name=p3', ['p3'], { full: 1, meta: 1 }],
    ['a spec field: whole objects', 'shard=1', 'spec.nodeName=n0', ['p6'], { full: 10, meta: 0 }],
  ] as const)('%s', async (_what, labels, fields, names, decodes) => {
    const fast = await listWith(true, labels, fields);
    const slow = await listWith(false, labels, fields);
    expect(fast.names).toEqual(names);
    expect(slow.names).toEqual(names);
    expect({ full: fast.full, meta: fast.meta }).toEqual(decodes);
  });
});
