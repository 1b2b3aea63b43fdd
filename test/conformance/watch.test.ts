// Conformance, spec §4.5 (change detection), §6 (events) and the watch rows
// of §4.13, against both storage backends.
import { expect, it } from 'vitest';
import { describeBackends } from './helpers/backends.js';
import type { Json } from './helpers/api-client.js';
import { cm, makeNamespace, ns, pod, rv } from './helpers/objects.js';

const names = (events: Array<{ type: string; object: Json }>): string[] => events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`.trim());

describeBackends('§4.5 §6: watch', { featureGates: 'WatchList=true', faults: true }, (srv) => {
  it('§4.5 rules 1-2, §6: list, then watch from its resourceVersion: a 200 chunked JSON stream of {type, object} for each later change', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    await c.post(`${ns(n)}/configmaps`, cm('before'));
    const list = (await c.get(`${ns(n)}/configmaps`)).json();
    const w = await c.watch(`${ns(n)}/configmaps`, { resourceVersion: list.metadata.resourceVersion });
    try {
      expect(w.status).toBe(200);
      expect(w.headers['content-type']).toBe('application/json');
      expect(w.headers['transfer-encoding']).toBe('chunked');
      const created = (await c.post(`${ns(n)}/configmaps`, cm('w1', { a: '1' }))).json();
      await c.put(`${ns(n)}/configmaps/w1`, { ...created, data: { a: '2' } });
      await c.delete(`${ns(n)}/configmaps/w1`);
      const events = await w.until((e) => e.type === 'DELETED');
      expect(names(events)).toEqual(['ADDED w1', 'MODIFIED w1', 'DELETED w1']);
      expect(events[0]!.object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } });
      expect(events[1]!.object.data).toEqual({ a: '2' });
      const rvs = events.map((e) => rv(e.object));
      expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
    } finally {
      w.close();
    }
  });

  it('§4.13 watch: resourceVersion unset or "0" starts with synthetic ADDED events for existing objects, then later changes', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    await c.post(`${ns(n)}/configmaps`, cm('e1'));
    await c.post(`${ns(n)}/configmaps`, cm('e2'));
    for (const query of [{}, { resourceVersion: '0' }]) {
      const w = await c.watch(`${ns(n)}/configmaps`, query);
      try {
        const initial = [await w.next(), await w.next()];
        expect(names(initial as Array<{ type: string; object: Json }>).sort()).toEqual(['ADDED e1', 'ADDED e2']);
        await c.post(`${ns(n)}/configmaps`, cm(`later-${Object.keys(query).length}`));
        const later = await w.next();
        expect(later?.type).toBe('ADDED');
        expect(later?.object.metadata.name).toBe(`later-${Object.keys(query).length}`);
      } finally {
        w.close();
      }
    }
  });

  it('§4.13 watch: an exact resourceVersion sends only changes after it (no synthetic events), so a client resumes without loss (§4.5 rule 3)', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const a = (await c.post(`${ns(n)}/configmaps`, cm('a'))).json();
    const b = (await c.post(`${ns(n)}/configmaps`, cm('b'))).json();
    await c.post(`${ns(n)}/configmaps`, cm('c'));
    const w = await c.watch(`${ns(n)}/configmaps`, { resourceVersion: a.metadata.resourceVersion });
    try {
      const events = await w.until((e) => e.object.metadata.name === 'c');
      expect(names(events)).toEqual(['ADDED b', 'ADDED c']);
      expect(events[0]!.object.metadata.resourceVersion).toBe(b.metadata.resourceVersion);
    } finally {
      w.close();
    }
  });

  it('§4.5 rule 4, §7: a watch from a version older than the retained history answers 410 Gone', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const first = (await c.post(`${ns(n)}/configmaps`, cm('old'))).json();
    await c.post(`${ns(n)}/configmaps`, cm('newer'));
    const compact = await c.post('/debug/faults/compact', {});
    expect(compact.status, compact.text()).toBe(200);
    const w = await c.watch(`${ns(n)}/configmaps`, { resourceVersion: first.metadata.resourceVersion });
    w.close();
    expect(w.status).toBe(410);
    const list = await c.get(`${ns(n)}/configmaps`, { query: { resourceVersion: first.metadata.resourceVersion, resourceVersionMatch: 'Exact' } });
    expect(list.status).toBe(410);
    expect(list.json()).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
  });

  it('§4.5 rule 5: with allowWatchBookmarks a BOOKMARK carries only metadata.resourceVersion (sent before a timed-out stream ends); the stream then ends cleanly', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const created = (await c.post(`${ns(n)}/configmaps`, cm('bm'))).json();
    const w = await c.watch(`${ns(n)}/configmaps`, { resourceVersion: created.metadata.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 3 });
    const e = await w.next(10_000);
    expect(e?.type).toBe('BOOKMARK');
    expect(e?.object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(Object.keys(e!.object.metadata)).toEqual(['resourceVersion']);
    expect(rv(e!.object)).toBeGreaterThanOrEqual(rv(created));
    await w.ended;
    w.close();
  });

  it('§4.5 rule 6: a streaming list sends ADDED for the current state, a BOOKMARK marked initial-events-end, then the ordinary stream', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    await c.post(`${ns(n)}/configmaps`, cm('s1'));
    await c.post(`${ns(n)}/configmaps`, cm('s2'));
    const w = await c.watch(`${ns(n)}/configmaps`, { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
    try {
      const events = await w.until((e) => e.type === 'BOOKMARK');
      expect(names(events.slice(0, 2)).sort()).toEqual(['ADDED s1', 'ADDED s2']);
      const bookmark = events[2]!;
      expect(bookmark.object.metadata.annotations).toEqual({ 'platform.io/initial-events-end': 'true' });
      await c.post(`${ns(n)}/configmaps`, cm('s3'));
      const next = await w.until((e) => e.type !== 'BOOKMARK');
      expect(names(next.slice(-1))).toEqual(['ADDED s3']);
    } finally {
      w.close();
    }
  });

  it('§4.13/§4.4: sendInitialEvents on a list, or without resourceVersionMatch=NotOlderThan, is invalid (422)', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const list = await c.get(`${ns(n)}/configmaps`, { query: { sendInitialEvents: true } });
    expect(list.status).toBe(422);
    expect(list.json().message).toContain('sendInitialEvents is forbidden for list');
    const w = await c.get(`${ns(n)}/configmaps`, { query: { watch: 1, sendInitialEvents: true } });
    expect(w.status).toBe(422);
    expect(w.json().message).toContain('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
  });

  it('§4.5: a label-selected watch sees an object leave the selection as DELETED and enter it as ADDED', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const list = (await c.get(`${ns(n)}/configmaps`)).json();
    const w = await c.watch(`${ns(n)}/configmaps`, { resourceVersion: list.metadata.resourceVersion, labelSelector: 'app=web' });
    try {
      const o = (await c.post(`${ns(n)}/configmaps`, cm('sel', {}, { labels: { app: 'web' } }))).json();
      const off = (await c.put(`${ns(n)}/configmaps/sel`, { ...o, metadata: { ...o.metadata, labels: { app: 'db' } } })).json();
      await c.put(`${ns(n)}/configmaps/sel`, { ...off, metadata: { ...off.metadata, labels: { app: 'web' } } });
      const events = await w.until((e) => e.type === 'ADDED' && rv(e.object) > rv(off));
      expect(names(events)).toEqual(['ADDED sel', 'DELETED sel', 'ADDED sel']);
    } finally {
      w.close();
    }
  });

  it('field selector spec.nodeName: a node watches only the pods bound to it', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const list = (await c.get('/api/v1/pods', { query: { fieldSelector: 'spec.nodeName=node-a' } })).json();
    const w = await c.watch('/api/v1/pods', { resourceVersion: list.metadata.resourceVersion, fieldSelector: 'spec.nodeName=node-a' });
    try {
      await c.post(`${ns(n)}/pods`, pod('other', { nodeName: 'node-b' }));
      await c.post(`${ns(n)}/pods`, pod('mine', { nodeName: 'node-a' }));
      const events = await w.until((e) => e.type === 'ADDED');
      expect(names(events)).toEqual(['ADDED mine']);
      const bad = await c.get('/api/v1/pods', { query: { fieldSelector: 'spec.noSuchField=x' } });
      expect(bad.status).toBe(400);
      expect(bad.json().message).toContain('field label not supported');
    } finally {
      w.close();
    }
  });

  it('timeoutSeconds ends the stream cleanly; a client re-watches from its last resourceVersion without loss', async () => {
    const c = srv().admin;
    const n = await makeNamespace(c);
    const start = (await c.get(`${ns(n)}/configmaps`)).json().metadata.resourceVersion;
    const w = await c.watch(`${ns(n)}/configmaps`, { resourceVersion: start, timeoutSeconds: 1 });
    const t0 = Date.now();
    await w.ended;
    w.close();
    expect(Date.now() - t0).toBeLessThan(10_000);
    await c.post(`${ns(n)}/configmaps`, cm('after-timeout'));
    const again = await c.watch(`${ns(n)}/configmaps`, { resourceVersion: start });
    try {
      expect(names([(await again.next())!])).toEqual(['ADDED after-timeout']);
    } finally {
      again.close();
    }
  });
});
