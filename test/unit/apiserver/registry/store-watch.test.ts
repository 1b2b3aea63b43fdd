import { afterEach, describe, expect, it } from 'vitest';
import type { Selection } from '../../../../src/apiserver/registry/types.js';
import { configMap, fixture, names, pod, reader, rejection, take, type Fixture } from './fixture.js';

let f: Fixture;
let ac: AbortController;
afterEach(async () => {
  ac.abort();
  await f.close();
});

async function setup(opts: Parameters<typeof fixture>[0] = {}): Promise<void> {
  f = await fixture(opts);
  ac = new AbortController();
}

describe('watch', () => {
  it('Start at Most Recent: synthetic ADDED for what exists, then the changes', async () => {
    await setup();
    const cms = f.store('configmaps');
    await cms.create('ns1', configMap('a'));
    const w = reader(await cms.watch('ns1', { start: { kind: 'StartMostRecent' }, signal: ac.signal }));
    expect(names(await w.take(1))).toEqual(['ADDED a']);
    await cms.create('ns1', configMap('b'));
    await cms.update('ns1', 'a', configMap('a', { k: 'v' }));
    await cms.delete('ns1', 'b');
    const evs = await w.take(3);
    expect(names(evs)).toEqual(['ADDED b', 'MODIFIED a', 'DELETED b']);
    // A deletion carries the last state with the deletion's resourceVersion.
    expect(evs[2]?.object.metadata?.resourceVersion).toBe(String(await f.storage.currentRevision()));
  });

  it('Start at Exact replays the changes after that version, without synthetic events', async () => {
    await setup();
    const cms = f.store('configmaps');
    const a = await cms.create('ns1', configMap('a'));
    await cms.create('ns1', configMap('b'));
    await cms.delete('ns1', 'a');
    const evs = await take(await cms.watch('ns1', { start: { kind: 'StartExact', rv: Number(a.metadata.resourceVersion) }, signal: ac.signal }), 2);
    expect(names(evs)).toEqual(['ADDED b', 'DELETED a']);
  });

  it('a start older than the retained history is refused with 410 Expired before any event (spec §4.5 rule 4)', async () => {
    await setup();
    const cms = f.store('configmaps');
    const a = await cms.create('ns1', configMap('a'));
    await cms.create('ns1', configMap('b'));
    await cms.create('ns1', configMap('c'));
    const compacted = (await f.storage.currentRevision()) - 1;
    await f.storage.compact(compacted);
    const rv = Number(a.metadata.resourceVersion);
    await expect(cms.watch('ns1', { start: { kind: 'StartExact', rv }, signal: ac.signal })).rejects.toMatchObject({ code: 410, reason: 'Expired', message: `too old resource version: ${rv} (${compacted})` });
  });

  it('a watch running across a compaction keeps streaming', async () => {
    await setup();
    const cms = f.store('configmaps');
    const w = reader(await cms.watch('ns1', { start: { kind: 'StartMostRecent' }, signal: ac.signal }));
    await cms.create('ns1', configMap('a'));
    expect(names(await w.take(1))).toEqual(['ADDED a']);
    await f.storage.compact(await f.storage.currentRevision());
    await cms.create('ns1', configMap('b'));
    expect(names(await w.take(1))).toEqual(['ADDED b']);
  });

  it('selectors: an object that starts matching is ADDED, one that stops matching is DELETED (with its last matching state)', async () => {
    await setup();
    const pods = f.store('pods');
    await pods.create('ns1', pod('p'));
    const onN1: Selection = { fields: (fs) => fs['spec.nodeName'] === 'n1', fieldNames: ['spec.nodeName'] };
    const w = reader(await pods.watch('', { start: { kind: 'StartMostRecent' }, selection: onN1, signal: ac.signal }));
    await f.registry.bindPod('ns1', 'p', { metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } });
    const added = await w.take(1);
    expect(names(added)).toEqual(['ADDED p']);
    const labelled = await pods.guaranteedUpdate('ns1', 'p', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { x: 'y' } } }));
    expect(names(await w.take(1))).toEqual(['MODIFIED p']);
    const onlyX: Selection = { labels: (l) => l.x === 'y' };
    const w2 = reader(await pods.watch('ns1', { start: { kind: 'StartExact', rv: Number(labelled.metadata.resourceVersion) }, selection: onlyX, signal: ac.signal }));
    const unlabelled = await pods.guaranteedUpdate('ns1', 'p', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: {} } }));
    const [gone] = await w2.take(1);
    expect(gone?.type).toBe('DELETED');
    expect(gone?.type !== 'ERROR' && gone?.object.metadata.labels).toEqual({ x: 'y' });
    expect(gone?.object.metadata?.resourceVersion).toBe(unlabelled.metadata.resourceVersion);
  });

  it('bookmarks at the configured interval when allowed: the kind with only metadata.resourceVersion', async () => {
    await setup({ bookmarkIntervalMs: 20 });
    const cms = f.store('configmaps');
    await cms.create('ns1', configMap('a'));
    const w = reader(await cms.watch('ns1', { start: { kind: 'StartMostRecent' }, allowWatchBookmarks: true, signal: ac.signal }));
    expect(names(await w.take(1))).toEqual(['ADDED a']);
    const [b] = await w.take(1);
    expect(b).toEqual({ type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: String(await f.storage.currentRevision()) } } });
  });

  it('streaming list: ADDED for the state, a BOOKMARK with initial-events-end, then the stream', async () => {
    await setup();
    const cms = f.store('configmaps');
    await cms.create('ns1', configMap('a'));
    await cms.create('ns1', configMap('b'));
    const rv = await f.storage.currentRevision();
    const w = reader(await cms.watch('ns1', { start: { kind: 'StreamingList' }, allowWatchBookmarks: true, signal: ac.signal }));
    const first = await w.take(3);
    expect(names(first)).toEqual(['ADDED a', 'ADDED b', 'BOOKMARK ']);
    expect(first[2]?.object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: String(rv), annotations: { 'platform.io/initial-events-end': 'true' } } });
    await cms.create('ns1', configMap('c'));
    expect(names(await w.take(1))).toEqual(['ADDED c']);
  });

  it('a future start waits for the version, or fails with 504 Too large resource version', async () => {
    await setup({ futureRevisionWaitMs: 30 });
    const cms = f.store('configmaps');
    const now = await f.storage.currentRevision();
    const err = await rejection(cms.watch('ns1', { start: { kind: 'StartExact', rv: now + 10 }, signal: ac.signal }));
    expect(err.code).toBe(504);
    const streaming = await rejection(cms.watch('ns1', { start: { kind: 'StreamingList', rv: now + 10 }, signal: ac.signal }));
    expect(streaming.code).toBe(504);
  });

  it('a metadata.name hint narrows the watch to that object (not to names it prefixes)', async () => {
    await setup();
    const nodes = f.store('nodes');
    const pinned = { hint: { field: 'metadata.name', value: 'node1' } };
    const w = reader(await nodes.watch('', { start: { kind: 'StartMostRecent' }, selection: pinned, signal: ac.signal }));
    await nodes.create('', { metadata: { name: 'node10' } });
    await nodes.create('', { metadata: { name: 'node1' } });
    expect(names(await w.take(1))).toEqual(['ADDED node1']);
    const list = await nodes.list('', { readAt: { kind: 'MostRecent' }, selection: pinned });
    expect(list.items.map((i) => i.metadata.name)).toEqual(['node1']);
  });

  it('watchers with different selections see one decoded object per change (the fan-out decodes once)', async () => {
    await setup();
    const cms = f.store('configmaps');
    const start = { kind: 'StartExact', rv: await f.storage.currentRevision() } as const;
    const x = reader(await cms.watch('ns1', { start, selection: { labels: (l) => l.x === 'y' }, signal: ac.signal }));
    const all = reader(await cms.watch('', { start, selection: { labels: (l) => l.x !== 'z' }, signal: ac.signal }));
    await cms.create('ns1', configMap('a', {}, { x: 'y' }));
    const [fromX] = await x.take(1);
    const [fromAll] = await all.take(1);
    expect(names([fromX!, fromAll!])).toEqual(['ADDED a', 'ADDED a']);
    expect(fromX?.object).toBe(fromAll?.object);
  });

  it('ends when the signal aborts', async () => {
    await setup();
    const events = await f.store('configmaps').watch('ns1', { start: { kind: 'StartExact', rv: await f.storage.currentRevision() }, signal: ac.signal });
    const it = events[Symbol.asyncIterator]();
    const next = it.next();
    ac.abort();
    expect((await next).done).toBe(true);
  });
});
