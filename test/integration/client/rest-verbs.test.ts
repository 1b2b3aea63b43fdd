// The rest layer against the real platform-apiserver, both backends, every
// verb in JSON and in protobuf: reads with their resourceVersion options,
// paging (including a continue token expired by compaction between pages),
// Tables, and the writes of §4.10–§4.12.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadApiCodec, type ApiObject } from '../../../src/api/codec/index.js';
import { isConflict, isNotFound } from '../../../src/api/errors.js';
import { MEDIA_JSON, MEDIA_PROTOBUF, PATCH_APPLY, PATCH_JSON, PATCH_MERGE, PATCH_STRATEGIC } from '../../../src/api/media.js';
import { ApiStatusError } from '../../../src/client/errors.js';
import { RESOURCES, createRestClient, type RestClient } from '../../../src/client/rest/index.js';
import type { ClientLog, Transport, TransportRequest } from '../../../src/client/types.js';
import { describeBackends, uniq } from '../../conformance/helpers/backends.js';
import { fault, restClientsPerRepresentation } from './helpers/transport.js';

const quiet: ClientLog = { info: () => undefined, warn: () => undefined, error: () => undefined };
const meta = (o: ApiObject): Record<string, unknown> => o['metadata'] as Record<string, unknown>;
const cm = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });
const rejection = async (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

describeBackends('client rest: verbs', { faults: true }, (srv) => {
  const { clientFor, transport: sharedTransport } = restClientsPerRepresentation(srv);

  for (const ct of [MEDIA_JSON, MEDIA_PROTOBUF] as const) {
    describe(ct, () => {
      const rest = (): RestClient => clientFor(ct);
      let ns = '';
      beforeAll(async () => {
        ns = uniq('rest');
        await rest().resource(RESOURCES.namespaces).create({ metadata: { name: ns } });
      });

      it('create (also with generateName), get at every resourceVersion, list, Table', async () => {
        const cms = rest().resource(RESOURCES.configMaps, ns);
        const a = await cms.create(cm('a', { k: 'v' }));
        expect(a).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: ns }, data: { k: 'v' } });
        const gen = await cms.create({ metadata: { generateName: 'gen-' }, data: {} });
        expect(String(meta(gen)['name'])).toMatch(/^gen-.{5}$/);
        for (const resourceVersion of [undefined, '0', String(meta(a)['resourceVersion'])]) {
          expect(await cms.get('a', resourceVersion === undefined ? {} : { resourceVersion })).toMatchObject({ data: { k: 'v' } });
        }
        const page = await cms.list({});
        expect(page.resourceVersion).not.toBe('');
        expect(page.items.map((i) => meta(i)['name']).sort()).toEqual(['a', meta(gen)['name']].sort());
        expect(page.items.every((i) => i['kind'] === 'ConfigMap')).toBe(true);
        const exact = await cms.list({ resourceVersion: page.resourceVersion, resourceVersionMatch: 'Exact' });
        expect(exact.resourceVersion).toBe(page.resourceVersion);
        const table = await cms.getTable('');
        expect(table.kind).toBe('Table');
        const err = await rejection(cms.get('missing'));
        expect(err).toBeInstanceOf(ApiStatusError);
        expect(isNotFound(err)).toBe(true);
      });

      it('dryRun=All stores nothing; fieldValidation=Strict names unknown fields', async () => {
        const cms = rest().resource(RESOURCES.configMaps, ns);
        const dry = await cms.create(cm('dry'), { dryRun: true });
        expect(meta(dry)['name']).toBe('dry');
        expect(isNotFound(await rejection(cms.get('dry')))).toBe(true);
        if (ct === MEDIA_JSON) {
          const err = await rejection(cms.create({ ...cm('strict'), bogus: 1 }, { fieldValidation: 'Strict' }));
          expect(err).toMatchObject({ code: 400 });
          expect(String((err as Error).message)).toContain('bogus');
        }
      });

      it('update with the object’s resourceVersion (stale → 409), updateWithRetry, a status subresource', async () => {
        const cms = rest().resource(RESOURCES.configMaps, ns);
        const u = await cms.create(cm('u', { n: '0' }));
        const u1 = await cms.update({ ...u, data: { n: '1' } });
        expect(u1).toMatchObject({ data: { n: '1' } });
        expect(isConflict(await rejection(cms.update({ ...u, data: { n: 'stale' } })))).toBe(true);
        let calls = 0;
        const u2 = await cms.updateWithRetry('u', (cur) => {
          calls++;
          return { ...cur, data: { n: String(Number((cur['data'] as Record<string, string>)['n']) + 1) } };
        });
        expect(u2).toMatchObject({ data: { n: '2' } });
        expect(calls).toBe(1);
        // A first PUT with a stale version gets the server's 409; the helper starts over from a fresh GET.
        calls = 0;
        const u3 = await cms.updateWithRetry('u', (cur) => {
          calls++;
          const stale = calls === 1 ? { resourceVersion: meta(u)['resourceVersion'] } : {};
          return { ...cur, metadata: { ...meta(cur), ...stale }, data: { n: '3' } };
        });
        expect(u3).toMatchObject({ data: { n: '3' } });
        expect(calls).toBe(2);

        const nodes = rest().resource(RESOURCES.nodes);
        const name = uniq('node');
        const node = await nodes.create({ metadata: { name } });
        const withStatus = await nodes.update({ ...node, status: { conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
        expect(withStatus).toMatchObject({ status: { conditions: [{ type: 'Ready', status: 'True' }] } });
        const patched = await nodes.patch(name, PATCH_STRATEGIC, { metadata: { uid: meta(node)['uid'] }, status: { conditions: [{ type: 'Ready', status: 'False' }] } }, { subresource: 'status' });
        expect(patched).toMatchObject({ status: { conditions: [{ type: 'Ready', status: 'False' }] } });
        await nodes.delete(name);
      });

      it('patch in the four types; apply with fieldManager and force', async () => {
        const cms = rest().resource(RESOURCES.configMaps, ns);
        await cms.create(cm('p', { a: '1' }));
        expect(await cms.patch('p', PATCH_MERGE, { data: { b: '2' } })).toMatchObject({ data: { a: '1', b: '2' } });
        expect(await cms.patch('p', PATCH_STRATEGIC, { data: { c: '3' } })).toMatchObject({ data: { a: '1', b: '2', c: '3' } });
        expect(await cms.patch('p', PATCH_JSON, [{ op: 'remove', path: '/data/a' }])).toEqual(expect.objectContaining({ data: { b: '2', c: '3' } }));
        expect(await rejection(cms.patch('p', PATCH_JSON, [{ op: 'test', path: '/data/b', value: 'x' }]))).toBeInstanceOf(ApiStatusError);
        const applied = await cms.patch('p2', PATCH_APPLY, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p2' }, data: { x: '1' } }, { fieldManager: 'agent-a' });
        expect(applied).toMatchObject({ data: { x: '1' } });
        const conflict = await rejection(cms.patch('p2', PATCH_APPLY, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p2' }, data: { x: '2' } }, { fieldManager: 'agent-b' }));
        expect(isConflict(conflict)).toBe(true);
        expect(await cms.patch('p2', PATCH_APPLY, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p2' }, data: { x: '2' } }, { fieldManager: 'agent-b', force: true })).toMatchObject({ data: { x: '2' } });
      });

      it('delete with preconditions, gracePeriodSeconds and dryRun; deletecollection by label', async () => {
        const cms = rest().resource(RESOURCES.configMaps, ns);
        const d = await cms.create(cm('d'));
        expect(isConflict(await rejection(cms.delete('d', { preconditions: { uid: 'not-the-uid' } })))).toBe(true);
        await cms.delete('d', { dryRun: true, preconditions: { uid: String(meta(d)['uid']) } });
        await cms.get('d');
        const gone = await cms.delete('d', { gracePeriodSeconds: 0, propagationPolicy: 'Background', preconditions: { uid: String(meta(d)['uid']), resourceVersion: String(meta(d)['resourceVersion']) } });
        expect(['ConfigMap', 'Status']).toContain(gone['kind']);
        expect(isNotFound(await rejection(cms.get('d')))).toBe(true);
        for (const n of ['c1', 'c2', 'c3']) await cms.create(cm(n, {}, { group: n === 'c3' ? 'keep' : 'drop' }));
        expect(await cms.deleteCollection({ labelSelector: 'group=drop' })).toMatchObject({ kind: 'Status' });
        const left = await cms.list({ labelSelector: 'group' });
        expect(left.items.map((i) => meta(i)['name'])).toEqual(['c3']);
      });

      it('listAll pages; a continue token expired by compaction between pages → one full list', async () => {
        const pns = uniq('page');
        await rest().resource(RESOURCES.namespaces).create({ metadata: { name: pns } });
        const cms = rest().resource(RESOURCES.configMaps, pns);
        for (let i = 0; i < 7; i++) await cms.create(cm(`i${i}`));
        const all = await cms.listAll({ limit: 2 });
        expect(all.items).toHaveLength(7);

        // The same list through a Transport that, after the first page, writes elsewhere and compacts the history.
        const seen: TransportRequest[] = [];
        let compacted = false;
        const transport = sharedTransport();
        const compacting: Transport = {
          ...transport,
          request: async (req) => {
            seen.push(req);
            const res = await transport.request(req);
            if (!compacted && req.query?.get('limit') === '3' && !req.query.has('continue')) {
              compacted = true;
              await rest().resource(RESOURCES.configMaps, ns).create(cm(uniq('bump')));
              await fault(srv(), 'compact');
            }
            return res;
          },
        };
        const viaCompacting = createRestClient({ transport: compacting, codec: await loadApiCodec(), contentType: ct, log: quiet }).resource(RESOURCES.configMaps, pns);
        const again = await viaCompacting.listAll({ limit: 3 });
        expect(again.items.map((i) => meta(i)['name']).sort()).toEqual(['i0', 'i1', 'i2', 'i3', 'i4', 'i5', 'i6']);
        expect(seen.map((r) => [r.query?.get('limit') ?? '', r.query?.has('continue') ?? false])).toEqual([
          ['3', false],
          ['3', true],
          ['', false],
        ]);
      });
    });
  }
});
