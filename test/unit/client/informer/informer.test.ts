import { afterEach, describe, expect, it } from 'vitest';
import { apiErrors } from '../../../../src/api/errors.js';
import { ApiStatusError, ClientConnectionError } from '../../../../src/client/errors.js';
import { startInformer, tick, until, type Harness } from './harness.js';

const REQ = { method: 'GET', path: '/api/v1/pods' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  expect(h?.fake.openWatches ?? 0).toBe(0);
  h = undefined;
});
const seed = (hh: Harness, n: number): void => {
  for (let i = 0; i < n; i++) hh.fake.create(`p${i}`);
};
const inSync = (hh: Harness): boolean => hh.informer.store.resourceVersion === hh.fake.rv && JSON.stringify(hh.storeView()) === JSON.stringify(hh.fakeView());

describe('informer: list then watch', () => {
  it('lists in pages at "0", continues with the token alone, then watches from the list’s version with bookmarks', async () => {
    h = startInformer({ run: false, informer: { pageSize: 2 } });
    seed(h, 5);
    const hh = startInformerFrom(h);
    await hh.informer.synced;
    expect(hh.informer.hasSynced()).toBe(true);
    expect(hh.storeView()).toEqual(hh.fakeView());
    expect(hh.informer.store.resourceVersion).toBe('5');
    expect(hh.fake.calls.list).toEqual([{ resourceVersion: '0', limit: 2 }, { limit: 2, continue: expect.any(String) }, { limit: 2, continue: expect.any(String) }]);
    await until(() => hh.fake.openWatches === 1, 'watch open');
    expect(hh.fake.calls.watch).toEqual([{ resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 300 }]);
    expect(hh.events).toEqual(['add default/p0@1', 'add default/p1@2', 'add default/p2@3', 'add default/p3@4', 'add default/p4@5']);
  });

  it('delivers watch events in order, advances the version on every event and bookmark', async () => {
    h = startInformer();
    await h.informer.synced;
    await until(() => h!.fake.openWatches === 1, 'watch open');
    h.fake.create('a');
    h.fake.update('default/a', 'node-b');
    h.fake.create('b');
    h.fake.remove('default/a');
    await until(() => inSync(h!), 'in sync');
    expect(h.events).toEqual(['add default/a@1', 'update default/a@1→2', 'add default/b@3', 'delete default/a@4']);
    h.fake.bookmark();
    await until(() => h!.fake.calls.watch.length === 1 && h!.informer.store.resourceVersion === '4', 'bookmark');
    expect(h.informer.store.byIndex('namespace', 'default').map((o) => (o['metadata'] as { name: string }).name)).toEqual(['b']);
  });

  it('re-watches at once from the last version after a clean end, and gets what happened meanwhile', async () => {
    h = startInformer();
    seed(h, 2);
    await h.informer.synced;
    await until(() => h!.fake.openWatches === 1, 'watch open');
    h.fake.create('x');
    await until(() => inSync(h!), 'saw x');
    h.fake.dropWatches('clean');
    h.fake.update('default/p0');
    await until(() => inSync(h!) && h!.fake.openWatches === 1, 'resumed');
    expect(h.fake.calls.list).toHaveLength(1);
    expect(h.fake.calls.watch.map((w) => w.resourceVersion)).toEqual(['2', '3']);
    expect(h.sleeps).toEqual([]);
    expect(h.events.slice(2)).toEqual(['add default/x@3', 'update default/p0@1→4']);
  });

  it('after a compaction: the watch’s 410 → back-off → relist at the last version (410 again) → consistent list, applied as a diff', async () => {
    h = startInformer({ informer: { pageSize: 2 } });
    seed(h, 3);
    await h.informer.synced;
    await until(() => h!.fake.openWatches === 1, 'watch open');
    h.fake.dropWatches('reset');
    h.fake.remove('default/p0');
    h.fake.update('default/p1');
    h.fake.create('n');
    h.fake.compact();
    await until(() => inSync(h!), 'relisted');
    expect(h.fake.calls.list.slice(2).map((l) => [l.resourceVersion, l.limit, l.continue === undefined])).toEqual([
      ['3', 2, true],
      ['', 2, true],
      [undefined, 2, false],
    ]);
    // Adds and updates in list (key) order, then deletes.
    expect(h.events.slice(3)).toEqual(['add default/n@6', 'update default/p1@2→5', 'delete default/p0@1']);
    expect(h.sleeps.length).toBeGreaterThan(0);
  });

  it('a continue token that expires mid-list becomes one full list at the same version', async () => {
    h = startInformer({ run: false, informer: { pageSize: 2 } });
    seed(h, 5);
    h.fake.expireContinues(1);
    const hh = startInformerFrom(h);
    await hh.informer.synced;
    expect(hh.fake.calls.list).toEqual([{ resourceVersion: '0', limit: 2 }, { limit: 2, continue: expect.any(String) }, { resourceVersion: '0' }]);
    expect(hh.storeView()).toEqual(hh.fakeView());
    expect(new Set(hh.events).size).toBe(5);
  });

  it('a very short watch (clean end, no event) backs off and relists', async () => {
    h = startInformer();
    seed(h, 1);
    h.fake.shortWatches(1);
    await h.informer.synced;
    await until(() => h!.fake.calls.list.length === 2 && h!.fake.openWatches === 1, 'relisted');
    expect(h.sleeps).toEqual([800]);
    expect(h.logs.some((l) => l.msg.includes('watch failed') && String(l.fields?.['error']).includes('very short watch'))).toBe(true);
    expect(h.events).toEqual(['add default/p0@1']);
  });

  it('a reset after events re-watches from the last version without a relist; an HTTP 410 on opening the watch relists', async () => {
    h = startInformer();
    seed(h, 1);
    await h.informer.synced;
    await until(() => h!.fake.openWatches === 1, 'watch open');
    h.fake.create('x');
    await until(() => inSync(h!), 'saw x');
    h.fake.dropWatches('reset');
    h.fake.update('default/x');
    await until(() => inSync(h!) && h!.fake.openWatches === 1, 'resumed');
    expect(h.fake.calls.list).toHaveLength(1);
    expect(h.sleeps).toEqual([]);
    h.fake.failNextWatch(new ApiStatusError(REQ, apiErrors.expired('too old resource version: 3 (9)').status(), undefined));
    h.fake.dropWatches('clean');
    await until(() => h!.fake.calls.list.length === 2 && h!.fake.openWatches === 1, 'relisted');
    expect(h.logs.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('429 or no connection when opening a watch: back off and re-open it, no relist', async () => {
    h = startInformer();
    h.fake.failNextWatch(new ApiStatusError(REQ, apiErrors.tooManyRequests('slow down', 1).status(), 1));
    h.fake.failNextWatch(new ClientConnectionError(REQ, 'connect ECONNREFUSED'));
    await h.informer.synced;
    await until(() => h!.fake.openWatches === 1, 'watching');
    expect(h.fake.calls.list).toHaveLength(1);
    expect(h.sleeps).toEqual([800, 1_600]);
  });

  it('a list at a version the server has not reached (504 too large) is retried consistently', async () => {
    h = startInformer();
    h.fake.failNextList(new ApiStatusError(REQ, apiErrors.tooLargeResourceVersion(1).status(), 1));
    await h.informer.synced;
    expect(h.fake.calls.list.map((l) => l.resourceVersion)).toEqual(['0', '']);
  });
});

describe('informer: streaming lists (WatchList)', () => {
  it('one watch with sendInitialEvents; synced at the initial-events-end bookmark; the same watch carries on', async () => {
    h = startInformer({ run: false, fake: { watchListEnabled: true }, informer: { watchList: true } });
    seed(h, 3);
    const hh = startInformerFrom(h);
    await hh.informer.synced;
    expect(hh.fake.calls.list).toEqual([]);
    expect(hh.fake.calls.watch).toEqual([{ resourceVersion: '', resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true, timeoutSeconds: 300 }]);
    expect(hh.informer.store.resourceVersion).toBe('3');
    hh.fake.update('default/p1');
    await until(() => inSync(hh), 'event on the same watch');
    expect(hh.fake.calls.watch).toHaveLength(1);
    expect(hh.events).toEqual(['add default/p0@1', 'add default/p1@2', 'add default/p2@3', 'update default/p1@2→4']);
  });

  it('after a 410 a new streaming list replaces the store as a diff', async () => {
    h = startInformer({ fake: { watchListEnabled: true }, informer: { watchList: true } });
    seed(h, 2);
    await h.informer.synced;
    h.fake.dropWatches('reset');
    h.fake.remove('default/p0');
    h.fake.create('q');
    h.fake.compact();
    await until(() => inSync(h!), 'resynced');
    expect(h.fake.calls.list).toEqual([]);
    expect(h.events.slice(2)).toEqual(['add default/q@4', 'delete default/p0@1']);
    expect(h.fake.calls.watch.at(-1)).toMatchObject({ sendInitialEvents: true, resourceVersion: '2' });
  });

  it('the server without the gate answers 422: list and watch instead, logged once, not asked again', async () => {
    h = startInformer({ fake: { watchListEnabled: false }, informer: { watchList: true } });
    seed(h, 2);
    await h.informer.synced;
    await until(() => h!.fake.openWatches === 1, 'watching');
    // A clean end with no event on a fixed clock is a very short watch: a new round (list, not a streaming list).
    h.fake.dropWatches('clean');
    await until(() => h!.fake.calls.list.length === 2 && h!.fake.openWatches === 1, 'second round');
    expect(h.fake.calls.watch.filter((w) => w.sendInitialEvents === true)).toHaveLength(1);
    expect(h.logs.filter((l) => l.msg.includes('streaming lists'))).toHaveLength(1);
    expect(h.storeView()).toEqual(h.fakeView());
  });
});

function startInformerFrom(h: Harness): Harness {
  // The harness was built without running so the fake could be seeded first; run it now.
  const ac = new AbortController();
  const done = h.informer.run(ac.signal);
  const prevStop = h.stop;
  h.stop = async () => {
    ac.abort();
    await done;
    await prevStop();
  };
  return h;
}

describe('informer: lifecycle', () => {
  it('stops on abort: run resolves, the watch is closed, no handler runs after', async () => {
    h = startInformer();
    await h.informer.synced;
    await until(() => h!.fake.openWatches === 1, 'watching');
    await h.stop();
    const n = h.events.length;
    h.fake.create('late');
    await tick();
    expect(h.events).toHaveLength(n);
    expect(h.fake.openWatches).toBe(0);
  });
  it('stops during a back-off sleep', async () => {
    h = startInformer();
    h.fake.failNextList(new ApiStatusError(REQ, apiErrors.internal(new Error('etcd down')).status(), undefined));
    await until(() => h!.sleeps.length === 1, 'backing off');
    await h.stop();
    expect(h.informer.hasSynced()).toBe(false);
  });
  it('refuses a second concurrent run', async () => {
    h = startInformer();
    await expect(h.informer.run(new AbortController().signal)).rejects.toThrow(/already running/);
  });
});
