import { afterEach, describe, expect, it } from 'vitest';
import { configMap, fixture, pod, reader, rejection, type Fixture } from './fixture.js';

let f: Fixture;
afterEach(async () => f.close());

describe('delete', () => {
  it('removes an object without finalizers and answers a Success Status (or the object, for pods)', async () => {
    f = await fixture();
    const cm = await f.store('configmaps').create('ns1', configMap('a'));
    const res = await f.store('configmaps').delete('ns1', 'a');
    expect(res).toEqual({ deleted: true, object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'a', group: '', kind: 'configmaps', uid: cm.metadata.uid }, code: 200 } });
    expect((await rejection(f.store('configmaps').get('ns1', 'a'))).code).toBe(404);
    expect((await rejection(f.store('configmaps').delete('ns1', 'a'))).message).toBe('configmaps "a" not found');
    await f.store('pods').create('ns1', pod('p'));
    const p = await f.store('pods').delete('ns1', 'p');
    expect(p.deleted).toBe(true);
    expect((p.object as { kind: string }).kind).toBe('Pod');
  });

  it('two-phase with finalizers: deletionTimestamp set, the object stays until an update removes the last finalizer', async () => {
    f = await fixture();
    const cms = f.store('configmaps');
    const ac = new AbortController();
    await cms.create('ns1', { ...configMap('a'), metadata: { name: 'a', finalizers: ['example.com/keep', 'example.com/other'] } });
    const w = reader(await cms.watch('ns1', { start: { kind: 'StartExact', rv: await f.storage.currentRevision() }, signal: ac.signal }));
    f.clock.t += 5_000;
    const first = await cms.delete('ns1', 'a');
    expect(first.deleted).toBe(false);
    const marked = first.object as { metadata: Record<string, unknown> };
    expect(marked.metadata.deletionTimestamp).toBe('2026-01-01T00:00:05Z');
    expect(marked.metadata.deletionGracePeriodSeconds).toBe(0);
    // Finalizers cannot be added now, and the deletion marks cannot be undone by an update.
    const cur = await cms.get('ns1', 'a');
    expect((await rejection(cms.update('ns1', 'a', { ...cur, metadata: { ...cur.metadata, finalizers: ['example.com/keep', 'example.com/other', 'example.com/new'] } }))).code).toBe(422);
    const one = (await cms.update('ns1', 'a', { ...cur, metadata: { ...cur.metadata, finalizers: ['example.com/other'] } })).object;
    expect(one.metadata.deletionTimestamp).toBe('2026-01-01T00:00:05Z');
    await cms.update('ns1', 'a', { ...one, metadata: { ...one.metadata, finalizers: [] } });
    expect((await rejection(cms.get('ns1', 'a'))).code).toBe(404);
    expect((await w.take(3)).map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
    ac.abort();
  });

  it('pods bound to a node are deleted gracefully: deletionTimestamp + grace; a second delete with grace 0 removes them', async () => {
    f = await fixture();
    const pods = f.store('pods');
    await pods.create('ns1', pod('p', { nodeName: 'n1' }));
    const first = await pods.delete('ns1', 'p');
    expect(first.deleted).toBe(false);
    expect((first.object as { metadata: Record<string, unknown> }).metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 });
    // A longer or equal grace is "already being deleted": the object as it is, nothing written.
    const rev = await f.storage.currentRevision();
    expect((await pods.delete('ns1', 'p', { gracePeriodSeconds: 60 })).deleted).toBe(false);
    expect(await f.storage.currentRevision()).toBe(rev);
    const shorter = await pods.delete('ns1', 'p', { gracePeriodSeconds: 10 });
    expect((shorter.object as { metadata: Record<string, unknown> }).metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:10Z', deletionGracePeriodSeconds: 10 });
    const last = await pods.delete('ns1', 'p', { gracePeriodSeconds: 0 });
    expect(last.deleted).toBe(true);
    expect((await rejection(pods.get('ns1', 'p'))).code).toBe(404);
  });

  it('unbound pods and terminal pods go at once', async () => {
    f = await fixture();
    const pods = f.store('pods');
    await pods.create('ns1', pod('unbound'));
    expect((await pods.delete('ns1', 'unbound')).deleted).toBe(true);
    const p = await pods.create('ns1', pod('done', { nodeName: 'n1' }));
    await pods.update('ns1', 'done', { ...p, status: { phase: 'Succeeded' } }, { subresource: 'status' });
    expect((await pods.delete('ns1', 'done')).deleted).toBe(true);
  });

  it('preconditions: a uid or resourceVersion that does not match is 409', async () => {
    f = await fixture();
    const cm = await f.store('configmaps').create('ns1', configMap('a'));
    const uid = await rejection(f.store('configmaps').delete('ns1', 'a', { preconditions: { uid: 'other' } }));
    expect(uid.code).toBe(409);
    expect(uid.message).toBe(`Operation cannot be fulfilled on ConfigMap "a": the UID in the precondition (other) does not match the UID in record (${cm.metadata.uid}). The object might have been deleted and then recreated`);
    expect((await rejection(f.store('configmaps').delete('ns1', 'a', { preconditions: { resourceVersion: '1' } }))).code).toBe(409);
    expect((await f.store('configmaps').delete('ns1', 'a', { preconditions: { uid: cm.metadata.uid ?? '', resourceVersion: cm.metadata.resourceVersion ?? '' } })).deleted).toBe(true);
  });

  it('dry-run answers as the real delete would and stores nothing', async () => {
    f = await fixture();
    await f.store('configmaps').create('ns1', configMap('a'));
    await f.store('pods').create('ns1', pod('p', { nodeName: 'n1' }));
    const rev = await f.storage.currentRevision();
    expect((await f.store('configmaps').delete('ns1', 'a', { dryRun: true })).deleted).toBe(true);
    const p = await f.store('pods').delete('ns1', 'p', { dryRun: true });
    expect((p.object as { metadata: Record<string, unknown> }).metadata.deletionGracePeriodSeconds).toBe(30);
    expect(await f.storage.currentRevision()).toBe(rev);
    await f.store('configmaps').get('ns1', 'a');
  });

  it('propagationPolicy is validated (422 on DeleteOptions) and accepted', async () => {
    f = await fixture();
    await f.store('configmaps').create('ns1', configMap('a'));
    const err = await rejection(f.store('configmaps').delete('ns1', 'a', { propagationPolicy: 'Sometimes' }));
    expect(err.code).toBe(422);
    expect(err.message).toBe('DeleteOptions.meta.platform.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"');
    const both = await rejection(f.store('configmaps').delete('ns1', 'a', { propagationPolicy: 'Orphan', orphanDependents: true }));
    expect(both.message).toContain('orphanDependents and deletionPropagation cannot be both set');
    expect((await f.store('configmaps').delete('ns1', 'a', { propagationPolicy: 'Foreground' })).deleted).toBe(true);
  });

  it('deleteCollection deletes what the selection picks and answers the list as it was', async () => {
    f = await fixture();
    const cms = f.store('configmaps');
    await cms.create('ns1', configMap('a', {}, { app: 'x' }));
    await cms.create('ns1', configMap('b', {}, { app: 'y' }));
    await cms.create('ns1', configMap('c', {}, { app: 'x' }));
    const list = await cms.deleteCollection('ns1', { labels: (l) => l.app === 'x' });
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((i) => i.metadata.name)).toEqual(['a', 'c']);
    expect((await cms.list('ns1', { readAt: { kind: 'MostRecent' } })).items.map((i) => i.metadata.name)).toEqual(['b']);
  });
});
