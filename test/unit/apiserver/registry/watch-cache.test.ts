import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../../../src/apiserver/storage/memory.js';
import { isStorageError, type Storage, type StorageEvent, type WatchOptions } from '../../../../src/apiserver/storage/interface.js';
import { forgetHistory, subscribe, type Subscription } from '../../../../src/apiserver/registry/watch-cache.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

interface Counting {
  storage: Storage;
  /** The signals of the storage watches opened so far. */
  watches: AbortSignal[];
}

/** The memory store, counting the storage watches opened through it. */
function counting(): Counting {
  const inner = createMemoryStorage();
  const watches: AbortSignal[] = [];
  const storage = new Proxy(inner, {
    get(target, p) {
      if (p === 'watch') {
        return (prefix: string, opts: WatchOptions) => {
          watches.push(opts.signal);
          return target.watch(prefix, opts);
        };
      }
      const v = Reflect.get(target, p) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { storage, watches };
}

/** Reads from one iterator with a bound on each wait (no sleeps; the timer is always cleared). */
function reader(events: AsyncIterable<StorageEvent>) {
  const it = events[Symbol.asyncIterator]();
  return {
    async next(ms = 2_000): Promise<StorageEvent | 'end'> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no event in time')), ms);
      });
      try {
        const r = await Promise.race([it.next(), timeout]);
        return r.done === true ? 'end' : r.value;
      } finally {
        clearTimeout(timer);
      }
    },
    async take(n: number): Promise<StorageEvent[]> {
      const out: StorageEvent[] = [];
      for (let i = 0; i < n; i++) {
        const ev = await this.next();
        if (ev === 'end') break;
        out.push(ev);
      }
      return out;
    },
    return: () => it.return?.(),
  };
}

const keys = (evs: StorageEvent[]): string[] => evs.map((e) => (e.type === 'put' ? `put ${e.kv.key}` : e.type === 'delete' ? `delete ${e.key}` : `progress ${e.revision}`));

let c: Counting;
let ac: AbortController;
afterEach(async () => {
  ac.abort();
  await c.storage.close();
});

function setup(): void {
  c = counting();
  ac = new AbortController();
}

const sub = (afterRevision: number, prefix: string, extra: Partial<Subscription> = {}): Subscription => ({ afterRevision, prefix, signal: ac.signal, ...extra });
const join = (s: Subscription, maxQueue?: number): AsyncIterable<StorageEvent> => {
  const it = subscribe(c.storage, 'pods/', s, { progressIntervalMs: 60_000, ...(maxQueue === undefined ? {} : { limits: { maxQueue } }) });
  if (it === undefined) throw new Error('not covered');
  return it;
};

describe('watch cache: one storage watch per resource for every watcher', () => {
  it('watchers of one resource share one storage watch and receive the same event objects, each narrowed to its prefix', async () => {
    setup();
    const a = reader(join(sub(0, 'pods/ns1/')));
    const b = reader(join(sub(0, 'pods/')));
    await c.storage.create('pods/ns2/x', enc('x'));
    await c.storage.create('pods/ns1/y', enc('y'));
    const [fromA] = await a.take(1);
    const fromB = await b.take(2);
    expect(keys(fromB)).toEqual(['put pods/ns2/x', 'put pods/ns1/y']);
    expect(fromA).toBe(fromB[1]);
    expect(c.watches).toHaveLength(1);
  });

  it('a late watcher whose start the history covers gets the changes after it; one from before the cache began is not covered', async () => {
    setup();
    await c.storage.create('pods/ns1/old', enc('o'));
    const start = await c.storage.currentRevision();
    const a = reader(join(sub(start, 'pods/')));
    await c.storage.create('pods/ns1/a', enc('a'));
    const afterA = await c.storage.currentRevision();
    await c.storage.create('pods/ns1/b', enc('b'));
    expect(keys(await a.take(2))).toEqual(['put pods/ns1/a', 'put pods/ns1/b']);
    const late = reader(join(sub(afterA, 'pods/')));
    expect(keys(await late.take(1))).toEqual(['put pods/ns1/b']);
    expect(subscribe(c.storage, 'pods/', sub(start - 1, 'pods/'), { progressIntervalMs: 60_000 })).toBeUndefined();
    expect(c.watches).toHaveLength(1);
  });

  it('forgetHistory (the compact fault): a watcher from before the forgotten revision is no longer covered; one after it still is', async () => {
    setup();
    const start = await c.storage.currentRevision();
    const a = reader(join(sub(start, 'pods/')));
    await c.storage.create('pods/ns1/a', enc('a'));
    const afterA = await c.storage.currentRevision();
    await c.storage.create('pods/ns1/b', enc('b'));
    expect(keys(await a.take(2))).toEqual(['put pods/ns1/a', 'put pods/ns1/b']);
    forgetHistory(c.storage, afterA);
    expect(subscribe(c.storage, 'pods/', sub(start, 'pods/'), { progressIntervalMs: 60_000 })).toBeUndefined();
    const late = reader(join(sub(afterA, 'pods/')));
    expect(keys(await late.take(1))).toEqual(['put pods/ns1/b']);
  });

  it('a watcher too far behind is ended (it resumes from what it got); the others go on', async () => {
    setup();
    const slow = reader(join(sub(0, 'pods/'), 3));
    const fast = reader(join(sub(0, 'pods/'), 3));
    for (let i = 0; i < 5; i++) {
      await c.storage.create(`pods/ns1/p${i}`, enc('v'));
      expect(keys(await fast.take(1))).toEqual([`put pods/ns1/p${i}`]);
    }
    expect(await slow.next()).toBe('end');
    await c.storage.create('pods/ns1/later', enc('v'));
    expect(keys(await fast.take(1))).toEqual(['put pods/ns1/later']);
  });

  it('an idle watcher that asked for progress gets it at the newest revision the cache saw', async () => {
    setup();
    await c.storage.create('pods/ns1/a', enc('a'));
    const rev = await c.storage.currentRevision();
    const a = reader(join(sub(rev, 'pods/', { progressIntervalMs: 10 })));
    expect(await a.next()).toEqual({ type: 'progress', revision: rev });
  });

  it('the storage watch stops when the last watcher leaves; the next watcher starts a new one', async () => {
    setup();
    const a = reader(join(sub(0, 'pods/')));
    const b = reader(join(sub(0, 'pods/')));
    await c.storage.create('pods/ns1/a', enc('a'));
    await a.take(1);
    await b.take(1);
    await a.return();
    expect(c.watches[0]?.aborted).toBe(false);
    await b.return();
    expect(c.watches[0]?.aborted).toBe(true);
    const d = reader(join(sub(await c.storage.currentRevision(), 'pods/')));
    await c.storage.create('pods/ns1/b', enc('b'));
    expect(keys(await d.take(1))).toEqual(['put pods/ns1/b']);
    expect(c.watches).toHaveLength(2);
  });

  it('a watcher whose signal aborts ends at once', async () => {
    setup();
    const it = join(sub(0, 'pods/'))[Symbol.asyncIterator]();
    const next = it.next();
    ac.abort();
    expect((await next).done).toBe(true);
  });

  it('what ends the storage watch ends every watcher: a start storage no longer has throws Compacted', async () => {
    setup();
    await c.storage.create('pods/ns1/a', enc('a'));
    await c.storage.create('pods/ns1/b', enc('b'));
    await c.storage.compact(await c.storage.currentRevision());
    const a = reader(join(sub(0, 'pods/')));
    const err = await a.next().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isStorageError(err, 'Compacted')).toBe(true);
  });
});
