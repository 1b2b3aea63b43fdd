import { afterEach, describe, expect, it } from 'vitest';
import { stripManagedFields } from '../../../../src/client/informer/index.js';
import type { ApiObject } from '../../../../src/client/types.js';
import { startInformer, until, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  expect(h?.fake.openWatches ?? 0).toBe(0);
  h = undefined;
});

const marked = (o: ApiObject): boolean => o['transformed'] === true;

describe('informer transform (client-go SetTransform)', () => {
  it.each([
    ['list and watch', false],
    ['streaming list', true],
  ])('%s: every listed and watched object is transformed before the store and the handlers; bookmarks are not', async (_what, watchList) => {
    const seen: string[] = [];
    const handled: ApiObject[] = [];
    h = startInformer({
      run: false,
      fake: { watchListEnabled: watchList },
      informer: {
        watchList,
        transform: (o) => {
          seen.push(String((o['metadata'] as { name?: string }).name));
          return { ...o, transformed: true };
        },
      },
    });
    h.fake.create('a');
    h.fake.create('b');
    const { fake, informer } = h;
    informer.addHandlers({ onAdd: (o) => handled.push(o), onUpdate: (_old, o) => handled.push(o), onDelete: (o) => handled.push(o) });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await informer.synced;
    await until(() => fake.openWatches === 1, 'watch open');
    fake.update('default/a');
    fake.bookmark();
    fake.remove('default/b');
    await until(() => informer.store.size === 1 && handled.length === 4, 'events applied');
    ac.abort();
    await run;
    expect(informer.store.list().every(marked)).toBe(true);
    expect(handled.every(marked)).toBe(true);
    expect(seen).toEqual(['a', 'b', 'a', 'b']);
  });

  it('omitManagedFields: every list and watch asks for objects without managedFields; what still has them is stripped before the transform', async () => {
    const transformed: ApiObject[] = [];
    h = startInformer({
      run: false,
      informer: {
        omitManagedFields: true,
        transform: (o) => {
          transformed.push(o);
          return { ...o, transformed: true };
        },
      },
    });
    const { fake, informer } = h;
    // This ListerWatcher ignores the hint: its objects keep their managedFields, and updates copy them.
    (fake.create('a')['metadata'] as Record<string, unknown>)['managedFields'] = [{ manager: 'm' }];
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await informer.synced;
    await until(() => fake.openWatches === 1, 'watch open');
    fake.update('default/a');
    await until(() => transformed.length === 2, 'update applied');
    ac.abort();
    await run;
    expect(fake.calls.list.length).toBeGreaterThan(0);
    expect(fake.calls.list.every((o) => o.omitManagedFields === true)).toBe(true);
    expect(fake.calls.watch.every((o) => o.omitManagedFields === true)).toBe(true);
    expect(transformed.map((o) => 'managedFields' in (o['metadata'] as object))).toEqual([false, false]);
    expect(informer.store.list().map((o) => [marked(o), 'managedFields' in (o['metadata'] as object)])).toEqual([[true, false]]);
  });

  it('a transform that throws fails that watch: the informer backs off and relists', async () => {
    let fail = false;
    h = startInformer({
      informer: {
        transform: (o) => {
          if (fail && (o['metadata'] as { name?: string }).name === 'bad') throw new Error('transform broke');
          return o;
        },
      },
    });
    await h.informer.synced;
    await until(() => h!.fake.openWatches === 1, 'watch open');
    fail = true;
    h.fake.create('bad');
    await until(() => h!.fake.calls.list.length === 2, 'relisted');
    expect(h.logs.some((l) => l.level === 'warn' && JSON.stringify(l.fields).includes('transform broke'))).toBe(true);
  });
});

describe('stripManagedFields', () => {
  it.each([
    ['drops managedFields, keeps the rest in order', { metadata: { name: 'a', managedFields: [{ manager: 'm' }], resourceVersion: '1' }, spec: {} }, { metadata: { name: 'a', resourceVersion: '1' }, spec: {} }],
    ['leaves an object without managedFields alone', { metadata: { name: 'a' } }, { metadata: { name: 'a' } }],
    ['leaves an object without metadata alone', { kind: 'Pod' }, { kind: 'Pod' }],
  ])('%s', (_what, input: ApiObject, want: ApiObject) => {
    const out = stripManagedFields(input);
    expect(out).toEqual(want);
    expect(Object.keys((out['metadata'] ?? {}) as object)).toEqual(Object.keys((want['metadata'] ?? {}) as object));
    expect(stripManagedFields(out)).toEqual(want);
  });
});
