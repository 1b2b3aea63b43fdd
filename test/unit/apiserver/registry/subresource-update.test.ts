// A strategy's own update-style subresource (as a CSR's `approval` will be):
// writes through it are merged and checked by the strategy, others are 404.
import { afterEach, describe, expect, it } from 'vitest';
import { createRegistry, jsonStorageCodec, BUILTIN_STRATEGIES, type Strategy } from '../../../../src/apiserver/registry/index.js';
import { createMemoryStorage } from '../../../../src/apiserver/storage/memory.js';
import type { Storage } from '../../../../src/apiserver/storage/interface.js';
import { rejection } from './fixture.js';

const widgets: Strategy = {
  info: {
    group: 'example.platform.io',
    version: 'v1',
    resource: 'widgets',
    kind: 'Widget',
    singular: 'widget',
    namespaced: false,
    verbs: ['create', 'get', 'update'],
    subresources: [{ name: 'approval', kind: 'Widget', verbs: ['update'] }],
  },
  nameRule: 'subdomain',
  allowCreateOnUpdate: false,
  validate: () => [],
  updateSubresources: {
    approval: {
      merge: (body, old) => ({ ...old, approved: body.approved }),
      validate: (obj) => (typeof obj.approved === 'boolean' ? [] : [{ type: 'FieldValueRequired', field: 'approved' }]),
    },
  },
};

let storage: Storage;
afterEach(async () => storage.close());

describe('update subresources', () => {
  it('a declared subresource merges through the strategy; the rest of the body is ignored', async () => {
    storage = createMemoryStorage();
    const registry = createRegistry({ storage, codec: jsonStorageCodec, strategies: [...BUILTIN_STRATEGIES, widgets] });
    const store = registry.store({ group: 'example.platform.io', resource: 'widgets' });
    if (store === undefined) throw new Error('not served');
    const w = await store.create('', { metadata: { name: 'w' }, size: 1 });
    const { object } = await store.update('', 'w', { ...w, size: 99, approved: true }, { subresource: 'approval' });
    expect(object).toMatchObject({ size: 1, approved: true });
    expect((await rejection(store.update('', 'w', { metadata: { name: 'w' } }, { subresource: 'approval' }))).message).toBe('Widget.example.platform.io "w" is invalid: approved: Required value');
    expect((await rejection(store.update('', 'w', { metadata: { name: 'w' } }, { subresource: 'status' }))).code).toBe(404);
    expect((await rejection(store.guaranteedUpdate('', 'w', (cur) => cur, { subresource: 'scale' }))).code).toBe(404);
  });
});
