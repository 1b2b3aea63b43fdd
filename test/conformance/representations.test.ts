// Conformance, spec §2.4 (Table, envelope), §4.7 (compression), §4.8
// (tables), §4.9 (representations) and §4.10 (field validation), against
// both storage backends.
import { gunzipSync } from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import { describeBackends } from './helpers/backends.js';
import type { ApiClient, Json } from './helpers/api-client.js';
import { envelope, field, ld, openEnvelope, str } from './helpers/proto-reader.js';
import { makeNamespace, ns, sa } from './helpers/objects.js';

const PB = 'application/vnd.platform.protobuf';
const TABLE = 'application/json;as=Table;g=meta.platform.io;v=v1';

describeBackends('§2.4 §4.7-§4.10: representations', {}, (srv) => {
  let c: ApiClient;
  let n: string;
  beforeAll(async () => {
    c = srv().admin;
    n = await makeNamespace(c);
    await c.post(`${ns(n)}/serviceaccounts`, sa('one', { metadata: { labels: { a: 'b' } } }));
    await c.post(`${ns(n)}/serviceaccounts`, sa('two'));
  });

  it('§4.7: get and list with Accept-Encoding gzip answer gzip-compressed with content-encoding: gzip; without it, plain', async () => {
    for (const path of [`${ns(n)}/serviceaccounts/one`, `${ns(n)}/serviceaccounts`]) {
      const z = await c.get(path, { headers: { 'accept-encoding': 'gzip' } });
      expect(z.status).toBe(200);
      expect(z.header('content-encoding')).toBe('gzip');
      expect(JSON.parse(gunzipSync(z.raw).toString()).metadata).toBeDefined();
      const plain = await c.get(path);
      expect(plain.header('content-encoding')).toBeUndefined();
      expect(JSON.parse(plain.text()).metadata).toBeDefined();
    }
  });

  it('§2.4, §4.8: a Table has the default two columns (Name string, Created At date) built from name and creationTimestamp', async () => {
    const r = await c.get(`${ns(n)}/serviceaccounts`, { accept: TABLE });
    expect(r.status).toBe(200);
    const t = r.json();
    expect(t).toMatchObject({ kind: 'Table', apiVersion: 'meta.platform.io/v1' });
    expect(t.columnDefinitions.map((d: Json) => [d.name, d.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    const one = (await c.get(`${ns(n)}/serviceaccounts/one`)).json();
    const row = t.rows.find((x: Json) => x.cells[0] === 'one');
    expect(row.cells).toEqual(['one', one.metadata.creationTimestamp]);
    const single = (await c.get(`${ns(n)}/serviceaccounts/one`, { accept: TABLE })).json();
    expect(single.rows.map((x: Json) => x.cells[0])).toEqual(['one']);
  });

  it('§4.8: a client lists application/json after the Table type as a fallback; Table alone over a protobuf-only Accept is 406', async () => {
    const r = await c.get(`${ns(n)}/serviceaccounts/one`, { accept: `${TABLE}, application/json` });
    expect(r.status).toBe(200);
    expect(['Table', 'ServiceAccount']).toContain(r.json().kind);
    const pbTable = await c.get(`${ns(n)}/serviceaccounts/one`, { accept: `${PB};as=Table;g=meta.platform.io;v=v1` });
    expect(pbTable.status).toBe(406);
  });

  it('§4.9 rules 1-2, 4: protobuf responses carry the served Content-Type and the envelope (magic 6b 38 73 00, Unknown{typeMeta, raw})', async () => {
    const r = await c.get(`${ns(n)}/serviceaccounts/one`, { accept: PB });
    expect(r.status).toBe(200);
    expect(r.header('content-type')).toBe(PB);
    const env = openEnvelope(r.raw);
    expect([env.apiVersion, env.kind]).toEqual(['v1', 'ServiceAccount']);
    const meta = field(env.raw, 1);
    expect(str(meta, 1)).toBe('one');
    expect(str(meta, 3)).toBe(n);
    const list = openEnvelope((await c.get(`${ns(n)}/serviceaccounts`, { accept: PB })).raw);
    expect(list.kind).toBe('ServiceAccountList');
  });

  it('§4.9 rule 2: a protobuf request body is accepted with its Content-Type; Accept may differ', async () => {
    const raw = ld(1, Buffer.concat([ld(1, 'from-pb')]));
    const r = await c.post(`${ns(n)}/serviceaccounts`, envelope('v1', 'ServiceAccount', raw), { contentType: PB, accept: 'application/json' });
    expect(r.status, r.text()).toBe(201);
    expect(r.json()).toMatchObject({ kind: 'ServiceAccount', metadata: { name: 'from-pb', namespace: n } });
  });

  it('§4.9 rule 2, §7: when no requested media type is supported the answer is 406; an unknown request Content-Type is 415', async () => {
    const r = await c.get(`${ns(n)}/serviceaccounts/one`, { accept: 'application/xml' });
    expect(r.status).toBe(406);
    expect(r.json()).toMatchObject({ kind: 'Status', code: 406, reason: 'NotAcceptable' });
    const w = await c.post(`${ns(n)}/serviceaccounts`, '<sa/>', { contentType: 'application/xml' });
    expect(w.status).toBe(415);
  });

  it('§4.10 Warn (the default): succeeds with one Warning header item per unknown or duplicate field', async () => {
    const body = '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"warned","bogus":1},"automountServiceAccountToken":true,"automountServiceAccountToken":false,"extra":"x"}';
    const r = await c.post(`${ns(n)}/serviceaccounts`, body);
    expect(r.status, r.text()).toBe(201);
    const warnings = r.headerValues('warning');
    expect(warnings).toHaveLength(3);
    expect(warnings.join('\n')).toContain('unknown field \\"metadata.bogus\\"');
    expect(warnings.join('\n')).toContain('unknown field \\"extra\\"');
    expect(warnings.join('\n')).toContain('duplicate field \\"automountServiceAccountToken\\"');
    expect(r.json()).not.toHaveProperty('extra');
    expect(r.json().automountServiceAccountToken).toBe(false);
  });

  it('§4.10 Ignore: succeeds silently; Strict: 400 naming every unknown and duplicate field, nothing stored', async () => {
    const body = (name: string): string => `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"${name}"},"extra":"x","secrets":[],"secrets":[]}`;
    const ignored = await c.post(`${ns(n)}/serviceaccounts`, body('ignored'), { query: { fieldValidation: 'Ignore' } });
    expect(ignored.status).toBe(201);
    expect(ignored.headerValues('warning')).toEqual([]);
    const strict = await c.post(`${ns(n)}/serviceaccounts`, body('strict'), { query: { fieldValidation: 'Strict' } });
    expect(strict.status).toBe(400);
    expect(strict.json().message).toContain('unknown field "extra"');
    expect(strict.json().message).toContain('duplicate field "secrets"');
    expect((await c.get(`${ns(n)}/serviceaccounts/strict`)).status).toBe(404);
    const badLevel = await c.post(`${ns(n)}/serviceaccounts`, body('x'), { query: { fieldValidation: 'Loud' } });
    expect(badLevel.status).toBe(422);
  });

  it('§4.10 rule 1: field types are always validated; a required field left out is an error', async () => {
    const wrongType = await c.post(`${ns(n)}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'typed' }, automountServiceAccountToken: 'yes' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json().message).toContain('automountServiceAccountToken');
    const noName = await c.post(`${ns(n)}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: {} });
    expect(noName.status).toBe(422);
    expect(noName.json()).toMatchObject({ reason: 'Invalid', details: { causes: [{ field: 'metadata.name', reason: 'FieldValueRequired' }] } });
  });

  it('bad input: malformed JSON, wrong kind or apiVersion for the path, a body over the limit, deep nesting: a Status naming the problem, nothing stored', async () => {
    const bad = await c.post(`${ns(n)}/serviceaccounts`, '{"apiVersion":"v1",');
    expect(bad.status).toBe(400);
    const wrongKind = await c.post(`${ns(n)}/serviceaccounts`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'k' } });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.json().message).toContain('ConfigMap');
    const wrongVersion = await c.post(`${ns(n)}/serviceaccounts`, { apiVersion: 'v2', kind: 'ServiceAccount', metadata: { name: 'k' } });
    expect(wrongVersion.status).toBe(400);
    // Several times: this client closes after each request, so a server that answered
    // before reading the refused body would cut the upload (EPIPE) most of the time.
    for (let i = 0; i < 5; i++) {
      const huge = await c.post(`${ns(n)}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'huge' }, data: { big: 'x'.repeat(4 * 1024 * 1024) } });
      expect(huge.status).toBe(413);
    }
    const deep = `${'['.repeat(20_000)}"x"${']'.repeat(20_000)}`;
    const nested = await c.post(`${ns(n)}/configmaps`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":{"a":${deep}}}`);
    expect(nested.status).toBe(400);
    for (const name of ['k', 'huge', 'deep']) expect((await c.get(`${ns(n)}/configmaps/${name}`)).status).toBe(404);
    expect((await c.get('/readyz')).status).toBe(200);
  });
});
