// Conformance, spec §1 (what the service does), §2.1 (common fields), §4.1
// (path shapes), §4.2 (ServiceAccount operations), §4.4 (query sets) and §9
// (versioning, discovery), against both storage backends.
import { expect, it } from 'vitest';
import { describeBackends } from './helpers/backends.js';
import type { Json } from './helpers/api-client.js';
import { CORE, eventually, makeNamespace, ns, sa } from './helpers/objects.js';

describeBackends('§1 §2.1 §4.1 §4.2 §4.4: resources, paths and verbs', { featureGates: 'ClusterTrustBundle=true' }, (srv) => {
  it('§4.2 create answers 201 with the server-set metadata of §2.1; get answers 200 with the same object', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const created = await c.post(`${ns(n)}/serviceaccounts`, sa('robot', { automountServiceAccountToken: false, imagePullSecrets: [{ name: 'pull' }], secrets: [{ name: 's1' }] }));
    expect(created.status, created.text()).toBe(201);
    const obj = created.json();
    expect(obj).toMatchObject({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: n }, automountServiceAccountToken: false, imagePullSecrets: [{ name: 'pull' }], secrets: [{ name: 's1' }] });
    expect(obj.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(obj.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(new Date(obj.metadata.creationTimestamp).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const got = await c.get(`${ns(n)}/serviceaccounts/robot`);
    expect(got.status).toBe(200);
    expect(got.json()).toEqual(obj);
  });

  it('§1 rule 1: a name is unique per kind and namespace (409 AlreadyExists), reusable after deletion with a new uid; the same name in another namespace is another object', async () => {
    const c = srv().admin;
    const [a, b] = [await makeNamespace(c), await makeNamespace(c)];
    const first = (await c.post(`${ns(a)}/serviceaccounts`, sa('dup'))).json();
    const again = await c.post(`${ns(a)}/serviceaccounts`, sa('dup'));
    expect(again.status).toBe(409);
    expect(again.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'AlreadyExists', code: 409, details: { name: 'dup', kind: 'serviceaccounts' } });
    expect((await c.post(`${ns(b)}/serviceaccounts`, sa('dup'))).status).toBe(201);
    expect((await c.delete(`${ns(a)}/serviceaccounts/dup`)).status).toBe(200);
    const reborn = await c.post(`${ns(a)}/serviceaccounts`, sa('dup'));
    expect(reborn.status).toBe(201);
    expect(reborn.json().metadata.uid).not.toBe(first.metadata.uid);
  });

  it('§2.1 generateName: the server generates a unique random name from the prefix', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const names = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const r = await c.post(`${ns(n)}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { generateName: 'gen-' } });
      expect(r.status, r.text()).toBe(201);
      const { name, generateName } = r.json().metadata;
      expect(generateName).toBe('gen-');
      expect(name).toMatch(/^gen-[a-z0-9]{5}$/);
      names.add(name);
    }
    expect(names.size).toBe(3);
  });

  it('§1 rule 7, §4.1: lists are <Kind>List with ListMeta; a namespaced type lists across namespaces at the path without the namespace segment', async () => {
    const c = srv().admin;
    const [a, b] = [await makeNamespace(c), await makeNamespace(c)];
    await c.post(`${ns(a)}/serviceaccounts`, sa('x'));
    await c.post(`${ns(b)}/serviceaccounts`, sa('y'));
    const one = await c.get(`${ns(a)}/serviceaccounts`);
    expect(one.status).toBe(200);
    expect(one.json()).toMatchObject({ apiVersion: 'v1', kind: 'ServiceAccountList', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
    // Every namespace also has its `default` account (§2.2).
    expect(one.json().items.map((i: Json) => i.metadata.name)).toEqual(['default', 'x']);
    const all = (await c.get(`${CORE}/serviceaccounts`)).json();
    expect(all.kind).toBe('ServiceAccountList');
    const mine = all.items.filter((i: Json) => (i.metadata.namespace === a || i.metadata.namespace === b) && i.metadata.name !== 'default').map((i: Json) => `${i.metadata.namespace}/${i.metadata.name}`);
    expect(mine.sort()).toEqual([`${a}/x`, `${b}/y`].sort());
    const empty = (await c.get(`${ns(await makeNamespace(c))}/configmaps`)).json();
    expect(empty.items).toEqual([]);
  });

  it('§4.1: namespaces are cluster-scoped (GET /api/v1/namespaces and /api/v1/namespaces/<name>)', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const list = (await c.get(`${CORE}/namespaces`)).json();
    expect(list.kind).toBe('NamespaceList');
    expect(list.items.map((i: Json) => i.metadata.name)).toEqual(expect.arrayContaining(['default', n]));
    const one = await c.get(`${CORE}/namespaces/${n}`);
    expect(one.status).toBe(200);
    expect(one.json()).toMatchObject({ kind: 'Namespace', metadata: { name: n }, status: { phase: 'Active' } });
    expect(one.json().metadata.namespace).toBeUndefined();
  });

  it('§4.1: named-group cluster-scoped paths (/apis/<group>/<version>/<resource>[/<name>])', async () => {
    const c = srv().admin;
    const list = await c.get('/apis/certificates.platform.io/v1alpha1/clustertrustbundles');
    expect(list.status).toBe(200);
    expect(list.json()).toMatchObject({ apiVersion: 'certificates.platform.io/v1alpha1', kind: 'ClusterTrustBundleList', items: expect.any(Array) });
    const missing = await c.get('/apis/certificates.platform.io/v1alpha1/clustertrustbundles/nope');
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ reason: 'NotFound', details: { name: 'nope', group: 'certificates.platform.io', kind: 'clustertrustbundles' } });
  });

  it('§4.1: named-group namespaced paths (leases); §1 rule 6: a PUT to a missing lease creates it (201), a second PUT updates it (200)', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const base = `/apis/coordination.platform.io/v1/namespaces/${n}/leases`;
    const lease = { apiVersion: 'coordination.platform.io/v1', kind: 'Lease', metadata: { name: 'l1', namespace: n }, spec: { holderIdentity: 'a', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.000000Z' } };
    const created = await c.put(`${base}/l1`, lease);
    expect(created.status, created.text()).toBe(201);
    expect(created.json().spec.renewTime).toBe('2026-01-01T00:00:00.000000Z');
    const updated = await c.put(`${base}/l1`, { ...created.json(), spec: { ...lease.spec, holderIdentity: 'b' } });
    expect(updated.status).toBe(200);
    expect(updated.json().spec.holderIdentity).toBe('b');
    expect(Number(updated.json().metadata.resourceVersion)).toBeGreaterThan(Number(created.json().metadata.resourceVersion));
  });

  it('§1 rule 6: a PUT to a missing ServiceAccount is not a create (404 NotFound)', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const r = await c.put(`${ns(n)}/serviceaccounts/ghost`, sa('ghost'));
    expect(r.status).toBe(404);
  });

  it('§4.2 delete answers 200 with the ServiceAccount; deletecollection answers 200 Status and deletes only what the selector matches', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    for (const [name, team] of [['a', 'x'], ['b', 'x'], ['c', 'y']] as const) await c.post(`${ns(n)}/serviceaccounts`, sa(name, { metadata: { labels: { team } } }));
    const del = await c.delete(`${ns(n)}/serviceaccounts/c`);
    expect(del.status).toBe(200);
    expect(del.json()).toMatchObject({ kind: 'ServiceAccount', metadata: { name: 'c' } });
    await c.post(`${ns(n)}/serviceaccounts`, sa('d', { metadata: { labels: { team: 'y' } } }));
    const coll = await c.delete(`${ns(n)}/serviceaccounts`, { query: { labelSelector: 'team=x' } });
    expect(coll.status).toBe(200);
    expect(coll.json()).toMatchObject({ kind: 'Status', status: 'Success' });
    const left = (await c.get(`${ns(n)}/serviceaccounts`)).json().items.map((i: Json) => i.metadata.name);
    expect(left).toEqual(['d', 'default']);
  });

  it('§1 rule 2: namespaced objects are removed with their namespace', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    await c.post(`${ns(n)}/serviceaccounts`, sa('inside'));
    await c.post(`${ns(n)}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } });
    const del = await c.delete(`${CORE}/namespaces/${n}`);
    expect(del.status).toBe(200);
    await eventually('namespace removed', async () => (await c.get(`${CORE}/namespaces/${n}`)).status === 404);
    expect((await c.get(`${ns(n)}/serviceaccounts/inside`)).status).toBe(404);
    expect((await c.get(`${ns(n)}/configmaps/cm`)).status).toBe(404);
    const create = await c.post(`${ns(n)}/serviceaccounts`, sa('late'));
    expect(create.status).toBe(404);
  });

  it('§1 rule 3: one resource per request: a body for a different name or namespace than the path is refused (400)', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const other = await c.post(`${ns(n)}/serviceaccounts`, { ...sa('x'), metadata: { name: 'x', namespace: 'elsewhere' } });
    expect(other.status).toBe(400);
    expect(other.json().message).toContain('does not match the namespace');
    await c.post(`${ns(n)}/serviceaccounts`, sa('y'));
    const renamed = await c.put(`${ns(n)}/serviceaccounts/y`, sa('z'));
    expect(renamed.status).toBe(400);
  });

  it('§4.4: a list-set parameter with a bad value is a 400 naming it', async () => {
    const c = srv().admin;
    const r = await c.get(`${CORE}/serviceaccounts`, { query: { limit: 'many' } });
    expect(r.status).toBe(400);
    expect(r.json().message).toContain('limit');
    const w = await c.get(`${CORE}/serviceaccounts`, { query: { labelSelector: 'a in (' } });
    expect(w.status).toBe(400);
  });

  it('§9 rule 1, discovery: /api, /apis, /api/v1 and /apis/<g>/<v> describe what is served', async () => {
    const c = srv().admin;
    expect((await c.get('/api')).json()).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const groups = (await c.get('/apis')).json();
    expect(groups.kind).toBe('APIGroupList');
    const names = groups.groups.map((g: Json) => g.name);
    expect(names).toEqual(expect.arrayContaining(['coordination.platform.io', 'certificates.platform.io', 'rbac.authorization.platform.io', 'authentication.platform.io', 'authorization.platform.io']));
    const core = (await c.get('/api/v1')).json();
    expect(core).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    const saRes = core.resources.find((r: Json) => r.name === 'serviceaccounts');
    expect(saRes).toMatchObject({ namespaced: true, kind: 'ServiceAccount', verbs: expect.arrayContaining(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']) });
    expect(core.resources.map((r: Json) => r.name)).toEqual(expect.arrayContaining(['pods', 'pods/status', 'pods/binding', 'pods/eviction', 'nodes', 'nodes/status', 'namespaces', 'events', 'configmaps', 'secrets', 'serviceaccounts/token']));
    const ctb = (await c.get('/apis/certificates.platform.io/v1alpha1')).json();
    expect(ctb.resources.find((r: Json) => r.name === 'clustertrustbundles')).toMatchObject({ namespaced: false, kind: 'ClusterTrustBundle' });
    const version = (await c.get('/version')).json();
    expect(version).toMatchObject({ major: '1', minor: expect.stringMatching(/^28/) });
  });
});

describeBackends('§9 rule 2: ClusterTrustBundle is served only with its gate', {}, (srv) => {
  it('without ClusterTrustBundle=true the resource and its group version are absent (404)', async () => {
    const c = srv().admin;
    expect((await c.get('/apis/certificates.platform.io/v1alpha1/clustertrustbundles')).status).toBe(404);
    const groups = (await c.get('/apis')).json();
    const certs = groups.groups.find((g: Json) => g.name === 'certificates.platform.io');
    expect(certs?.versions.map((v: Json) => v.version) ?? []).not.toContain('v1alpha1');
  });
});
