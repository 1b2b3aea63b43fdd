// The shared storage suite: every rule of src/apiserver/storage/interface.ts,
// driven against any Storage. Each implementation's test file calls
// describeStorage(name, factory) (memory.test.ts here; the etcd store from
// test/integration/apiserver/storage-etcd.test.ts against a real etcd).
//
// The factory gives each test a fresh store that sees no other test's keys
// (etcd: a new prefix on one etcd). The store's revision counter need not
// start at 0 (etcd's is shared by every prefix), so tests only use revisions
// they observed. The suite closes each store after its test.

import { afterEach, describe, expect, it } from 'vitest';
import { isStorageError, type Storage, type StorageEvent, type StoredValue } from '../../../../src/apiserver/storage/interface.js';

export type StorageFactory = () => Promise<Storage>;

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string): Uint8Array => enc.encode(s);
const text = (v: { value: Uint8Array } | undefined): string | undefined => (v === undefined ? undefined : dec.decode(v.value));

/** How long one awaited watch event may take before the test fails (bounds every wait). */
const EVENT_TIMEOUT_MS = 10_000;

/** The next item of `it`, failing after EVENT_TIMEOUT_MS; the timer is always cleared. */
async function next<T>(it: AsyncIterator<T>): Promise<IteratorResult<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      it.next(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no watch event within ${EVENT_TIMEOUT_MS} ms`)), EVENT_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The next `n` events that are not progress notifications. */
async function events(it: AsyncIterator<StorageEvent>, n: number): Promise<StorageEvent[]> {
  const out: StorageEvent[] = [];
  for (let guard = 0; out.length < n && guard < 10_000; guard++) {
    const r = await next(it);
    if (r.done === true) throw new Error(`watch ended after ${out.length} of ${n} events`);
    if (r.value.type !== 'progress') out.push(r.value);
  }
  return out;
}

/** A compact, comparable form of an event. */
function show(e: StorageEvent): string {
  if (e.type === 'put') return `put ${e.kv.key}=${text(e.kv)}@${e.kv.modRevision} prev=${e.prev === undefined ? '-' : `${text(e.prev)}@${e.prev.modRevision}`}`;
  if (e.type === 'delete') return `delete ${e.key}@${e.revision} prev=${text(e.prev)}@${e.prev.modRevision}`;
  return `progress@${e.revision}`;
}

async function expectCode(p: Promise<unknown>, code: string): Promise<unknown> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isStorageError(err) ? err.code : err).toBe(code);
  return err;
}

export function describeStorage(name: string, factory: StorageFactory): void {
  describe(`Storage contract: ${name}`, () => {
    const open: Storage[] = [];
    const watches: AbortController[] = [];
    const store = async (): Promise<Storage> => {
      const s = await factory();
      open.push(s);
      return s;
    };
    const watch = (s: Storage, prefix: string, afterRevision: number, progressIntervalMs?: number): { it: AsyncIterator<StorageEvent>; stop: AbortController } => {
      const stop = new AbortController();
      watches.push(stop);
      const it = s.watch(prefix, { afterRevision, signal: stop.signal, ...(progressIntervalMs === undefined ? {} : { progressIntervalMs }) })[Symbol.asyncIterator]();
      return { it, stop };
    };
    afterEach(async () => {
      for (const w of watches.splice(0)) w.abort();
      for (const s of open.splice(0)) await s.close();
    });

    describe('writes', () => {
      it('create stores a new key at the next revision and refuses an existing one with KeyExists', async () => {
        const s = await store();
        const r0 = await s.currentRevision();
        const a = await s.create('pods/a', b('1'));
        expect(a).toMatchObject({ key: 'pods/a', createRevision: r0 + 1, modRevision: r0 + 1 });
        expect(text(a)).toBe('1');
        const err = await expectCode(s.create('pods/a', b('2')), 'KeyExists');
        expect(err).toMatchObject({ key: 'pods/a' });
        expect(text(await s.get('pods/a'))).toBe('1');
        expect(await s.currentRevision()).toBe(r0 + 1);
      });

      it('one revision counter across keys: every write takes the next revision', async () => {
        const s = await store();
        const r0 = await s.currentRevision();
        const a = await s.create('pods/a', b('a1'));
        const c = await s.create('nodes/c', b('c1'));
        const a2 = await s.update('pods/a', b('a2'), a.modRevision);
        const d = await s.delete('nodes/c');
        expect([a.modRevision, c.modRevision, a2.modRevision, d.revision]).toEqual([r0 + 1, r0 + 2, r0 + 3, r0 + 4]);
        expect(await s.currentRevision()).toBe(r0 + 4);
      });

      it('update is compare-and-swap on modRevision: Conflict carries the current value, NotFound when gone', async () => {
        const s = await store();
        const a = await s.create('pods/a', b('1'));
        const a2 = await s.update('pods/a', b('2'), a.modRevision);
        expect(a2).toMatchObject({ key: 'pods/a', createRevision: a.createRevision, modRevision: a.modRevision + 1 });
        expect(text(a2)).toBe('2');
        const before = await s.currentRevision();
        const conflict = await expectCode(s.update('pods/a', b('3'), a.modRevision), 'Conflict');
        expect(isStorageError(conflict) ? conflict.current : undefined).toMatchObject({ key: 'pods/a', modRevision: a2.modRevision, createRevision: a.createRevision });
        expect(text(isStorageError(conflict) ? conflict.current : undefined)).toBe('2');
        await expectCode(s.update('pods/missing', b('x'), a.modRevision), 'NotFound');
        await expectCode(s.update('pods/missing', b('x'), 0), 'NotFound');
        expect(await s.currentRevision()).toBe(before);
        expect(await s.get('pods/missing')).toBeUndefined();
      });

      it('delete without an expected revision removes the key and returns it; a missing key is NotFound', async () => {
        const s = await store();
        const a = await s.create('pods/a', b('1'));
        const d = await s.delete('pods/a');
        expect(d.revision).toBe(a.modRevision + 1);
        expect(d.prev).toMatchObject({ key: 'pods/a', modRevision: a.modRevision, createRevision: a.createRevision });
        expect(text(d.prev)).toBe('1');
        expect(await s.get('pods/a')).toBeUndefined();
        await expectCode(s.delete('pods/a'), 'NotFound');
        const again = await s.create('pods/a', b('new'));
        expect(again.createRevision).toBe(d.revision + 1);
      });

      it('delete with an expected revision: Conflict (with the current value) when changed, NotFound when gone', async () => {
        const s = await store();
        const a = await s.create('pods/a', b('1'));
        const a2 = await s.update('pods/a', b('2'), a.modRevision);
        const conflict = await expectCode(s.delete('pods/a', a.modRevision), 'Conflict');
        expect(isStorageError(conflict) ? conflict.current?.modRevision : undefined).toBe(a2.modRevision);
        const d = await s.delete('pods/a', a2.modRevision);
        expect(d.prev.modRevision).toBe(a2.modRevision);
        await expectCode(s.delete('pods/a', a2.modRevision), 'NotFound');
      });
    });

    describe('reads', () => {
      const seed = async (s: Storage): Promise<StoredValue[]> => {
        const out: StoredValue[] = [];
        // Created out of order: lists come back in key order.
        for (const k of ['pods/ns1/c', 'pods/ns1/a', 'pods/ns2/b', 'pods/ns1/b', 'podsx/z', 'pod/y']) out.push(await s.create(k, b(k)));
        return out;
      };

      it('list returns the keys under the prefix in key order, at the current revision', async () => {
        const s = await store();
        await seed(s);
        const r = await s.list('pods/');
        expect(r.items.map((i) => i.key)).toEqual(['pods/ns1/a', 'pods/ns1/b', 'pods/ns1/c', 'pods/ns2/b']);
        expect(r.items.map(text)).toEqual(['pods/ns1/a', 'pods/ns1/b', 'pods/ns1/c', 'pods/ns2/b']);
        expect(r).toMatchObject({ revision: await s.currentRevision(), more: false, remaining: 0 });
        expect((await s.list('pods/ns1/')).items).toHaveLength(3);
        expect((await s.list('nothing/')).items).toEqual([]);
      });

      it('pages with limit and startKey: more and remaining, every key once, at one revision', async () => {
        const s = await store();
        await seed(s);
        const p1 = await s.list('pods/', { limit: 2 });
        expect(p1.items.map((i) => i.key)).toEqual(['pods/ns1/a', 'pods/ns1/b']);
        expect(p1).toMatchObject({ more: true, remaining: 2 });
        await s.create('pods/ns1/bb', b('late')); // after the first page: not in a read at p1.revision
        const p2 = await s.list('pods/', { limit: 2, startKey: `${p1.items[1]?.key ?? ''}\x00`, revision: p1.revision });
        expect(p2.items.map((i) => i.key)).toEqual(['pods/ns1/c', 'pods/ns2/b']);
        expect(p2).toMatchObject({ revision: p1.revision, more: false, remaining: 0 });
        const latest = await s.list('pods/', { startKey: 'pods/ns1/b\x00' });
        expect(latest.items.map((i) => i.key)).toEqual(['pods/ns1/bb', 'pods/ns1/c', 'pods/ns2/b']);
        const exact = await s.list('pods/', { limit: 4 });
        expect(exact).toMatchObject({ more: true, remaining: 1 });
      });

      it('a predicate keeps reading until limit matches; remaining is undefined', async () => {
        const s = await store();
        for (let i = 0; i < 30; i++) await s.create(`items/${String(i).padStart(2, '0')}`, b(i % 3 === 0 ? 'keep' : 'drop'));
        const keep = (v: StoredValue): boolean => text(v) === 'keep';
        const p1 = await s.list('items/', { limit: 4, predicate: keep });
        expect(p1.items.map((i) => i.key)).toEqual(['items/00', 'items/03', 'items/06', 'items/09']);
        expect(p1).toMatchObject({ more: true, remaining: undefined });
        const rest = await s.list('items/', { limit: 100, predicate: keep, startKey: 'items/09\x00', revision: p1.revision });
        expect(rest.items.map((i) => i.key)).toEqual(['items/12', 'items/15', 'items/18', 'items/21', 'items/24', 'items/27']);
        expect(rest).toMatchObject({ more: false, remaining: undefined, revision: p1.revision });
        const all = await s.list('items/', { predicate: keep });
        expect(all.items).toHaveLength(10);
        expect(all.more).toBe(false);
      });

      it('reads at an old revision see the state exactly as it was', async () => {
        const s = await store();
        await s.create('other/x', b('x')); // so that a's revision - 1 is a real revision, not 0 ("the latest")
        const a = await s.create('pods/a', b('a1'));
        const c = await s.create('pods/c', b('c1'));
        const then = c.modRevision;
        await s.update('pods/a', b('a2'), a.modRevision);
        await s.delete('pods/c');
        await s.create('pods/b', b('b1'));
        expect(text(await s.get('pods/a', then))).toBe('a1');
        expect(await s.get('pods/a', then)).toMatchObject({ modRevision: a.modRevision });
        expect(text(await s.get('pods/c', then))).toBe('c1');
        expect(await s.get('pods/b', then)).toBeUndefined();
        expect(await s.get('pods/a', a.modRevision - 1)).toBeUndefined();
        const old = await s.list('pods/', { revision: then });
        expect(old.items.map((i) => `${i.key}=${text(i) ?? ''}`)).toEqual(['pods/a=a1', 'pods/c=c1']);
        expect(old.revision).toBe(then);
        const now = await s.list('pods/');
        expect(now.items.map((i) => `${i.key}=${text(i) ?? ''}`)).toEqual(['pods/a=a2', 'pods/b=b1']);
      });

      it('a revision newer than the current one is FutureRevision (carrying the current revision)', async () => {
        const s = await store();
        await s.create('pods/a', b('1'));
        const cur = await s.currentRevision();
        const e1 = await expectCode(s.get('pods/a', cur + 10), 'FutureRevision');
        expect(isStorageError(e1) ? e1.revision : undefined).toBe(cur);
        await expectCode(s.list('pods/', { revision: cur + 10 }), 'FutureRevision');
        expect(text(await s.get('pods/a', cur))).toBe('1');
      });

      it('after compact(r), reads below r and watches from before r are Compacted; r and newer still work', async () => {
        const s = await store();
        const a = await s.create('pods/a', b('1'));
        const a2 = await s.update('pods/a', b('2'), a.modRevision);
        const r = a2.modRevision;
        const a3 = await s.update('pods/a', b('3'), a2.modRevision);
        await s.create('pods/b', b('b'));
        await s.compact(r);
        expect(await s.compactedRevision()).toBe(r);
        const g = await expectCode(s.get('pods/a', r - 1), 'Compacted');
        expect(isStorageError(g) ? g.revision : undefined).toBe(r);
        await expectCode(s.list('pods/', { revision: r - 1 }), 'Compacted');
        expect(text(await s.get('pods/a', r))).toBe('2');
        expect((await s.list('pods/', { revision: r })).items.map(text)).toEqual(['2']);
        expect((await s.list('pods/', { revision: r + 1 })).items.map(text)).toEqual(['3']);
        expect(text(await s.get('pods/a'))).toBe('3');
        const old = watch(s, 'pods/', r - 1);
        const refused = await expectCode(next(old.it), 'Compacted');
        expect(isStorageError(refused) ? refused.revision : undefined).toBe(r);
        const ok = watch(s, 'pods/', r);
        expect((await events(ok.it, 2)).map(show)).toEqual([`put pods/a=3@${a3.modRevision} prev=2@${r}`, `put pods/b=b@${a3.modRevision + 1} prev=-`]);
        await s.compact(r - 1); // older than what is compacted: nothing to do
        expect(await s.compactedRevision()).toBe(r);
      });
    });

    describe('watch', () => {
      it('delivers puts and deletes under the prefix in order, with previous values', async () => {
        const s = await store();
        const r0 = await s.currentRevision();
        const w = watch(s, 'pods/', r0);
        const a = await s.create('pods/a', b('1'));
        await s.create('nodes/n', b('other prefix'));
        const a2 = await s.update('pods/a', b('2'), a.modRevision);
        const c = await s.create('pods/c', b('c'));
        const d = await s.delete('pods/a');
        expect((await events(w.it, 4)).map(show)).toEqual([
          `put pods/a=1@${a.modRevision} prev=-`,
          `put pods/a=2@${a2.modRevision} prev=1@${a.modRevision}`,
          `put pods/c=c@${c.modRevision} prev=-`,
          `delete pods/a@${d.revision} prev=2@${a2.modRevision}`,
        ]);
      });

      it('replays from an old revision, and several watchers see the same sequence', async () => {
        const s = await store();
        const a = await s.create('pods/a', b('1'));
        const a2 = await s.update('pods/a', b('2'), a.modRevision);
        await s.create('pods/b', b('b'));
        const w1 = watch(s, 'pods/', a.modRevision - 1);
        const w2 = watch(s, 'pods/', a.modRevision - 1);
        const w3 = watch(s, 'pods/', a2.modRevision);
        await s.delete('pods/b');
        const e1 = (await events(w1.it, 4)).map(show);
        expect(e1[0]).toBe(`put pods/a=1@${a.modRevision} prev=-`);
        expect((await events(w2.it, 4)).map(show)).toEqual(e1);
        expect((await events(w3.it, 2)).map(show)).toEqual(e1.slice(2));
      });

      it("sends 'progress' events while idle, never behind the events delivered", async () => {
        const s = await store();
        const a = await s.create('pods/a', b('1'));
        const w = watch(s, 'pods/', a.modRevision - 1, 50);
        expect((await events(w.it, 1)).map(show)).toEqual([`put pods/a=1@${a.modRevision} prev=-`]);
        await s.create('nodes/n', b('elsewhere'));
        let progress: StorageEvent | undefined;
        for (let i = 0; i < 100 && progress === undefined; i++) {
          const r = await next(w.it);
          if (r.done !== true && r.value.type === 'progress') progress = r.value;
        }
        expect(progress?.type).toBe('progress');
        expect(progress?.type === 'progress' ? progress.revision : 0).toBeGreaterThanOrEqual(a.modRevision);
      });

      it('aborting the signal ends the iterator without an error', async () => {
        const s = await store();
        const w = watch(s, 'pods/', await s.currentRevision());
        const pending = next(w.it);
        w.stop.abort();
        expect(await pending).toEqual({ done: true, value: undefined });
        expect(await next(w.it)).toMatchObject({ done: true });
      });

      it('close ends every watch and rejects later calls with Closed; close is idempotent', async () => {
        const s = await store();
        const r0 = await s.currentRevision();
        const w1 = watch(s, 'pods/', r0);
        const w2 = watch(s, 'nodes/', r0);
        const a = await s.create('pods/a', b('1'));
        expect((await events(w1.it, 1)).map(show)).toEqual([`put pods/a=1@${a.modRevision} prev=-`]);
        const pending = [next(w1.it), next(w2.it)];
        await s.close();
        expect(await Promise.all(pending)).toEqual([
          { done: true, value: undefined },
          { done: true, value: undefined },
        ]);
        await s.close();
        await expectCode(s.get('pods/a'), 'Closed');
        await expectCode(s.list('pods/'), 'Closed');
        await expectCode(s.create('pods/b', b('x')), 'Closed');
        await expectCode(s.update('pods/a', b('x'), a.modRevision), 'Closed');
        await expectCode(s.delete('pods/a'), 'Closed');
        await expectCode(s.currentRevision(), 'Closed');
        await expectCode(next(watch(s, 'pods/', r0).it), 'Closed');
      });
    });

    describe('concurrency', () => {
      it('N parallel read-CAS-retry increments of one key end at exactly N', async () => {
        const s = await store();
        await s.create('counter', b('0'));
        const N = 20;
        let conflicts = 0;
        const increment = async (): Promise<void> => {
          for (let attempt = 0; attempt < 500; attempt++) {
            const cur = await s.get('counter');
            if (cur === undefined) throw new Error('counter vanished');
            try {
              await s.update('counter', b(String(Number(text(cur)) + 1)), cur.modRevision);
              return;
            } catch (err) {
              if (!isStorageError(err, 'Conflict')) throw err;
              conflicts++;
            }
          }
          throw new Error('increment: too many conflicts');
        };
        await Promise.all(Array.from({ length: N }, increment));
        expect(text(await s.get('counter'))).toBe(String(N));
        expect(conflicts).toBeGreaterThanOrEqual(0);
      });
    });
  });
}
