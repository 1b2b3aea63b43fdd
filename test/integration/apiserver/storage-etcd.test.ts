// The etcd store against a real etcd (Debian's etcd-server on loopback, see
// test/helpers/etcd.ts): the shared storage suite, then what only etcd has —
// several endpoints with failover, a second store over the same etcd seeing
// the first one's writes and watch events, and the compactor's coordination
// through compact_rev_key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompactor } from '../../../src/apiserver/storage/compactor.js';
import { COMPACT_REV_KEY, createEtcdStorage, type EtcdStorage } from '../../../src/apiserver/storage/etcd-store.js';
import { skipWithoutEtcd, startEtcd, type TestEtcd } from '../../helpers/etcd.js';
import { testLogger } from '../../helpers/test-logger.js';
import { describeStorage } from '../../unit/apiserver/storage/suite.js';

const skip = skipWithoutEtcd('etcd storage');

describe.skipIf(skip)('etcd store', () => {
  let etcd: TestEtcd | undefined;
  let n = 0;
  const stores: EtcdStorage[] = [];
  const endpoint = (): string => {
    if (etcd === undefined) throw new Error('etcd not started');
    return etcd.endpoint;
  };
  /** A store with a prefix of its own, closed after the file. */
  const open = async (prefix = `/registry-${++n}/`, endpoints = [endpoint()]): Promise<EtcdStorage> => {
    const s = await createEtcdStorage({ endpoints, prefix, log: testLogger() });
    stores.push(s);
    return s;
  };

  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await etcd?.stop();
  });

  describeStorage('etcd', () => open());

  it('fails over to the next endpoint when one is unavailable', async () => {
    // Port 1 on loopback refuses connections: UNAVAILABLE, then the real etcd answers.
    const s = await open(undefined, ['http://127.0.0.1:1', endpoint()]);
    const a = await s.create('pods/a', new TextEncoder().encode('1'));
    expect((await s.get('pods/a'))?.modRevision).toBe(a.modRevision);
    // Now, not after the file: grpc-js keeps redialling the dead endpoint (a back-off timer) until the channel closes.
    await s.close();
  });

  it('two stores over one etcd share objects, revisions and watch events', async () => {
    const prefix = `/shared-${++n}/`;
    const one = await open(prefix);
    const two = await open(prefix);
    const r0 = await one.currentRevision();
    const stop = new AbortController();
    const it = two.watch('pods/', { afterRevision: r0, signal: stop.signal })[Symbol.asyncIterator]();
    const a = await one.create('pods/a', new TextEncoder().encode('1'));
    expect(await two.get('pods/a')).toMatchObject({ key: 'pods/a', modRevision: a.modRevision });
    const ev = await it.next();
    expect(ev.value).toMatchObject({ type: 'put', kv: { key: 'pods/a', modRevision: a.modRevision } });
    await expect(two.update('pods/a', new Uint8Array(), a.modRevision - 1)).rejects.toMatchObject({ code: 'Conflict' });
    stop.abort();
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });

  it("another server's compaction: learned from etcd's refusals, exactly from a refused watch", async () => {
    const prefix = `/compacted-${++n}/`;
    const one = await open(prefix);
    const a = await one.create('pods/a', new TextEncoder().encode('1'));
    const a2 = await one.update('pods/a', new TextEncoder().encode('2'), a.modRevision);
    await one.update('pods/a', new TextEncoder().encode('3'), a2.modRevision);
    await one.compact(a2.modRevision);
    const two = await open(prefix);
    expect(await two.compactedRevision()).toBe(0); // nothing seen yet: a lower bound
    await expect(two.get('pods/a', a.modRevision)).rejects.toMatchObject({ code: 'Compacted', revision: a.modRevision + 1 });
    const stop = new AbortController();
    const it = two.watch('pods/', { afterRevision: a.modRevision - 1, signal: stop.signal })[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toMatchObject({ code: 'Compacted', revision: a2.modRevision });
    expect(await two.compactedRevision()).toBe(a2.modRevision);
    stop.abort();
  });

  it("two compactors over one etcd: one wins each window's compare-and-swap of compact_rev_key", async () => {
    const one = await open();
    const two = await open();
    const r0 = await one.currentRevision();
    // Window 1: one advances the clock from 0 (nothing to compact yet); two's stale swap loses and adopts the clock.
    const w1 = await one.compaction.claim(0, 0);
    const lost = await two.compaction.claim(0, 0);
    expect(w1).toMatchObject({ won: true, clock: 1 });
    expect(lost).toMatchObject({ won: false, clock: 1 });
    expect(w1.revision).toBeGreaterThan(r0);
    expect((await one.get(`../${COMPACT_REV_KEY}`))).toBeUndefined(); // outside every prefix
    // Window 2: two, now in step, wins.
    expect(await two.compaction.claim(lost.clock, lost.revision)).toMatchObject({ won: true, clock: 2 });
  });

  it('the compactor compacts to the revision seen one window earlier and stops with its signal', async () => {
    const s = await open();
    const logs = testLogger();
    const a = await s.create('pods/a', new TextEncoder().encode('1'));
    let windows = 0;
    const stop = new AbortController();
    const claims: number[] = [];
    const counted = {
      claim: async (clock: number, revision: number) => {
        const c = await s.compaction.claim(clock, revision);
        claims.push(c.revision);
        // Each window writes compact_rev_key: the revision moves on by one per window.
        if (++windows === 3) stop.abort();
        return c;
      },
    };
    // Whatever clock an earlier test left: the first claim may lose; the component adopts it and wins the next.
    await createCompactor({ storage: s, intervalMs: 10, coordinator: counted, log: logs }).run(stop.signal);
    expect(windows).toBe(3);
    expect(await s.compactedRevision()).toBeGreaterThanOrEqual(a.modRevision);
    expect(claims).toHaveLength(3);
  });
});

describe.skipIf(skip)('etcd store through an etcd outage', () => {
  let etcd: TestEtcd | undefined;
  let store: EtcdStorage | undefined;
  const enc = new TextEncoder();
  beforeAll(async () => {
    etcd = await startEtcd();
    store = await createEtcdStorage({ endpoints: [etcd.endpoint], prefix: '/outage/', log: testLogger(), requestTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await store?.close();
    await etcd?.stop();
  });

  it('a watch resumes after etcd restarts, from the last delivered revision; calls while it is down are Unavailable; a lasting outage ends the watch with Unavailable', async () => {
    if (etcd === undefined || store === undefined) throw new Error('not started');
    const s = store;
    const stop = new AbortController();
    const it = s.watch('pods/', { afterRevision: await s.currentRevision(), signal: stop.signal })[Symbol.asyncIterator]();
    const a = await s.create('pods/a', enc.encode('1'));
    expect((await it.next()).value).toMatchObject({ type: 'put', kv: { key: 'pods/a', modRevision: a.modRevision } });
    await etcd.kill();
    await expect(s.get('pods/a')).rejects.toMatchObject({ code: 'Unavailable' });
    const pending = it.next();
    await etcd.restart();
    const b = await s.create('pods/b', enc.encode('2'));
    // Exactly the next event: nothing replayed twice, nothing lost.
    expect((await pending).value).toMatchObject({ type: 'put', kv: { key: 'pods/b', modRevision: b.modRevision } });
    const last = it.next();
    await etcd.kill();
    await expect(last).rejects.toMatchObject({ code: 'Unavailable' });
    stop.abort();
    await s.close();
  });
});
