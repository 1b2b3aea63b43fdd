// Conformance of the deployment shapes the issue names: two servers over one
// etcd serve the same objects and each other's watch events, killing one
// loses nothing, and a graceful stop ends watches with a state a client can
// resume from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { startServer, type ServerHandle } from './helpers/server.js';
import { cm, makeNamespace, ns } from './helpers/objects.js';

describe('two servers over one etcd', () => {
  let etcd: TestEtcd;
  let a: ServerHandle;
  let b: ServerHandle;
  beforeAll(async () => {
    etcd = await startEtcd();
    [a, b] = await Promise.all([startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, etcdPrefix: '/shared' }), startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, etcdPrefix: '/shared' })]);
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await etcd?.stop();
  }, 60_000);

  it('a write through one is read and watched through the other, at the same resourceVersion', async () => {
    const n = await makeNamespace(a.admin);
    const start = (await b.admin.get(`${ns(n)}/configmaps`)).json().metadata.resourceVersion;
    const w = await b.admin.watch(`${ns(n)}/configmaps`, { resourceVersion: start });
    try {
      const created = (await a.admin.post(`${ns(n)}/configmaps`, cm('shared', { a: '1' }))).json();
      const seen = await w.next();
      expect(seen).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'shared', resourceVersion: created.metadata.resourceVersion } } });
      const read = (await b.admin.get(`${ns(n)}/configmaps/shared`)).json();
      expect(read).toEqual(created);
      const updated = await b.admin.put(`${ns(n)}/configmaps/shared`, { ...read, data: { a: '2' } });
      expect(updated.status).toBe(200);
      const stale = await a.admin.put(`${ns(n)}/configmaps/shared`, { ...created, data: { a: '3' } });
      expect(stale.status).toBe(409);
    } finally {
      w.close();
    }
  });

  it('killing one server loses nothing: the other serves every acknowledged write', async () => {
    const n = await makeNamespace(a.admin);
    const written: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await a.admin.post(`${ns(n)}/configmaps`, cm(`k-${i}`));
      expect(r.status).toBe(201);
      written.push(`k-${i}`);
    }
    await a.kill();
    const list = (await b.admin.get(`${ns(n)}/configmaps`)).json();
    expect(list.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort()).toEqual(written.sort());
    a = await startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, etcdPrefix: '/shared' });
    expect((await a.admin.get(`${ns(n)}/configmaps/k-19`)).status).toBe(200);
  });

  it('a graceful stop ends open watches cleanly after a final BOOKMARK; the client resumes on the other server without loss', async () => {
    const n = await makeNamespace(a.admin);
    const start = (await a.admin.get(`${ns(n)}/configmaps`)).json().metadata.resourceVersion;
    const w = await a.admin.watch(`${ns(n)}/configmaps`, { resourceVersion: start, allowWatchBookmarks: true });
    await a.admin.post(`${ns(n)}/configmaps`, cm('before-stop'));
    expect((await w.next())?.object.metadata.name).toBe('before-stop');
    const code = a.stop();
    const last = await w.until((e) => e.type === 'BOOKMARK');
    await w.ended;
    w.close();
    expect(await code).toBe(0);
    const resumeFrom = last.at(-1)!.object.metadata.resourceVersion;
    await b.admin.post(`${ns(n)}/configmaps`, cm('after-stop'));
    const again = await b.admin.watch(`${ns(n)}/configmaps`, { resourceVersion: resumeFrom });
    try {
      expect((await again.next())?.object.metadata.name).toBe('after-stop');
    } finally {
      again.close();
    }
    a = await startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, etcdPrefix: '/shared' });
  });
});
