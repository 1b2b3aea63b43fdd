import { afterEach, describe, expect, it } from 'vitest';
import { configMap, fixture, pod, rejection, type Fixture } from './fixture.js';

let f: Fixture;
afterEach(async () => f.close());

describe('namespace lifecycle', () => {
  it('deleting an empty-able namespace removes its content, then the namespace', async () => {
    f = await fixture();
    await f.store('configmaps').create('ns1', configMap('a'));
    await f.store('secrets').create('ns1', { metadata: { name: 's' } });
    await f.store('pods').create('ns1', pod('unbound'));
    const res = await f.store('namespaces').delete('', 'ns1');
    expect(res.deleted).toBe(true);
    expect((res.object as { status: unknown }).status).toEqual({ phase: 'Terminating' });
    expect((await rejection(f.store('namespaces').get('', 'ns1'))).code).toBe(404);
    expect((await f.store('configmaps').list('', { readAt: { kind: 'MostRecent' } })).items).toEqual([]);
  });

  it('a namespace with a pod still terminating stays Terminating (409 on a second delete) and goes with its last pod', async () => {
    f = await fixture();
    await f.store('configmaps').create('ns1', configMap('a'));
    await f.store('pods').create('ns1', pod('p', { nodeName: 'n1' }));
    const res = await f.store('namespaces').delete('', 'ns1');
    expect(res.deleted).toBe(false);
    const ns = res.object as { metadata: Record<string, unknown>; status: unknown; spec: unknown };
    expect(ns.status).toEqual({ phase: 'Terminating' });
    expect(ns.metadata.deletionTimestamp).toBeDefined();
    expect(ns.spec).toEqual({ finalizers: ['platform'] });
    expect((await f.store('configmaps').list('ns1', { readAt: { kind: 'MostRecent' } })).items).toEqual([]);
    const again = await rejection(f.store('namespaces').delete('', 'ns1'));
    expect(again.code).toBe(409);
    expect(again.message).toContain('The system is ensuring all content is removed from this namespace.');
    // The agent finishes the pod: the namespace goes with it.
    await f.store('pods').delete('ns1', 'p', { gracePeriodSeconds: 0 });
    expect((await rejection(f.store('namespaces').get('', 'ns1'))).code).toBe(404);
  });

  it('immortal namespaces may not be deleted (403); system namespaces are created idempotently', async () => {
    f = await fixture({}, []);
    await f.registry.namespaces.ensureSystemNamespaces();
    await f.registry.namespaces.ensureSystemNamespaces();
    const names = (await f.store('namespaces').list('', { readAt: { kind: 'MostRecent' } })).items.map((i) => i.metadata.name);
    expect(names).toEqual(['default', 'platform-node-lease', 'platform-public', 'platform-system']);
    const err = await rejection(f.store('namespaces').delete('', 'default'));
    expect(err.code).toBe(403);
    expect(err.message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
  });

  it('finalize replaces spec.finalizers only; a terminating namespace left without any is removed', async () => {
    f = await fixture({}, ['ns1', 'ns2']);
    const live = await f.registry.namespaces.finalize('ns2', { metadata: { name: 'ns2' }, spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } });
    expect(live.spec).toEqual({ finalizers: ['example.com/x'] });
    expect(live.status).toEqual({ phase: 'Active' });
    expect((await rejection(f.registry.namespaces.finalize('ns2', { metadata: { name: 'ns2', resourceVersion: '1' }, spec: { finalizers: [] } }))).code).toBe(409);
    await f.store('pods').create('ns1', pod('p', { nodeName: 'n1' }));
    await f.store('namespaces').delete('', 'ns1');
    await f.registry.namespaces.finalize('ns1', { metadata: { name: 'ns1' }, spec: { finalizers: [] } });
    expect((await rejection(f.store('namespaces').get('', 'ns1'))).code).toBe(404);
    expect((await rejection(f.store('namespaces').deleteCollection('', undefined))).code).toBe(405);
  });

  it('a namespace with its own metadata finalizer stays after its content is gone, until the finalizer is removed', async () => {
    f = await fixture({}, []);
    const nss = f.store('namespaces');
    await nss.create('', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const res = await nss.delete('', 'held');
    expect(res.deleted).toBe(false);
    const held = await nss.get('', 'held');
    expect(held.spec).toEqual({ finalizers: [] });
    expect(held.metadata).toMatchObject({ finalizers: ['example.com/hold'], deletionGracePeriodSeconds: 0 });
    await nss.update('', 'held', { ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect((await rejection(nss.get('', 'held'))).code).toBe(404);
  });

  it('dry-run delete of a namespace changes nothing', async () => {
    f = await fixture();
    await f.store('configmaps').create('ns1', configMap('a'));
    const rev = await f.storage.currentRevision();
    const res = await f.store('namespaces').delete('', 'ns1', { dryRun: true });
    expect((res.object as { status: unknown }).status).toEqual({ phase: 'Terminating' });
    expect(await f.storage.currentRevision()).toBe(rev);
  });
});

describe('pod binding and eviction', () => {
  it('binding sets spec.nodeName once; a second binding is 409', async () => {
    f = await fixture();
    await f.store('pods').create('ns1', pod('p'));
    const status = await f.registry.bindPod('ns1', 'p', { metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } });
    expect(status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const bound = await f.store('pods').get('ns1', 'p');
    expect(bound.spec).toMatchObject({ nodeName: 'n1' });
    expect(bound.status).toMatchObject({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] });
    const again = await rejection(f.registry.bindPod('ns1', 'p', { metadata: { name: 'p' }, target: { name: 'n2' } }));
    expect(again.code).toBe(409);
    expect(again.message).toBe('Operation cannot be fulfilled on pods "p": pod p is already assigned to node "n1"');
    expect((await rejection(f.registry.bindPod('ns1', 'p', { metadata: { name: 'q' }, target: { name: 'n2' } }))).code).toBe(400);
    expect((await rejection(f.registry.bindPod('ns1', 'p', { metadata: { name: 'p' }, target: { name: '' } }))).message).toBe('Binding "p" is invalid: target.name: Required value');
  });

  it('eviction deletes the pod with its deleteOptions', async () => {
    f = await fixture();
    await f.store('pods').create('ns1', pod('p', { nodeName: 'n1' }));
    const status = await f.registry.evictPod('ns1', 'p', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' }, deleteOptions: { gracePeriodSeconds: 0 } });
    expect(status.code).toBe(201);
    expect((await rejection(f.store('pods').get('ns1', 'p'))).code).toBe(404);
    expect((await rejection(f.registry.evictPod('ns1', 'p', { metadata: { name: 'p' } }))).code).toBe(404);
  });
});
