import { beforeAll, describe, expect, it } from 'vitest';
import { loadApiCodec, type ApiCodec } from '../../../../src/api/codec/index.js';
import { apiErrors } from '../../../../src/api/errors.js';
import { MEDIA_JSON, MEDIA_PROTOBUF, PATCH_APPLY, PATCH_STRATEGIC } from '../../../../src/api/media.js';
import { ApiStatusError, ClientProtocolError } from '../../../../src/client/errors.js';
import { ACCEPT_TABLE, ClientRequestError, RESOURCES, createRestClient } from '../../../../src/client/rest/index.js';
import type { TransportRequest } from '../../../../src/client/types.js';
import { fakeTransport, json, memoryLog, pod, proto, statusError, type Answer } from './fake-transport.js';

let codec: ApiCodec;
beforeAll(async () => {
  codec = await loadApiCodec();
});

function client(contentType: typeof MEDIA_JSON | typeof MEDIA_PROTOBUF, answer: (req: TransportRequest, n: number) => Answer) {
  const transport = fakeTransport(answer);
  const log = memoryLog();
  return { transport, log, rest: createRestClient({ transport, codec, contentType, log }) };
}

const rejection = async (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

describe('representations (§4.9)', () => {
  it('protobuf: envelope bodies, protobuf-then-JSON Accept, protobuf answers decoded', async () => {
    const { transport, rest } = client(MEDIA_PROTOBUF, () => proto(codec, pod('p1', { metadata: { name: 'p1', namespace: 'ns1', resourceVersion: '9' } })));
    const got = await rest.resource(RESOURCES.pods, 'ns1').create(pod('p1'));
    const req = transport.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/api/v1/namespaces/ns1/pods');
    expect(req.headers).toEqual({ accept: `${MEDIA_PROTOBUF}, ${MEDIA_JSON}`, 'content-type': MEDIA_PROTOBUF });
    expect(codec.decode(req.body as Uint8Array).object['metadata']).toMatchObject({ name: 'p1' });
    expect(req.idempotent).toBe(false);
    expect(got).toMatchObject({ kind: 'Pod', metadata: { resourceVersion: '9' } });
  });

  it('JSON: JSON bodies and Accept; a JSON answer is read whatever was asked', async () => {
    const { transport, rest } = client(MEDIA_JSON, () => json(pod('p1')));
    await rest.resource(RESOURCES.pods, 'ns1').update(pod('p1'));
    const req = transport.requests[0]!;
    expect(req.headers).toEqual({ accept: MEDIA_JSON, 'content-type': MEDIA_JSON });
    expect(JSON.parse(req.body as string)).toMatchObject({ kind: 'Pod', apiVersion: 'v1' });
    expect(req.idempotent).toBe(true);
  });

  it('a 406 switches the type to JSON for good (logged once) and sends the request once more as JSON', async () => {
    const { transport, log, rest } = client(MEDIA_PROTOBUF, (req) => (req.headers?.['accept']?.startsWith(MEDIA_PROTOBUF) === true ? statusError(req, apiErrors.notAcceptable([MEDIA_JSON])) : json(pod('p1'))));
    const pods = rest.resource(RESOURCES.pods, 'ns1');
    await pods.get('p1');
    await pods.create(pod('p2'));
    expect(transport.requests.map((r) => r.headers?.['accept'])).toEqual([`${MEDIA_PROTOBUF}, ${MEDIA_JSON}`, MEDIA_JSON, MEDIA_JSON]);
    expect(transport.requests[2]!.headers?.['content-type']).toBe(MEDIA_JSON);
    expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    // Other types keep protobuf.
    await rest.resource(RESOURCES.nodes).get('n1').catch(() => undefined);
    expect(transport.requests[3]!.headers?.['accept']).toBe(`${MEDIA_PROTOBUF}, ${MEDIA_JSON}`);
  });

  it('a 415 to a protobuf body is the same refusal: JSON from then on', async () => {
    const { transport, rest } = client(MEDIA_PROTOBUF, (req) => (req.headers?.['content-type'] === MEDIA_PROTOBUF ? statusError(req, apiErrors.unsupportedMediaType(MEDIA_PROTOBUF, [MEDIA_JSON])) : json(pod('p1'))));
    await rest.resource(RESOURCES.pods, 'ns1').create(pod('p1'));
    expect(transport.requests.map((r) => r.headers?.['content-type'])).toEqual([MEDIA_PROTOBUF, MEDIA_JSON]);
  });

  it('an object the codec cannot encode is refused naming the field, before sending', async () => {
    const { transport, rest } = client(MEDIA_PROTOBUF, () => json(pod('p1')));
    const err = await rejection(rest.resource(RESOURCES.pods, 'ns1').create({ metadata: { name: 'p1' }, spec: { containers: 'not-a-list' } }));
    expect(err).toBeInstanceOf(ClientRequestError);
    expect((err as ClientRequestError).field).toContain('containers');
    expect(transport.requests).toHaveLength(0);
  });

  it('a 406 in JSON is the caller’s error', async () => {
    const { transport, rest } = client(MEDIA_JSON, (req) => statusError(req, apiErrors.notAcceptable([MEDIA_PROTOBUF])));
    expect(await rejection(rest.resource(RESOURCES.pods, 'a').get('x'))).toMatchObject({ code: 406 });
    expect(transport.requests).toHaveLength(1);
  });

  it.each([
    ['truncated protobuf', (c: ApiCodec) => ({ status: 200, headers: { 'content-type': MEDIA_PROTOBUF }, body: c.encode(pod('p1')).subarray(0, 20) }), 'body'],
    ['not an envelope', () => ({ status: 200, headers: { 'content-type': MEDIA_PROTOBUF }, body: Buffer.from('{"kind":"Pod"}') }), 'body'],
    ['truncated JSON', () => ({ status: 200, headers: { 'content-type': MEDIA_JSON }, body: Buffer.from('{"kind":"Pod","meta') }), 'body'],
    ['a JSON array', () => json([1]), 'body'],
    ['another kind', () => json({ kind: 'Node', apiVersion: 'v1', metadata: { name: 'p1' } }), 'kind'],
    ['another media type', () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from('<html>') }), 'content-type'],
  ])('%s → ClientProtocolError on %s', async (_w, answer, field) => {
    const { rest } = client(MEDIA_PROTOBUF, () => answer(codec));
    const err = await rejection(rest.resource(RESOURCES.pods, 'ns1').get('p1'));
    expect(err).toBeInstanceOf(ClientProtocolError);
    expect(err).toMatchObject({ field, request: { method: 'GET', path: '/api/v1/namespaces/ns1/pods/p1' } });
  });
});


describe('reads', () => {
  it('get passes resourceVersion through (unset, 0, a version) and is idempotent', async () => {
    const { transport, rest } = client(MEDIA_JSON, () => json(pod('p1')));
    const pods = rest.resource(RESOURCES.pods, 'ns1');
    await pods.get('p1');
    await pods.get('p1', { resourceVersion: '0' });
    await pods.get('p1', { resourceVersion: '42' });
    expect(transport.requests.map((r) => r.query?.toString() ?? '')).toEqual(['', 'resourceVersion=0', 'resourceVersion=42']);
    expect(transport.requests.every((r) => r.idempotent === true && r.limiter === 'default')).toBe(true);
  });

  it('refuses what it cannot address, before sending', async () => {
    const { transport, rest } = client(MEDIA_JSON, () => json(pod('p1')));
    expect(await rejection(rest.resource(RESOURCES.pods).get('p1'))).toMatchObject({ name: 'ClientRequestError', field: 'namespace' });
    expect(await rejection(rest.resource(RESOURCES.pods, 'a').get(''))).toBeInstanceOf(ClientRequestError);
    expect(await rejection(rest.resource(RESOURCES.pods).create({ metadata: { name: 'x' } }))).toMatchObject({ field: 'metadata.namespace' });
    expect(await rejection(rest.resource(RESOURCES.pods, 'a').list({ resourceVersionMatch: 'Exact' }))).toBeInstanceOf(ApiStatusError);
    expect(transport.requests).toHaveLength(0);
  });

  it('getTable asks for a Table with JSON after it, and hands back the plain object when the server answers one (§4.8)', async () => {
    const table = { kind: 'Table', apiVersion: 'meta.platform.io/v1', columnDefinitions: [], rows: [] };
    const { transport, rest } = client(MEDIA_PROTOBUF, (_r, n) => (n === 0 ? json(table) : json(pod('p1'))));
    const pods = rest.resource(RESOURCES.pods, 'ns1');
    expect(await pods.getTable('')).toEqual({ kind: 'Table', table });
    expect(await pods.getTable('p1')).toMatchObject({ kind: 'Object', object: { kind: 'Pod' } });
    expect(transport.requests.map((r) => [r.path, r.headers?.['accept']])).toEqual([
      ['/api/v1/namespaces/ns1/pods', ACCEPT_TABLE],
      ['/api/v1/namespaces/ns1/pods/p1', ACCEPT_TABLE],
    ]);
  });
});

describe('writes', () => {
  it('create with generateName in the object’s namespace, dryRun and fieldValidation in the query', async () => {
    const { transport, rest } = client(MEDIA_JSON, () => json(pod('gen-abc')));
    await rest.resource(RESOURCES.pods).create({ metadata: { generateName: 'gen-', namespace: 'other' }, spec: {} }, { dryRun: true, fieldValidation: 'Strict', fieldManager: 'agent' });
    const req = transport.requests[0]!;
    expect(req.path).toBe('/api/v1/namespaces/other/pods');
    expect(req.query?.toString()).toBe('dryRun=All&fieldManager=agent&fieldValidation=Strict');
  });

  it('update of a subresource; a PUT without resourceVersion is not idempotent', async () => {
    const { transport, rest } = client(MEDIA_JSON, () => json(pod('p1')));
    await rest.resource(RESOURCES.pods, 'ns1').update({ metadata: { name: 'p1' } }, { subresource: 'status' });
    expect(transport.requests[0]).toMatchObject({ method: 'PUT', path: '/api/v1/namespaces/ns1/pods/p1/status', idempotent: false });
  });

  it('updateWithRetry: a 409 starts over from a fresh GET, at most `attempts` PUTs', async () => {
    let puts = 0;
    const { transport, rest } = client(MEDIA_JSON, (req) => {
      if (req.method === 'GET') return json(pod('p1', { metadata: { name: 'p1', namespace: 'ns1', resourceVersion: String(10 + puts) } }));
      puts++;
      return puts < 3 ? statusError(req, apiErrors.conflict({ group: '', resource: 'pods' }, 'p1')) : json(JSON.parse(req.body as string));
    });
    const pods = rest.resource(RESOURCES.pods, 'ns1');
    const out = await pods.updateWithRetry('p1', (cur) => ({ ...cur, spec: { n: 1 } }));
    expect(out).toMatchObject({ spec: { n: 1 }, metadata: { resourceVersion: '12' } });
    expect(transport.requests.map((r) => r.method)).toEqual(['GET', 'PUT', 'GET', 'PUT', 'GET', 'PUT']);
    puts = 0;
    expect(await rejection(pods.updateWithRetry('p1', (cur) => cur, { attempts: 2 }))).toMatchObject({ reason: 'Conflict' });
    expect(await pods.updateWithRetry('p1', () => undefined)).toMatchObject({ kind: 'Pod' });
  });

  it('patches are JSON in any representation; apply carries fieldManager and force', async () => {
    const { transport, rest } = client(MEDIA_PROTOBUF, () => proto(codec, pod('p1')));
    const pods = rest.resource(RESOURCES.pods, 'ns1');
    await pods.patch('p1', PATCH_STRATEGIC, { metadata: { uid: 'u1' }, status: { phase: 'Running' } }, { subresource: 'status' });
    await pods.patch('p1', PATCH_APPLY, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', resourceVersion: '5' } }, { fieldManager: 'agent', force: true });
    const [smp, apply] = transport.requests;
    expect(smp).toMatchObject({ method: 'PATCH', path: '/api/v1/namespaces/ns1/pods/p1/status', body: '{"metadata":{"uid":"u1"},"status":{"phase":"Running"}}', idempotent: false });
    expect(smp!.headers).toEqual({ accept: `${MEDIA_PROTOBUF}, ${MEDIA_JSON}`, 'content-type': PATCH_STRATEGIC });
    expect(apply).toMatchObject({ idempotent: true });
    expect(apply!.query?.toString()).toBe('fieldManager=agent&force=true');
    expect(await rejection(pods.patch('p1', PATCH_APPLY, {}))).toMatchObject({ code: 422 });
    expect(transport.requests).toHaveLength(2);
  });

  it('delete sends DeleteOptions and returns the object or a Status; deletecollection selects', async () => {
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
    const { transport, rest } = client(MEDIA_JSON, (_r, n) => (n === 0 ? json(pod('p1')) : json(status)));
    const pods = rest.resource(RESOURCES.pods, 'ns1');
    expect(await pods.delete('p1', { gracePeriodSeconds: 0, preconditions: { uid: 'u1' } })).toMatchObject({ kind: 'Pod' });
    expect(await pods.deleteCollection({ labelSelector: 'app=x', dryRun: true })).toMatchObject({ kind: 'Status' });
    const [d, dc] = transport.requests;
    expect(d).toMatchObject({ method: 'DELETE', path: '/api/v1/namespaces/ns1/pods/p1', idempotent: true });
    expect(JSON.parse(d!.body as string)).toEqual({ kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: 'u1' } });
    expect(dc).toMatchObject({ method: 'DELETE', path: '/api/v1/namespaces/ns1/pods', idempotent: false, body: '{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}' });
    expect(dc!.query?.toString()).toBe('labelSelector=app%3Dx');
  });

  it('events draw from the events limiter', async () => {
    const ev = { kind: 'Event', apiVersion: 'v1', metadata: { name: 'e1', namespace: 'default' } };
    const { transport, rest } = client(MEDIA_JSON, () => json(ev));
    await rest.resource(RESOURCES.events, 'default').create(ev);
    expect(transport.requests[0]!.limiter).toBe('events');
  });
});
