import { afterEach, describe, expect, it } from 'vitest';
import { StoreLister } from '../../../../src/apiserver/registry/lister.js';
import { StorageError, type Storage, type StorageEvent, type StoredValue } from '../../../../src/apiserver/storage/interface.js';
import { fixture, rejection, type Fixture } from './fixture.js';

let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

/** Lets the lister's watch loop take the events already queued. */
const drain = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

const NS_KEY = (name: string): string => `/registry/core/namespaces/${name}`;

describe('StoreLister over the registry (memory store)', () => {
  it('is not fresh until synced, then answers hits and misses from memory', async () => {
    f = await fixture({}, ['ns1']);
    const lister = f.store('namespaces').cached();
    await lister.synced();
    const hit = lister.lookup(NS_KEY('ns1'));
    expect(hit.fresh && hit.object?.metadata.name).toBe('ns1');
    expect(lister.lookup(NS_KEY('nope'))).toEqual({ fresh: true, object: undefined });
  });

  it('follows writes: a create made here is never answered stale', async () => {
    f = await fixture({}, []);
    const ns = f.store('namespaces');
    await ns.cached().synced();
    await ns.create('', { metadata: { name: 'later' } });
    const seen = ns.cached().lookup(NS_KEY('later'));
    // Either the watch has delivered it already, or the lookup says "ask storage".
    if (seen.fresh) expect(seen.object?.metadata.name).toBe('later');
  });

  it('stops with the storage: later lookups are never fresh and start nothing', async () => {
    f = await fixture({}, ['ns1']);
    const lister = f.store('namespaces').cached();
    await lister.synced();
    await f.storage.close();
    await drain();
    expect(lister.lookup(NS_KEY('ns1'))).toEqual({ fresh: false });
    expect((await rejection(f.store('namespaces').get('', 'ns1'))).code).toBe(503);
  });

  it('namespace admission refuses a terminating namespace right after its delete marked it', async () => {
    f = await fixture({}, ['ns1']);
    await f.store('namespaces').cached().synced();
    await f.store('pods').create('ns1', { metadata: { name: 'p' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] } });
    await f.store('namespaces').delete('', 'ns1');
    const refused = await rejection(f.store('configmaps').create('ns1', { metadata: { name: 'c' } }));
    expect([refused.code, refused.reason]).toEqual([403, 'Forbidden']);
  });
});

/**
 * A storage whose list and watch the test drives (only what the lister
 * calls). Each watch yields its events, then ends with `watchError` (first
 * watch only) or stays open until `release()`, as a closed storage's ends.
 */
function scriptedStorage(script: { lists: (() => Promise<{ items: StoredValue[]; revision: number }>)[]; watches: StorageEvent[][]; watchError?: StorageError }) {
  let lists = 0;
  let watches = 0;
  let release = (): void => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const storage = {
    list: () => {
      const next = script.lists[lists++];
      return next === undefined ? Promise.reject(new StorageError('Closed', '')) : next().then((r) => ({ ...r, more: false, remaining: 0 }));
    },
    watch: async function* () {
      const n = watches++;
      for (const ev of script.watches[n] ?? []) yield ev;
      if (script.watchError !== undefined && n === 0) throw script.watchError;
      await held;
    },
  } as unknown as Storage;
  return { storage, listed: () => lists, release };
}

const kv = (name: string, rev: number): StoredValue => ({ key: NS_KEY(name), value: new TextEncoder().encode(name), createRevision: rev, modRevision: rev });
const source = (storage: Storage, written = 0) => ({
  storage,
  prefix: '/registry/core/namespaces/',
  decode: (v: StoredValue) => ({ metadata: { name: new TextDecoder().decode(v.value), resourceVersion: String(v.modRevision) } }),
  writtenUpTo: () => written,
});
const name = (l: ReturnType<StoreLister['lookup']>): string | undefined => (l.fresh ? (l.object?.metadata.name ?? '<miss>') : undefined);


describe('StoreLister decisions (scripted storage)', () => {
  it('relists after its watch runs into compaction', async () => {
    const s = scriptedStorage({
      lists: [async () => ({ items: [kv('a', 1)], revision: 1 }), async () => ({ items: [kv('b', 5)], revision: 5 })],
      watches: [[], []],
      watchError: new StorageError('Compacted', '', { revision: 3 }),
    });
    const lister = new StoreLister(source(s.storage));
    await lister.synced();
    await drain();
    expect(s.listed()).toBe(2);
    expect([name(lister.lookup(NS_KEY('a'))), name(lister.lookup(NS_KEY('b')))]).toEqual(['<miss>', 'b']);
    s.release();
    await drain();
    expect(lister.lookup(NS_KEY('b'))).toEqual({ fresh: false });
  });

  it('applies puts and deletes from the watch in order', async () => {
    const s = scriptedStorage({
      lists: [async () => ({ items: [kv('a', 1)], revision: 1 })],
      watches: [[{ type: 'put', kv: kv('b', 2), prev: undefined }, { type: 'delete', key: NS_KEY('a'), prev: kv('a', 1), revision: 3 }]],
    });
    const lister = new StoreLister(source(s.storage));
    expect(lister.lookup(NS_KEY('a'))).toEqual({ fresh: false });
    await lister.synced();
    await drain();
    expect([name(lister.lookup(NS_KEY('a'))), name(lister.lookup(NS_KEY('b')))]).toEqual(['<miss>', 'b']);
    s.release();
  });

  it('is not fresh while behind the writes this process made', async () => {
    const s = scriptedStorage({ lists: [async () => ({ items: [kv('a', 1)], revision: 1 })], watches: [[{ type: 'progress', revision: 6 }]] });
    let written = 7;
    const lister = new StoreLister({ ...source(s.storage), writtenUpTo: () => written });
    await lister.synced();
    await drain();
    expect(lister.lookup(NS_KEY('a'))).toEqual({ fresh: false });
    written = 6;
    expect(name(lister.lookup(NS_KEY('a')))).toBe('a');
    s.release();
  });

  it('goes idle after a failed list and starts again on the next lookup', async () => {
    const s = scriptedStorage({
      lists: [() => Promise.reject(new StorageError('Unavailable', '')), async () => ({ items: [kv('a', 1)], revision: 1 })],
      watches: [[]],
    });
    const lister = new StoreLister(source(s.storage));
    await lister.synced();
    expect(lister.lookup(NS_KEY('a'))).toEqual({ fresh: false });
    await lister.synced();
    expect(s.listed()).toBe(2);
    expect(name(lister.lookup(NS_KEY('a')))).toBe('a');
    s.release();
  });
});
