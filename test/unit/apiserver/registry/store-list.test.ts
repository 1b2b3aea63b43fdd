import { afterEach, describe, expect, it } from 'vitest';
import type { Selection } from '../../../../src/apiserver/registry/types.js';
import { decodeContinue, encodeContinue } from '../../../../src/apiserver/registry/continue-token.js';
import { configMap, fixture, pod, rejection, type Fixture } from './fixture.js';

let f: Fixture;
afterEach(async () => f.close());

const mostRecent = { kind: 'MostRecent' } as const;
const labelIs = (k: string, v: string): Selection => ({ labels: (l) => l[k] === v });
const fieldIs = (field: string, v: string): Selection => ({ fields: (fs) => fs[field] === v, fieldNames: [field], hint: { field, value: v } });

async function seed(n: number, ns = 'ns1'): Promise<void> {
  for (let i = 0; i < n; i++) await f.store('configmaps').create(ns, configMap(`cm-${String(i).padStart(2, '0')}`, {}, { even: String(i % 2 === 0) }));
}

describe('list', () => {
  it('a List with ListMeta: kind, apiVersion, resourceVersion of the read, items in key order', async () => {
    f = await fixture();
    await seed(3);
    const list = await f.store('configmaps').list('ns1', { readAt: mostRecent });
    expect(list.kind).toBe('ConfigMapList');
    expect(list.apiVersion).toBe('v1');
    expect(list.metadata).toEqual({ resourceVersion: String(await f.storage.currentRevision()) });
    expect(list.items.map((i) => i.metadata.name)).toEqual(['cm-00', 'cm-01', 'cm-02']);
  });

  it('pages at the first page revision while writes happen; remainingItemCount without selectors', async () => {
    f = await fixture();
    await seed(5);
    const cms = f.store('configmaps');
    const p1 = await cms.list('ns1', { readAt: mostRecent, limit: 2 });
    expect(p1.items.map((i) => i.metadata.name)).toEqual(['cm-00', 'cm-01']);
    expect(p1.metadata.remainingItemCount).toBe(3);
    // Writes after the first page: a deletion, a change and a new object are not seen by later pages.
    await cms.delete('ns1', 'cm-03');
    await cms.update('ns1', 'cm-02', configMap('cm-02', { changed: 'yes' }));
    await cms.create('ns1', configMap('cm-99'));
    const p2 = await cms.list('ns1', { readAt: { kind: 'Continue', token: p1.metadata.continue ?? '' }, limit: 2 });
    expect(p2.metadata.resourceVersion).toBe(p1.metadata.resourceVersion);
    expect(p2.items.map((i) => i.metadata.name)).toEqual(['cm-02', 'cm-03']);
    expect(p2.items[0]?.data).toEqual({});
    expect(p2.metadata.remainingItemCount).toBe(1);
    const p3 = await cms.list('ns1', { readAt: { kind: 'Continue', token: p2.metadata.continue ?? '' }, limit: 2 });
    expect(p3.items.map((i) => i.metadata.name)).toEqual(['cm-04']);
    expect(p3.metadata.continue).toBeUndefined();
    expect(p3.metadata.remainingItemCount).toBeUndefined();
  });

  it('limit with a selector keeps reading until limit objects match; no remainingItemCount', async () => {
    f = await fixture();
    await seed(6);
    const cms = f.store('configmaps');
    const p1 = await cms.list('ns1', { readAt: mostRecent, limit: 2, selection: labelIs('even', 'true') });
    expect(p1.items.map((i) => i.metadata.name)).toEqual(['cm-00', 'cm-02']);
    expect(p1.metadata.remainingItemCount).toBeUndefined();
    expect(p1.metadata.continue).toBeDefined();
    const p2 = await cms.list('ns1', { readAt: { kind: 'Continue', token: p1.metadata.continue ?? '' }, limit: 2, selection: labelIs('even', 'true') });
    expect(p2.items.map((i) => i.metadata.name)).toEqual(['cm-04']);
  });

  it('continue tokens expire after the TTL: 410 with a fresh inconsistent token that continues at the latest state', async () => {
    f = await fixture({ continueTtlMs: 60_000 });
    await seed(4);
    const cms = f.store('configmaps');
    const p1 = await cms.list('ns1', { readAt: mostRecent, limit: 2 });
    await cms.create('ns1', configMap('cm-03x'));
    f.clock.t += 61_000;
    const err = await rejection(cms.list('ns1', { readAt: { kind: 'Continue', token: p1.metadata.continue ?? '' }, limit: 2 }));
    expect(err.code).toBe(410);
    expect(err.reason).toBe('Expired');
    expect(err.message).toMatch(/^The provided continue parameter is too old to display a consistent list result/);
    const fresh = (err as unknown as { listMeta: { continue: string } }).listMeta.continue;
    expect(decodeContinue(fresh).rv).toBe(-1);
    const rest = await cms.list('ns1', { readAt: { kind: 'Continue', token: fresh }, limit: 10 });
    expect(rest.items.map((i) => i.metadata.name)).toEqual(['cm-02', 'cm-03', 'cm-03x']);
  });

  it('a continue token at a compacted revision is 410 as well', async () => {
    f = await fixture();
    await seed(3);
    const cms = f.store('configmaps');
    const p1 = await cms.list('ns1', { readAt: mostRecent, limit: 1 });
    await cms.create('ns1', configMap('z'));
    await f.storage.compact(await f.storage.currentRevision());
    expect((await rejection(cms.list('ns1', { readAt: { kind: 'Continue', token: p1.metadata.continue ?? '' }, limit: 1 }))).code).toBe(410);
  });

  it.each([
    ['not base64 at all', '!!!'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['another version', Buffer.from(JSON.stringify({ v: 'x', rv: 1, start: 'a' })).toString('base64url')],
    ['no start', Buffer.from(JSON.stringify({ v: 'meta.platform.io/v1', rv: 1, start: '' })).toString('base64url')],
    ['a start outside the prefix', encodeContinue({ rv: 1, start: '../secrets/x', issued: 0 })],
  ])('a malformed continue token (%s) is 400', async (_what, token) => {
    f = await fixture();
    const err = await rejection(f.store('configmaps').list('ns1', { readAt: { kind: 'Continue', token } }));
    expect(err.code).toBe(400);
    expect(err.message).toMatch(/^invalid continue token: continue key is not valid/);
  });

  it('Exact reads the collection at that revision; older than retained is 410', async () => {
    f = await fixture();
    await seed(2);
    const cms = f.store('configmaps');
    const at = await f.storage.currentRevision();
    await cms.create('ns1', configMap('later'));
    const exact = await cms.list('ns1', { readAt: { kind: 'Exact', rv: at } });
    expect(exact.metadata.resourceVersion).toBe(String(at));
    expect(exact.items).toHaveLength(2);
    await f.storage.compact(await f.storage.currentRevision());
    const err = await rejection(cms.list('ns1', { readAt: { kind: 'Exact', rv: at } }));
    expect(err.code).toBe(410);
    expect(err.message).toBe('The resourceVersion for the provided list is too old.');
  });

  it('a future resourceVersion waits briefly, then 504 Too large resource version; one that arrives in time is served', async () => {
    f = await fixture({ futureRevisionWaitMs: 30 });
    const cms = f.store('configmaps');
    const now = await f.storage.currentRevision();
    const err = await rejection(cms.list('ns1', { readAt: { kind: 'NotOlderThan', rv: now + 5 } }));
    expect(err.code).toBe(504);
    expect(err.message).toContain('Too large resource version');
    await f.close();
    f = await fixture({ futureRevisionWaitMs: 2_000 });
    const next = (await f.storage.currentRevision()) + 1;
    const pending = f.store('configmaps').list('ns1', { readAt: { kind: 'NotOlderThan', rv: next } });
    await f.store('configmaps').create('ns1', configMap('x'));
    expect((await pending).items.map((i) => i.metadata.name)).toEqual(['x']);
  });

  it('field selectors: metadata.name and namespace everywhere, spec.nodeName for pods; others are 400', async () => {
    f = await fixture({}, ['ns1', 'ns2']);
    const pods = f.store('pods');
    await pods.create('ns1', pod('a', { nodeName: 'n1' }));
    await pods.create('ns2', pod('b', { nodeName: 'n2' }));
    await pods.create('ns2', pod('c'));
    expect((await pods.list('', { readAt: mostRecent, selection: fieldIs('spec.nodeName', 'n2') })).items.map((i) => i.metadata.name)).toEqual(['b']);
    expect((await pods.list('', { readAt: mostRecent, selection: fieldIs('metadata.namespace', 'ns2') })).items.map((i) => i.metadata.name)).toEqual(['b', 'c']);
    expect((await pods.list('', { readAt: mostRecent, selection: fieldIs('status.phase', 'Pending') })).items).toHaveLength(3);
    const err = await rejection(f.store('configmaps').list('', { readAt: mostRecent, selection: fieldIs('spec.nodeName', 'x') }));
    expect(err.code).toBe(400);
    expect(err.message).toBe('field label not supported: spec.nodeName');
  });

  it('get: NotFound with upstream message; Exact at an older revision', async () => {
    f = await fixture();
    const cms = f.store('configmaps');
    const err = await rejection(cms.get('ns1', 'x'));
    expect(err.code).toBe(404);
    expect(err.message).toBe('configmaps "x" not found');
    const v1 = await cms.create('ns1', configMap('a', { k: '1' }));
    await cms.update('ns1', 'a', configMap('a', { k: '2' }));
    expect((await cms.get('ns1', 'a', { kind: 'Exact', rv: Number(v1.metadata.resourceVersion) })).data).toEqual({ k: '1' });
  });
});
