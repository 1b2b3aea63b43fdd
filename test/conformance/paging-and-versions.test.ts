// Conformance, spec §4.6 (paging), §4.13 (resource version semantics: every
// cell of the get and list tables) and §7 (410, 504 / Retry-After), against
// both storage backends.
import { beforeAll, expect, it } from 'vitest';
import { describeBackends } from './helpers/backends.js';
import type { ApiClient, Json } from './helpers/api-client.js';
import { cm, makeNamespace, ns, rv } from './helpers/objects.js';

const itemNames = (list: Json): string[] => list.items.map((i: Json) => i.metadata.name);

describeBackends('§4.6 §4.13 §7: paging and resource versions', { extraArgs: ['--continue-token-lifetime=4s'], faults: true }, (srv) => {
  let c: ApiClient;
  let n: string;
  let path: string;
  /** The list's resourceVersion after the first five objects (cm-0..cm-4) existed. */
  let rv5: string;
  beforeAll(async () => {
    c = srv().admin;
    n = await makeNamespace(c);
    path = `${ns(n)}/configmaps`;
    for (let i = 0; i < 5; i++) await c.post(path, cm(`cm-${i}`, {}, { labels: { i: String(i), even: String(i % 2 === 0) } }));
    rv5 = (await c.get(path)).json().metadata.resourceVersion;
    for (let i = 5; i < 7; i++) await c.post(path, cm(`cm-${i}`, {}, { labels: { i: String(i), even: String(i % 2 === 0) } }));
  });

  it('§4.6 rules 1-2, 5: limit/continue pages through everything; remainingItemCount counts what follows and is omitted on the last page', async () => {
    const p1 = (await c.get(path, { query: { limit: 3 } })).json();
    expect(itemNames(p1)).toEqual(['cm-0', 'cm-1', 'cm-2']);
    expect(p1.metadata.continue).toMatch(/.+/);
    expect(p1.metadata.remainingItemCount).toBe(4);
    const p2 = (await c.get(path, { query: { limit: 3, continue: p1.metadata.continue } })).json();
    expect(itemNames(p2)).toEqual(['cm-3', 'cm-4', 'cm-5']);
    expect(p2.metadata.remainingItemCount).toBe(1);
    const p3 = (await c.get(path, { query: { limit: 3, continue: p2.metadata.continue } })).json();
    expect(itemNames(p3)).toEqual(['cm-6']);
    expect(p3.metadata.continue ?? '').toBe('');
    expect(p3.metadata.remainingItemCount).toBeUndefined();
    expect(new Set([p1, p2, p3].map((p) => p.metadata.resourceVersion)).size).toBe(1);
  });

  it('§4.6 rule 3: every page of one paged list is the same snapshot; later changes are not shown', async () => {
    const p1 = (await c.get(path, { query: { limit: 4 } })).json();
    await c.post(path, cm('cm-9-late'));
    await c.delete(`${path}/cm-5`);
    const p2 = (await c.get(path, { query: { limit: 10, continue: p1.metadata.continue } })).json();
    expect(p2.metadata.resourceVersion).toBe(p1.metadata.resourceVersion);
    expect(itemNames(p2)).toEqual(['cm-4', 'cm-5', 'cm-6']);
    await c.post(path, cm('cm-5', {}, { labels: { i: '5', even: 'false' } }));
    await c.delete(`${path}/cm-9-late`);
  });

  it('§4.6 rule 5: remainingItemCount is omitted when a selector is used', async () => {
    const p = (await c.get(path, { query: { limit: 1, labelSelector: 'even=true' } })).json();
    expect(itemNames(p)).toEqual(['cm-0']);
    expect(p.metadata.continue).toMatch(/.+/);
    expect(p.metadata.remainingItemCount).toBeUndefined();
    const rest = (await c.get(path, { query: { limit: 10, continue: p.metadata.continue, labelSelector: 'even=true' } })).json();
    expect(itemNames(rest)).toEqual(['cm-2', 'cm-4', 'cm-6']);
  });

  it('§4.6 rule 4, §7: an expired continue token answers 410 Gone (Expired); a malformed one 400', async () => {
    const p1 = (await c.get(path, { query: { limit: 2 } })).json();
    await new Promise((r) => setTimeout(r, 5_000));
    const late = await c.get(path, { query: { limit: 2, continue: p1.metadata.continue } });
    expect(late.status).toBe(410);
    expect(late.json()).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    const bad = await c.get(path, { query: { limit: 2, continue: '!!not-a-token' } });
    expect(bad.status).toBe(400);
  });

  // §4.13 list table: [resourceVersionMatch, paging, rv] → expected semantic.
  const cells: Array<[string, string | undefined, 'limit' | 'none', 'unset' | '0' | 'rv5', string]> = [
    ['unset/none/unset → Most Recent', undefined, 'none', 'unset', 'most-recent'],
    ['unset/none/0 → Any', undefined, 'none', '0', 'any'],
    ['unset/none/rv → Not older than', undefined, 'none', 'rv5', 'not-older'],
    ['unset/limit/unset → Most Recent', undefined, 'limit', 'unset', 'most-recent'],
    ['unset/limit/0 → Any', undefined, 'limit', '0', 'any'],
    ['unset/limit/rv → Exact', undefined, 'limit', 'rv5', 'exact'],
    ['Exact/none/unset → Invalid', 'Exact', 'none', 'unset', 'invalid'],
    ['Exact/none/0 → Invalid', 'Exact', 'none', '0', 'invalid'],
    ['Exact/none/rv → Exact', 'Exact', 'none', 'rv5', 'exact'],
    ['Exact/limit/unset → Invalid', 'Exact', 'limit', 'unset', 'invalid'],
    ['Exact/limit/0 → Invalid', 'Exact', 'limit', '0', 'invalid'],
    ['Exact/limit/rv → Exact', 'Exact', 'limit', 'rv5', 'exact'],
    ['NotOlderThan/none/unset → Invalid', 'NotOlderThan', 'none', 'unset', 'invalid'],
    ['NotOlderThan/none/0 → Any', 'NotOlderThan', 'none', '0', 'any'],
    ['NotOlderThan/none/rv → Not older than', 'NotOlderThan', 'none', 'rv5', 'not-older'],
    ['NotOlderThan/limit/unset → Invalid', 'NotOlderThan', 'limit', 'unset', 'invalid'],
    ['NotOlderThan/limit/0 → Any', 'NotOlderThan', 'limit', '0', 'any'],
    ['NotOlderThan/limit/rv → Not older than', 'NotOlderThan', 'limit', 'rv5', 'not-older'],
  ];
  it.each(cells)('§4.13 list %s', async (_title, match, paging, rvCell, expected) => {
    const current = (await c.get(path)).json().metadata.resourceVersion;
    const query = { resourceVersionMatch: match, limit: paging === 'limit' ? 100 : undefined, resourceVersion: rvCell === 'unset' ? undefined : rvCell === '0' ? '0' : rv5 };
    const r = await c.get(path, { query });
    if (expected === 'invalid') {
      expect(r.status).toBe(422);
      expect(r.json()).toMatchObject({ kind: 'Status', reason: 'Invalid' });
      return;
    }
    expect(r.status, r.text()).toBe(200);
    const list = r.json();
    if (expected === 'most-recent') {
      expect(list.metadata.resourceVersion).toBe(current);
      expect(itemNames(list)).toContain('cm-6');
    } else if (expected === 'exact') {
      expect(list.metadata.resourceVersion).toBe(rv5);
      expect(itemNames(list)).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
    } else if (expected === 'not-older') {
      expect(Number(list.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(rv5));
      expect(itemNames(list)).toEqual(expect.arrayContaining(['cm-0', 'cm-4']));
    } else {
      expect(itemNames(list)).toEqual(expect.arrayContaining(['cm-0', 'cm-4']));
    }
  });

  it('§4.13 list with limit and continue: rv unset and rv=0 continue at the token’s version; any other rv is 400', async () => {
    const p1 = (await c.get(path, { query: { limit: 2 } })).json();
    const plain = await c.get(path, { query: { limit: 2, continue: p1.metadata.continue } });
    expect(plain.status).toBe(200);
    expect(plain.json().metadata.resourceVersion).toBe(p1.metadata.resourceVersion);
    const zero = await c.get(path, { query: { limit: 2, continue: p1.metadata.continue, resourceVersion: '0' } });
    expect(zero.status).toBe(200);
    expect(itemNames(zero.json())).toEqual(itemNames(plain.json()));
    const other = await c.get(path, { query: { limit: 2, continue: p1.metadata.continue, resourceVersion: rv5 } });
    expect(other.status).toBe(400);
    expect(other.json()).toMatchObject({ kind: 'Status', code: 400 });
  });

  it('§4.13: resourceVersionMatch without resourceVersion is invalid', async () => {
    const r = await c.get(path, { query: { resourceVersionMatch: 'NotOlderThan' } });
    expect(r.status).toBe(422);
    expect(r.json().message).toContain('resourceVersionMatch is forbidden unless resourceVersion is provided');
  });

  it('§4.13 get: rv unset = most recent, "0" = any, other = not older than', async () => {
    const o = (await c.post(path, cm('g1', { v: '1' }))).json();
    const o2 = (await c.put(`${path}/g1`, { ...o, data: { v: '2' } })).json();
    expect((await c.get(`${path}/g1`)).json().data).toEqual({ v: '2' });
    expect((await c.get(`${path}/g1`, { query: { resourceVersion: '0' } })).status).toBe(200);
    const nolder = (await c.get(`${path}/g1`, { query: { resourceVersion: o.metadata.resourceVersion } })).json();
    expect(rv(nolder)).toBeGreaterThanOrEqual(rv(o));
    expect(nolder.metadata.resourceVersion).toBe(o2.metadata.resourceVersion);
  });

  it('§7 rule 1: a get or list at an unrecognized (future) version waits briefly, then 504 "Too large resource version" with Retry-After', async () => {
    const current = Number((await c.get(path)).json().metadata.resourceVersion);
    for (const target of [path, `${path}/cm-0`]) {
      const r = await c.get(target, { query: { resourceVersion: String(current + 100_000) } });
      expect(r.status).toBe(504);
      expect(r.json().message).toContain('Too large resource version');
      expect(Number(r.header('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('§4.13 Exact: a version older than the retained history answers 410', async () => {
    const first = (await c.get(path)).json().metadata.resourceVersion;
    await c.post(path, cm('compact-me'));
    expect((await c.post('/debug/faults/compact', {})).status).toBe(200);
    const r = await c.get(path, { query: { resourceVersion: first, resourceVersionMatch: 'Exact' } });
    expect(r.status).toBe(410);
    expect(r.json()).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    await c.delete(`${path}/compact-me`);
  });
});
