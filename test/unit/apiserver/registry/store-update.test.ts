import { afterEach, describe, expect, it } from 'vitest';
import { configMap, fixture, pod, rejection, type Fixture } from './fixture.js';

let f: Fixture;
afterEach(async () => f.close());

describe('update', () => {
  it('409 on a stale resourceVersion, with upstream message; the current one succeeds', async () => {
    f = await fixture();
    const cms = f.store('configmaps');
    const v1 = await cms.create('ns1', configMap('a', { k: '1' }));
    const v2 = (await cms.update('ns1', 'a', { ...v1, data: { k: '2' } })).object;
    expect(Number(v2.metadata.resourceVersion)).toBeGreaterThan(Number(v1.metadata.resourceVersion));
    const err = await rejection(cms.update('ns1', 'a', { ...v1, data: { k: '3' } }));
    expect(err.code).toBe(409);
    expect(err.message).toBe('Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again');
    expect((await cms.get('ns1', 'a')).data).toEqual({ k: '2' });
  });

  it('an empty resourceVersion updates unconditionally', async () => {
    f = await fixture();
    const cms = f.store('configmaps');
    await cms.create('ns1', configMap('a', { k: '1' }));
    const { object } = await cms.update('ns1', 'a', configMap('a', { k: 'x' }));
    expect(object.data).toEqual({ k: 'x' });
  });

  it('a no-op update stores nothing and keeps the resourceVersion', async () => {
    f = await fixture();
    const cms = f.store('configmaps');
    const v1 = await cms.create('ns1', configMap('a', { k: '1' }));
    const rev = await f.storage.currentRevision();
    const { object } = await cms.update('ns1', 'a', v1);
    expect(object.metadata.resourceVersion).toBe(v1.metadata.resourceVersion);
    expect(await f.storage.currentRevision()).toBe(rev);
  });

  it('keeps system fields (uid, creationTimestamp) and refuses to change them (422 naming the field)', async () => {
    f = await fixture();
    const cms = f.store('configmaps');
    const v1 = await cms.create('ns1', configMap('a'));
    const { object } = await cms.update('ns1', 'a', { ...configMap('a', { k: '2' }), metadata: { name: 'a', creationTimestamp: '1999-01-01T00:00:00Z' } });
    expect(object.metadata.uid).toBe(v1.metadata.uid);
    expect(object.metadata.creationTimestamp).toBe(v1.metadata.creationTimestamp);
    const err = await rejection(cms.update('ns1', 'a', { ...configMap('a'), metadata: { name: 'a', uid: 'other' } }));
    expect(err.code).toBe(422);
    expect(err.message).toBe('ConfigMap "a" is invalid: metadata.uid: Invalid value: "other": field is immutable');
  });

  it('400 when the body names another object than the URL', async () => {
    f = await fixture();
    await f.store('configmaps').create('ns1', configMap('a'));
    const err = await rejection(f.store('configmaps').update('ns1', 'a', configMap('b')));
    expect(err.code).toBe(400);
    expect(err.message).toBe('the name of the object (b) does not match the name on the URL (a)');
  });

  it('400 when the body has no name; 404 for the status of a resource without one', async () => {
    f = await fixture();
    await f.store('configmaps').create('ns1', configMap('a'));
    expect((await rejection(f.store('configmaps').update('ns1', 'a', { metadata: {} }))).message).toBe('the name of the object () does not match the name on the URL (a)');
    expect((await rejection(f.store('configmaps').update('ns1', 'a', configMap('a'), { subresource: 'status' }))).code).toBe(404);
  });

  it('404 for a missing object unless the strategy allows create-on-update (events)', async () => {
    f = await fixture();
    expect((await rejection(f.store('configmaps').update('ns1', 'a', configMap('a')))).code).toBe(404);
    const ev = await f.store('events').update('ns1', 'e1', { metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns1' }, reason: 'R', type: 'Normal' });
    expect(ev.created).toBe(true);
    expect(ev.object.metadata.uid).toBeDefined();
  });

  it('main-resource updates leave status alone; status updates touch only status', async () => {
    f = await fixture();
    const pods = f.store('pods');
    const p = await pods.create('ns1', pod('p', { nodeName: 'n1' }));
    const s = (await pods.update('ns1', 'p', { ...p, status: { phase: 'Running' }, spec: { ...(p.spec as object), activeDeadlineSeconds: 5 } }, { subresource: 'status' })).object;
    expect(s.status).toMatchObject({ phase: 'Running' });
    expect((s.spec as { activeDeadlineSeconds?: number }).activeDeadlineSeconds).toBeUndefined();
    const m = (await pods.update('ns1', 'p', { ...s, status: { phase: 'Failed' }, metadata: { ...s.metadata, labels: { a: 'b' } } })).object;
    expect(m.status).toMatchObject({ phase: 'Running' });
    expect(m.metadata.labels).toEqual({ a: 'b' });
  });

  it('pod spec updates may change images but not other fields', async () => {
    f = await fixture();
    const pods = f.store('pods');
    const p = await pods.create('ns1', pod('p'));
    const spec = p.spec as { containers: Array<Record<string, unknown>>; restartPolicy: string };
    const ok = await pods.update('ns1', 'p', { ...p, spec: { ...spec, containers: [{ ...spec.containers[0], image: 'busybox:1.37' }] } });
    expect(ok.object.spec).toMatchObject({ containers: [{ image: 'busybox:1.37' }] });
    const err = await rejection(pods.update('ns1', 'p', { ...ok.object, spec: { ...(ok.object.spec as object), restartPolicy: 'Never' } }));
    expect(err.code).toBe(422);
    expect(err.message).toContain('spec: Forbidden: pod updates may not change fields other than');
  });

  it('configmaps and secrets with immutable set refuse data changes', async () => {
    f = await fixture();
    const cms = f.store('configmaps');
    const v1 = await cms.create('ns1', { ...configMap('a', { k: '1' }), immutable: true });
    const err = await rejection(cms.update('ns1', 'a', { ...v1, data: { k: '2' } }));
    expect(err.message).toBe('ConfigMap "a" is invalid: data: Forbidden: field is immutable when `immutable` is set');
    const s = await f.store('secrets').create('ns1', { metadata: { name: 's' }, type: 'Opaque' });
    expect((await rejection(f.store('secrets').update('ns1', 's', { ...s, type: 'other' }))).message).toContain('type: Invalid value: "<value omitted>": field is immutable');
  });

  it('guaranteedUpdate re-reads and re-applies on a concurrent write', async () => {
    f = await fixture();
    const cms = f.store('configmaps');
    await cms.create('ns1', configMap('a', { n: '0' }));
    let calls = 0;
    const out = await cms.guaranteedUpdate('ns1', 'a', async (cur) => {
      calls++;
      // The first attempt loses to another writer.
      if (calls === 1) await cms.update('ns1', 'a', configMap('a', { n: '5', other: 'x' }));
      return { ...cur, data: { ...(cur.data as object), n: String(Number((cur.data as { n: string }).n) + 1) } };
    });
    expect(calls).toBe(2);
    expect(out.data).toEqual({ n: '6', other: 'x' });
  });

  it('concurrent guaranteed updates all land (no lost update)', async () => {
    f = await fixture();
    const cms = f.store('configmaps');
    await cms.create('ns1', configMap('a', { n: '0' }));
    const bump = (): Promise<unknown> => cms.guaranteedUpdate('ns1', 'a', (cur) => ({ ...cur, data: { n: String(Number((cur.data as { n: string }).n) + 1) } }));
    await Promise.all(Array.from({ length: 10 }, bump));
    expect((await cms.get('ns1', 'a')).data).toEqual({ n: '10' });
  });

  it('dry-run update returns the result and stores nothing', async () => {
    f = await fixture();
    const cms = f.store('configmaps');
    const v1 = await cms.create('ns1', configMap('a', { k: '1' }));
    const rev = await f.storage.currentRevision();
    const { object } = await cms.update('ns1', 'a', { ...v1, data: { k: '2' } }, { dryRun: true });
    expect(object.data).toEqual({ k: '2' });
    expect(await f.storage.currentRevision()).toBe(rev);
  });

  it('namespaces keep spec.finalizers and status on update', async () => {
    f = await fixture();
    const ns = await f.store('namespaces').get('', 'ns1');
    expect(ns.spec).toEqual({ finalizers: ['platform'] });
    expect(ns.status).toEqual({ phase: 'Active' });
    expect(ns.metadata.labels).toEqual({ 'platform.io/metadata.name': 'ns1' });
    const { object } = await f.store('namespaces').update('', 'ns1', { ...ns, spec: { finalizers: [] }, status: { phase: 'Terminating' } });
    expect(object.spec).toEqual({ finalizers: ['platform'] });
    expect(object.status).toEqual({ phase: 'Active' });
  });
});
