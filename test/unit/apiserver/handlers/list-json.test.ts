// The JSON item cache of list pages: keyed by storage key and modRevision,
// never serving another revision's bytes, bounded in bytes; and the page
// assembled from item bytes equals JSON.stringify of the list.
import { describe, expect, it } from 'vitest';
import { JsonItemCache, jsonListBytes } from '../../../../src/apiserver/handlers/list-json.js';

/** Runs `steps` of (key, modRevision) against one cache; each step's rendered text is `<key>@<rev>#<n-th render>`. */
function run(maxBytes: number, steps: readonly (readonly [string, number])[]): { served: string[]; size: { entries: number; bytes: number } } {
  const cache = new JsonItemCache(maxBytes);
  let renders = 0;
  const served = steps.map(([key, rev]) => cache.json({ key, modRevision: rev }, () => `${key}@${rev}#${++renders}`).toString());
  return { served, size: cache.size() };
}

describe('JsonItemCache', () => {
  it.each([
    ['a hit renders once', 100, [['a', 1], ['a', 1]], ['a@1#1', 'a@1#1'], 1],
    ['a newer revision renders and replaces', 100, [['a', 1], ['a', 2], ['a', 2]], ['a@1#1', 'a@2#2', 'a@2#2'], 1],
    ['an older revision renders but does not replace the newer', 100, [['a', 2], ['a', 1], ['a', 2], ['a', 1]], ['a@2#1', 'a@1#2', 'a@2#1', 'a@1#3'], 1],
    ['over the bound the oldest inserted goes', 12, [['a', 1], ['b', 1], ['c', 1], ['a', 1]], ['a@1#1', 'b@1#2', 'c@1#3', 'a@1#4'], 2],
    ['an item bigger than the bound is served, not kept', 3, [['a', 1], ['a', 1]], ['a@1#1', 'a@1#2'], 0],
  ] as const)('%s', (_name, maxBytes, steps, served, entries) => {
    const r = run(maxBytes, steps);
    expect(r.served).toEqual(served);
    expect(r.size.entries).toBe(entries);
    expect(r.size.bytes).toBeLessThanOrEqual(maxBytes);
  });
});

describe('jsonListBytes', () => {
  it.each([
    ['no items', []],
    ['one item', [{ metadata: { name: 'a', resourceVersion: '3' } }]],
    ['several, with text needing escapes', [{ metadata: { name: 'a' } }, { metadata: { name: 'b', labels: { 'x/y': 'é"\\' } } }, {}]],
  ])('%s: equals JSON.stringify of the list', (_name, items) => {
    const head = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '7', continue: 'eyJ9', remainingItemCount: 2 } };
    const bytes = jsonListBytes(head, items.map((i) => Buffer.from(JSON.stringify(i))));
    expect(bytes.toString()).toBe(JSON.stringify({ ...head, items }));
  });
});
