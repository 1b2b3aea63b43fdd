// RBAC is read from watch-fed caches (assemble/auth.ts over
// registry/cached-reader.ts). What a client sees of that: a grant or a
// change of a role through a server counts at that server's next request;
// a removed binding stops granting once its watch event arrived (within the
// watch delay, as upstream's informers); a grant through one server counts at
// another over the same etcd within the watch delay.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEtcd, type TestEtcd } from '../helpers/etcd.js';
import type { ApiClient } from './helpers/api-client.js';
import { describeBackends } from './helpers/backends.js';
import { makeNamespace, ns } from './helpers/objects.js';
import { startServer, type ServerHandle } from './helpers/server.js';

const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';
/** How long a change made elsewhere may take to count (a watch event's trip, with room for a loaded machine). */
const WATCH_DELAY = { timeout: 10_000, interval: 20 };

const role = (verbs: string[]) => ({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }] });
const binding = { apiVersion: `${RBAC_GROUP}/v1`, kind: 'RoleBinding', metadata: { name: 'bob-reads' }, subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'bob' }], roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'cm-reader' } };

async function listStatus(c: ApiClient, n: string): Promise<number> {
  return (await c.get(`${ns(n)}/configmaps`)).status;
}

describeBackends('RBAC read from the watch-fed caches', {}, (srv) => {
  it('a binding, a role update and a role replacement count at the next request of the same server', async () => {
    const { admin } = srv();
    const bob = srv().user('bob');
    const n = await makeNamespace(admin);
    // Warm the caches first, so the rest is answered by them, not by a live read.
    expect(await listStatus(bob, n)).toBe(403);
    expect((await admin.post(`${RBAC}/namespaces/${n}/roles`, role(['get', 'list']))).status).toBe(201);
    expect((await admin.post(`${RBAC}/namespaces/${n}/rolebindings`, binding)).status).toBe(201);
    expect(await listStatus(bob, n)).toBe(200);
    const current = (await admin.get(`${RBAC}/namespaces/${n}/roles/cm-reader`)).json();
    expect((await admin.put(`${RBAC}/namespaces/${n}/roles/cm-reader`, { ...current, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] })).status).toBe(200);
    expect(await listStatus(bob, n)).toBe(403);
    const again = (await admin.get(`${RBAC}/namespaces/${n}/roles/cm-reader`)).json();
    expect((await admin.put(`${RBAC}/namespaces/${n}/roles/cm-reader`, { ...again, rules: role(['list']).rules })).status).toBe(200);
    expect(await listStatus(bob, n)).toBe(200);
  });

  it('the bootstrap policy is stored at start and visible, as upstream stores it (cluster-admin bound to system:masters, system:node-bootstrapper, ...)', async () => {
    const admin = srv().admin;
    const RBAC = '/apis/rbac.authorization.platform.io/v1';
    const roles = (await admin.get(`${RBAC}/clusterroles`)).json().items.map((r: { metadata: { name: string } }) => r.metadata.name);
    expect(roles).toEqual(expect.arrayContaining(['cluster-admin', 'system:discovery', 'system:basic-user', 'system:node-bootstrapper']));
    const binding = (await admin.get(`${RBAC}/clusterrolebindings/cluster-admin`)).json();
    expect(binding).toMatchObject({ roleRef: { kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'Group', name: 'system:masters' }], metadata: { annotations: { 'rbac.authorization.platform.io/autoupdate': 'true' } } });
  });

  it('a deleted binding or role stops granting within the watch delay', async () => {
    const { admin } = srv();
    const bob = srv().user('bob');
    const n = await makeNamespace(admin);
    expect((await admin.post(`${RBAC}/namespaces/${n}/roles`, role(['list']))).status).toBe(201);
    expect((await admin.post(`${RBAC}/namespaces/${n}/rolebindings`, binding)).status).toBe(201);
    expect(await listStatus(bob, n)).toBe(200);
    expect((await admin.delete(`${RBAC}/namespaces/${n}/rolebindings/bob-reads`)).status).toBe(200);
    await vi.waitFor(async () => expect(await listStatus(bob, n)).toBe(403), WATCH_DELAY);
    // And through the role: bound again, then the role removed.
    expect((await admin.post(`${RBAC}/namespaces/${n}/rolebindings`, binding)).status).toBe(201);
    expect(await listStatus(bob, n)).toBe(200);
    expect((await admin.delete(`${RBAC}/namespaces/${n}/roles/cm-reader`)).status).toBe(200);
    await vi.waitFor(async () => expect(await listStatus(bob, n)).toBe(403), WATCH_DELAY);
  });
});

describe('RBAC over one etcd, two servers', () => {
  let etcd: TestEtcd;
  let a: ServerHandle;
  let b: ServerHandle;
  beforeAll(async () => {
    etcd = await startEtcd();
    [a, b] = await Promise.all([startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, etcdPrefix: '/rbac' }), startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, etcdPrefix: '/rbac' })]);
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await etcd?.stop();
  }, 60_000);

  it('a grant and its removal through one server count at the other within the watch delay', async () => {
    const n = await makeNamespace(a.admin);
    const bobAtB = b.user('bob');
    expect(await listStatus(bobAtB, n)).toBe(403);
    expect((await a.admin.post(`${RBAC}/namespaces/${n}/roles`, role(['list']))).status).toBe(201);
    expect((await a.admin.post(`${RBAC}/namespaces/${n}/rolebindings`, binding)).status).toBe(201);
    await vi.waitFor(async () => expect(await listStatus(bobAtB, n)).toBe(200), WATCH_DELAY);
    expect((await a.admin.delete(`${RBAC}/namespaces/${n}/rolebindings/bob-reads`)).status).toBe(200);
    await vi.waitFor(async () => expect(await listStatus(bobAtB, n)).toBe(403), WATCH_DELAY);
  });
});
