import { afterEach, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../../../src/client/types.js';
import { startInformer, until, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});
const inSync = (hh: Harness): boolean => hh.informer.store.resourceVersion === hh.fake.rv && JSON.stringify(hh.storeView()) === JSON.stringify(hh.fakeView());
const warnings = (hh: Harness, text: string): number => hh.logs.filter((l) => l.level === 'warn' && String(l.fields?.['error']).includes(text)).length;

describe('informer: bad input keeps the last good state, is logged once per problem, and the informer resumes', () => {
  it.each<[string, WatchEvent, string]>([
    ['an event without metadata.name', { type: 'ADDED', object: { kind: 'Pod', metadata: { namespace: 'default', resourceVersion: '99' } } }, 'object.metadata.name: ADDED event: is missing'],
    ['an event without resourceVersion', { type: 'MODIFIED', object: { kind: 'Pod', metadata: { name: 'p0', namespace: 'default' } } }, 'object.metadata.resourceVersion'],
    ['an event of the wrong kind', { type: 'ADDED', object: { kind: 'Node', metadata: { name: 'n', resourceVersion: '99' } } }, 'object.kind: ADDED event: is "Node", expected "Pod"'],
    ['a bookmark without a version', { type: 'BOOKMARK', object: { kind: 'Pod', metadata: {} } }, 'BOOKMARK without a resourceVersion'],
    ['an unknown event type', { type: 'ERRORISH' as WatchEvent['type'], object: {} }, 'unknown watch event type'],
    ['a namespaced object without namespace', { type: 'ADDED', object: { kind: 'Pod', metadata: { name: 'x', resourceVersion: '99' } } }, 'object.metadata.namespace'],
  ])('%s', async (_n, bad, text) => {
    h = startInformer();
    h.fake.create('p0');
    await h.informer.synced;
    await until(() => h!.fake.openWatches === 1, 'watching');
    const before = h.storeView();
    for (let round = 0; round < 2; round++) {
      const lists = h.fake.calls.list.length;
      h.fake.inject(bad);
      await until(() => h!.fake.calls.list.length === lists + 1 && h!.fake.openWatches === 1, 'relisted');
      expect(h.storeView()).toEqual(before);
    }
    expect(warnings(h, text)).toBe(1);
    h.fake.update('default/p0');
    await until(() => inSync(h!), 'resumed');
    expect(h.events).toEqual(['add default/p0@1', 'update default/p0@1→2']);
  });

  it('a list without a version (the ListerWatcher’s protocol error): back off, list again', async () => {
    h = startInformer();
    h.fake.create('p0');
    h.fake.listsWithoutVersion(3);
    await h.informer.synced;
    expect(h.sleeps).toEqual([800, 1_600, 3_200]);
    expect(warnings(h, 'list without a resourceVersion')).toBe(1);
    expect(h.storeView()).toEqual(h.fakeView());
  });

  it('a list item without a name drops the whole list; the store keeps its state', async () => {
    h = startInformer();
    h.fake.create('p0');
    await h.informer.synced;
    await until(() => h!.fake.openWatches === 1, 'watching');
    const original = h.fake.list.bind(h.fake);
    let served = 0;
    h.fake.list = async (o) => {
      const page = await original(o);
      return served++ === 0 ? { ...page, items: [...page.items, { metadata: { namespace: 'default', resourceVersion: '1' } }] } : page;
    };
    h.fake.dropWatches('clean');
    await until(() => served >= 2 && h!.fake.openWatches === 1, 'relisted twice');
    expect(warnings(h, 'items[1].metadata.name')).toBe(1);
    expect(h.events).toEqual(['add default/p0@1']);
  });

  it('a handler that throws is logged once per message; the others and the loop go on', async () => {
    h = startInformer({ run: false });
    const seen: string[] = [];
    h.informer.addHandlers({
      onAdd: () => {
        throw new Error('handler bug');
      },
    });
    h.informer.addHandlers({ onAdd: (o) => seen.push(String((o['metadata'] as { name: string }).name)) });
    const ac = new AbortController();
    const done = h.informer.run(ac.signal);
    const stop = h.stop;
    h.stop = async () => {
      ac.abort();
      await done;
      await stop();
    };
    h.fake.create('a');
    h.fake.create('b');
    await h.informer.synced;
    await until(() => h!.fake.openWatches === 1, 'watching');
    h.fake.create('c');
    await until(() => seen.length === 3, 'all adds');
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(h.logs.filter((l) => l.level === 'error' && l.msg.includes('onAdd handler threw'))).toHaveLength(1);
  });
});
