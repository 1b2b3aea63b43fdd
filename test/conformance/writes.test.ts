// Conformance, spec §3 (two-phase deletion), §4.11 (dry-run) and §4.12
// (updates and the four patch types), against both storage backends.
import { beforeAll, expect, it } from 'vitest';
import { describeBackends } from './helpers/backends.js';
import type { ApiClient } from './helpers/api-client.js';
import { cm, makeNamespace, ns, rv, sa } from './helpers/objects.js';

const MERGE = 'application/merge-patch+json';
const JSONPATCH = 'application/json-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

describeBackends('§3 §4.11 §4.12: writes', {}, (srv) => {
  let c: ApiClient;
  let n: string;
  beforeAll(async () => {
    c = srv().admin;
    n = await makeNamespace(c);
  });

  it('§3: delete of an object with finalizers sets deletionTimestamp and keeps it; removing the last finalizer removes it (MODIFIED then DELETED)', async () => {
    const path = `${ns(n)}/configmaps`;
    const created = (await c.post(path, cm('held', { a: '1' }, { finalizers: ['example.com/hold', 'example.com/second'] }))).json();
    const w = await c.watch(path, { resourceVersion: created.metadata.resourceVersion, fieldSelector: 'metadata.name=held' });
    try {
      const del = await c.delete(`${path}/held`);
      expect(del.status).toBe(200);
      expect(del.json().metadata.deletionTimestamp).toMatch(/Z$/);
      const still = (await c.get(`${path}/held`)).json();
      expect(still.metadata.finalizers).toEqual(['example.com/hold', 'example.com/second']);
      // Rule 1: order is not enforced: the second finalizer may go first.
      const one = await c.patch(`${path}/held`, [{ op: 'remove', path: '/metadata/finalizers/1' }], JSONPATCH);
      expect(one.status, one.text()).toBe(200);
      expect((await c.get(`${path}/held`)).status).toBe(200);
      const last = await c.patch(`${path}/held`, { metadata: { finalizers: null } }, MERGE);
      expect(last.status).toBe(200);
      expect((await c.get(`${path}/held`)).status).toBe(404);
      const events = await w.until((e) => e.type === 'DELETED');
      expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
    } finally {
      w.close();
    }
  });

  it('§3: a delete with a failed precondition (uid or resourceVersion) is 409 and deletes nothing', async () => {
    const o = (await c.post(`${ns(n)}/configmaps`, cm('pre'))).json();
    const wrongUid = await c.delete(`${ns(n)}/configmaps/pre`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'not-it' } } });
    expect(wrongUid.status).toBe(409);
    const wrongRv = await c.delete(`${ns(n)}/configmaps/pre`, { body: { preconditions: { resourceVersion: '1' } } });
    expect(wrongRv.status).toBe(409);
    expect((await c.get(`${ns(n)}/configmaps/pre`)).status).toBe(200);
    expect((await c.delete(`${ns(n)}/configmaps/pre`, { body: { preconditions: { uid: o.metadata.uid } } })).status).toBe(200);
  });

  it('§4.11: dryRun=All and ?dryRun run every stage but store nothing: POST, PUT, PATCH and DELETE', async () => {
    const path = `${ns(n)}/configmaps`;
    const before = (await c.get(path)).json().metadata.resourceVersion;
    for (const dryRun of ['All', '']) {
      const r = await c.post(path, cm('dry', { a: '1' }), { query: { dryRun } });
      expect(r.status, r.text()).toBe(201);
      expect(r.json()).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'dry', namespace: n }, data: { a: '1' } });
      expect((await c.get(`${path}/dry`)).status).toBe(404);
    }
    const invalid = await c.post(path, cm('Not_Valid'), { query: { dryRun: 'All' } });
    expect(invalid.status).toBe(422);
    const real = (await c.post(path, cm('real', { a: '1' }))).json();
    const put = await c.put(`${path}/real`, { ...real, data: { a: '2' } }, { query: { dryRun: 'All' } });
    expect(put.status).toBe(200);
    expect(put.json().data).toEqual({ a: '2' });
    const patch = await c.patch(`${path}/real`, { data: { a: '3' } }, MERGE, { query: { dryRun: 'All' } });
    expect(patch.json().data).toEqual({ a: '3' });
    const del = await c.delete(`${path}/real`, { query: { dryRun: 'All' } });
    expect(del.status).toBe(200);
    const after = (await c.get(`${path}/real`)).json();
    expect(after.data).toEqual({ a: '1' });
    expect(after.metadata.resourceVersion).toBe(real.metadata.resourceVersion);
    expect(Number((await c.get(path)).json().metadata.resourceVersion)).toBe(rv(real));
    expect(Number(before)).toBeLessThan(rv(real));
    const unsupported = await c.post(path, cm('dry2'), { query: { dryRun: 'Some' } });
    expect(unsupported.status).toBe(422);
  });

  it('§4.12 rule 1: PUT with a stale resourceVersion is 409 Conflict; with the current one it succeeds', async () => {
    const path = `${ns(n)}/configmaps`;
    const v1 = (await c.post(path, cm('cas', { v: '1' }))).json();
    const v2 = await c.put(`${path}/cas`, { ...v1, data: { v: '2' } });
    expect(v2.status).toBe(200);
    const stale = await c.put(`${path}/cas`, { ...v1, data: { v: '3' } });
    expect(stale.status).toBe(409);
    expect(stale.json()).toMatchObject({ reason: 'Conflict', code: 409 });
    expect(stale.json().message).toContain('the object has been modified');
    expect((await c.get(`${path}/cas`)).json().data).toEqual({ v: '2' });
  });

  it('§4.12 rule 2: JSON merge patch sets and (null) removes fields', async () => {
    const path = `${ns(n)}/configmaps`;
    await c.post(path, cm('mp', { a: '1', b: '2' }));
    const r = await c.patch(`${path}/mp`, { data: { a: null, c: '3' }, metadata: { labels: { x: 'y' } } }, MERGE);
    expect(r.status).toBe(200);
    expect(r.json().data).toEqual({ b: '2', c: '3' });
    expect(r.json().metadata.labels).toEqual({ x: 'y' });
  });

  it('§4.12 rule 2: JSON Patch applies operations in order; a failed test operation fails the whole patch', async () => {
    const path = `${ns(n)}/configmaps`;
    await c.post(path, cm('jp', { a: '1' }));
    const ok = await c.patch(`${path}/jp`, [{ op: 'test', path: '/data/a', value: '1' }, { op: 'add', path: '/data/b', value: '2' }, { op: 'replace', path: '/data/a', value: '9' }], JSONPATCH);
    expect(ok.status).toBe(200);
    expect(ok.json().data).toEqual({ a: '9', b: '2' });
    const failed = await c.patch(`${path}/jp`, [{ op: 'add', path: '/data/c', value: '3' }, { op: 'test', path: '/data/a', value: '1' }], JSONPATCH);
    expect(failed.status).toBe(422);
    expect((await c.get(`${path}/jp`)).json().data).toEqual({ a: '9', b: '2' });
  });

  it('§4.12 rule 2, §2.2: strategic merge patch merges ServiceAccount.secrets by name where a merge patch replaces the list', async () => {
    const path = `${ns(n)}/serviceaccounts`;
    await c.post(path, sa('smp', { secrets: [{ name: 'a' }] }));
    const smp = await c.patch(`${path}/smp`, { secrets: [{ name: 'b' }] }, SMP);
    expect(smp.status, smp.text()).toBe(200);
    expect(smp.json().secrets).toEqual([{ name: 'a' }, { name: 'b' }]);
    const merge = await c.patch(`${path}/smp`, { secrets: [{ name: 'c' }] }, MERGE);
    expect(merge.json().secrets).toEqual([{ name: 'c' }]);
    const del = await c.patch(`${path}/smp`, { secrets: [{ name: 'c', $patch: 'delete' }] }, SMP);
    expect(del.json().secrets ?? []).toEqual([]);
  });

  it('§4.12 rule 3: server-side apply creates when missing, records managed fields, reports conflicts (409) and force takes them over', async () => {
    const path = `${ns(n)}/configmaps`;
    const doc = (value: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  key: "${value}"\n`;
    const created = await c.patch(`${path}/applied`, doc('one'), APPLY, { query: { fieldManager: 'alpha' } });
    expect(created.status, created.text()).toBe(201);
    const mf = created.json().metadata.managedFields;
    expect(mf).toEqual([expect.objectContaining({ manager: 'alpha', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1' })]);
    expect(mf[0].fieldsV1).toMatchObject({ 'f:data': { 'f:key': {} } });
    const same = await c.patch(`${path}/applied`, doc('one'), APPLY, { query: { fieldManager: 'alpha' } });
    expect(same.status).toBe(200);
    const conflict = await c.patch(`${path}/applied`, doc('two'), APPLY, { query: { fieldManager: 'beta' } });
    expect(conflict.status).toBe(409);
    expect(conflict.json()).toMatchObject({ reason: 'Conflict', details: { causes: [expect.objectContaining({ reason: 'FieldManagerConflict', field: '.data.key' })] } });
    expect(conflict.json().message).toContain('alpha');
    const forced = await c.patch(`${path}/applied`, doc('two'), APPLY, { query: { fieldManager: 'beta', force: true } });
    expect(forced.status).toBe(200);
    expect(forced.json().data).toEqual({ key: 'two' });
    const managers = forced.json().metadata.managedFields.map((m: { manager: string }) => m.manager);
    expect(managers).toContain('beta');
    expect(managers).not.toContain('alpha');
    const noManager = await c.patch(`${path}/applied`, doc('x'), APPLY);
    expect(noManager.status).toBe(400);
    expect(noManager.json().message).toContain('fieldManager');
  });

  it('§4.12: an unknown patch Content-Type is 415; §4.12 rule 4: a patch carrying a stale resourceVersion is 409', async () => {
    const path = `${ns(n)}/configmaps`;
    const o = (await c.post(path, cm('pt', { a: '1' }))).json();
    expect((await c.patch(`${path}/pt`, { data: { a: '2' } }, 'application/json')).status).toBe(415);
    await c.patch(`${path}/pt`, { data: { a: '2' } }, MERGE);
    const stale = await c.patch(`${path}/pt`, { metadata: { resourceVersion: o.metadata.resourceVersion }, data: { a: '3' } }, MERGE);
    expect(stale.status).toBe(409);
  });

  it('every write records managedFields for its manager (the user agent when no fieldManager is given)', async () => {
    const path = `${ns(n)}/configmaps`;
    const r = await c.post(path, cm('mf', { a: '1' }), { query: { fieldManager: 'tester' } });
    expect(r.json().metadata.managedFields).toEqual([expect.objectContaining({ manager: 'tester', operation: 'Update' })]);
  });
});
