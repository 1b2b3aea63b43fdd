import { beforeAll, describe, expect, it } from 'vitest';
import { loadApiCodec, type ApiCodec } from '../../../../src/api/codec/index.js';
import { apiErrors } from '../../../../src/api/errors.js';
import { MEDIA_JSON, MEDIA_PROTOBUF } from '../../../../src/api/media.js';
import { ClientProtocolError } from '../../../../src/client/errors.js';
import { RESOURCES, createRestClient } from '../../../../src/client/rest/index.js';
import type { TransportRequest } from '../../../../src/client/types.js';
import { fakeTransport, json, memoryLog, proto, statusError, type Answer } from './fake-transport.js';

let codec: ApiCodec;
beforeAll(async () => {
  codec = await loadApiCodec();
});

const podList = (names: string[], meta: Record<string, unknown>) => ({
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: meta,
  items: names.map((name) => ({ metadata: { name, namespace: 'ns1', resourceVersion: '3' } })),
});

function pods(answer: (req: TransportRequest, n: number) => Answer, contentType: typeof MEDIA_JSON | typeof MEDIA_PROTOBUF = MEDIA_JSON) {
  const transport = fakeTransport(answer);
  return { transport, pods: createRestClient({ transport, codec, contentType, log: memoryLog() }).resource(RESOURCES.pods, 'ns1') };
}

const rejection = async (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

describe('list', () => {
  it('a page (JSON or protobuf): items get kind and apiVersion, continue and remainingItemCount read', async () => {
    for (const ct of [MEDIA_JSON, MEDIA_PROTOBUF] as const) {
      const body = podList(['a', 'b'], { resourceVersion: '7', continue: 'tok', remainingItemCount: 3 });
      const { pods: p } = pods(() => (ct === MEDIA_JSON ? json(body) : proto(codec, body)), ct);
      const page = await p.list({ limit: 2 });
      expect(page).toMatchObject({ resourceVersion: '7', continue: 'tok', remainingItemCount: 3 });
      expect(page.items.map((i) => [i['kind'], i['apiVersion'], (i['metadata'] as { name: string }).name])).toEqual([
        ['Pod', 'v1', 'a'],
        ['Pod', 'v1', 'b'],
      ]);
    }
  });

  it.each([
    ['no resourceVersion', podList(['a'], {}), 'metadata.resourceVersion'],
    ['items of another kind', { ...podList([], { resourceVersion: '1' }), items: [{ kind: 'Node', metadata: { name: 'x' } }] }, 'items[0].kind'],
    ['items not an array', { ...podList([], { resourceVersion: '1' }), items: {} }, 'items'],
    ['a list of another kind', { ...podList([], { resourceVersion: '1' }), kind: 'NodeList' }, 'kind'],
  ])('%s → ClientProtocolError on %s', async (_w, body, field) => {
    const { pods: p } = pods(() => json(body));
    const err = await rejection(p.list({}));
    expect(err).toBeInstanceOf(ClientProtocolError);
    expect(err).toMatchObject({ field });
  });

  it('Exact without limit: a collection at another version is read again with limit (§4.13), as one page', async () => {
    const { transport, pods: p } = pods((req) => {
      if (!req.query?.has('limit')) return json(podList(['a'], { resourceVersion: '11' }));
      return json(req.query.has('continue') ? podList(['b'], { resourceVersion: '10' }) : podList(['a'], { resourceVersion: '10', continue: 't' }));
    });
    const page = await p.list({ resourceVersion: '10', resourceVersionMatch: 'Exact' });
    expect(page).toMatchObject({ resourceVersion: '10', continue: '' });
    expect(page.items).toHaveLength(2);
    expect(transport.requests.map((r) => r.query?.toString())).toEqual([
      'resourceVersion=10&resourceVersionMatch=Exact',
      'resourceVersion=10&resourceVersionMatch=Exact&limit=500',
      'limit=500&continue=t',
    ]);
  });
});

describe('listAll (§4.6, client-go pager)', () => {
  it('pages of `limit`; continuation pages carry only the token and selectors', async () => {
    const { transport, pods: p } = pods((req) => {
      const c = req.query?.get('continue');
      if (c === null || c === undefined) return json(podList(['a', 'b'], { resourceVersion: '9', continue: 't1' }));
      return json(c === 't1' ? podList(['c', 'd'], { resourceVersion: '9', continue: 't2' }) : podList(['e'], { resourceVersion: '9' }));
    });
    const all = await p.listAll({ limit: 2, resourceVersion: '0', labelSelector: 'x=y' });
    expect(all.resourceVersion).toBe('9');
    expect(all.items).toHaveLength(5);
    expect(transport.requests.map((r) => r.query?.toString())).toEqual(['labelSelector=x%3Dy&resourceVersion=0&limit=2', 'labelSelector=x%3Dy&limit=2&continue=t1', 'labelSelector=x%3Dy&limit=2&continue=t2']);
  });

  it('default page size is 500', async () => {
    const { transport, pods: p } = pods(() => json(podList([], { resourceVersion: '1' })));
    await p.listAll();
    expect(transport.requests[0]!.query?.toString()).toBe('limit=500');
  });

  it('a continuation page with an expired token (410) → once more as one full list with the original version', async () => {
    const { transport, pods: p } = pods((req) => {
      if (req.query?.has('continue') === true) return statusError(req, apiErrors.expired('The provided continue parameter is too old'));
      if (req.query?.has('limit') === true) return json(podList(['a'], { resourceVersion: '4', continue: 't1' }));
      return json(podList(['a', 'b', 'c'], { resourceVersion: '8' }));
    });
    const all = await p.listAll({ limit: 1, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' });
    expect(all).toMatchObject({ resourceVersion: '8' });
    expect(all.items).toHaveLength(3);
    expect(transport.requests.map((r) => r.query?.toString())).toEqual(['resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=1', 'limit=1&continue=t1', 'resourceVersion=0&resourceVersionMatch=NotOlderThan']);
  });

  it('a 410 on the first page is the caller’s', async () => {
    const { transport, pods: p } = pods((req) => statusError(req, apiErrors.expired('too old resource version: 1 (5)')));
    expect(await rejection(p.listAll({ resourceVersion: '1', resourceVersionMatch: 'Exact' }))).toMatchObject({ code: 410 });
    expect(transport.requests).toHaveLength(1);
  });
});
