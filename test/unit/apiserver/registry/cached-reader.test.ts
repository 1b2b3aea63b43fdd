import { afterEach, describe, expect, it } from 'vitest';
import { cachedReader } from '../../../../src/apiserver/registry/cached-reader.js';
import { configMap, fixture, rejection, type Fixture } from './fixture.js';

let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const MOST_RECENT = { readAt: { kind: 'MostRecent' as const } };
const names = (l: { items: { metadata: { name?: string } }[] }): (string | undefined)[] => l.items.map((o) => o.metadata.name);

describe('cachedReader', () => {
  it('answers get and list like the store, before and after the cache synced', async () => {
    f = await fixture({}, ['ns1', 'ns2']);
    const cms = f.store('configmaps');
    await cms.create('ns1', configMap('b'));
    await cms.create('ns1', configMap('a'));
    await cms.create('ns2', configMap('c'));
    const reader = cachedReader(cms);
    const answers = async () => [
      (await reader.get('ns1', 'a')).metadata.name,
      names(await reader.list('ns1', MOST_RECENT)),
      names(await reader.list('', MOST_RECENT)),
      (await rejection(reader.get('ns1', 'nope'))).code,
    ];
    const live = await answers();
    await cms.cached().synced();
    expect(await answers()).toEqual(live);
    expect(live).toEqual(['a', ['a', 'b'], ['a', 'b', 'c'], 404]);
  });

  it('never reads its own writes stale', async () => {
    f = await fixture({}, ['ns1']);
    const cms = f.store('configmaps');
    const reader = cachedReader(cms);
    await cms.cached().synced();
    await cms.create('ns1', configMap('fresh', { k: 'v1' }));
    expect((await reader.get('ns1', 'fresh')).data).toEqual({ k: 'v1' });
    await cms.update('ns1', 'fresh', configMap('fresh', { k: 'v2' }));
    expect((await reader.get('ns1', 'fresh')).data).toEqual({ k: 'v2' });
    expect(names(await reader.list('ns1', MOST_RECENT))).toEqual(['fresh']);
  });
});
