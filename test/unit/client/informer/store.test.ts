import { describe, expect, it } from 'vitest';
import { IndexedStore, UnknownIndexError, objectKey } from '../../../../src/client/informer/store.js';
import type { ApiObject } from '../../../../src/client/types.js';

const pod = (name: string, ns: string, node: string, rv = '1'): ApiObject => ({ metadata: { name, namespace: ns, resourceVersion: rv }, spec: { nodeName: node } });
const byNode = (o: ApiObject): string[] => [String((o['spec'] as { nodeName: string }).nodeName)];
const names = (os: ApiObject[]): string[] => os.map((o) => String((o['metadata'] as { name: string }).name)).sort();

describe('IndexedStore', () => {
  it('keys namespace/name, or name for cluster-scoped objects', () => {
    expect(objectKey(pod('a', 'ns', 'n'))).toBe('ns/a');
    expect(objectKey({ metadata: { name: 'node-1' } })).toBe('node-1');
  });
  it('indexes by namespace always, and by the given functions; moves entries on update and drops them on delete', () => {
    const s = new IndexedStore({ nodeName: byNode }, () => {});
    s.set('a/p', pod('p', 'a', 'n1'));
    s.set('a/q', pod('q', 'a', 'n2'));
    s.set('b/r', pod('r', 'b', 'n1'));
    expect(names(s.byIndex('namespace', 'a'))).toEqual(['p', 'q']);
    expect(names(s.byIndex('nodeName', 'n1'))).toEqual(['p', 'r']);
    s.set('a/p', pod('p', 'a', 'n2', '2'));
    expect(names(s.byIndex('nodeName', 'n1'))).toEqual(['r']);
    expect(names(s.byIndex('nodeName', 'n2'))).toEqual(['p', 'q']);
    expect(s.delete('b/r')).toBeDefined();
    expect(s.byIndex('nodeName', 'n1')).toEqual([]);
    expect(s.byIndex('namespace', 'b')).toEqual([]);
    expect(s.delete('b/r')).toBeUndefined();
    expect(s.size).toBe(2);
    expect(() => s.byIndex('nope', 'x')).toThrow(UnknownIndexError);
  });
  it('an index function that throws leaves the object out of that index and reports it', () => {
    const errors: string[] = [];
    const s = new IndexedStore({ bad: () => { throw new Error('boom'); } }, (i) => errors.push(i));
    s.set('a/p', pod('p', 'a', 'n1'));
    expect(s.byIndex('bad', 'x')).toEqual([]);
    expect(s.get('a/p')).toBeDefined();
    expect(errors).toEqual(['bad']);
  });
  it('holds the objects it is given, not copies', () => {
    const s = new IndexedStore({}, () => {});
    const o = pod('p', 'a', 'n1');
    s.set('a/p', o);
    expect(s.get('a/p')).toBe(o);
  });
  it.each([
    ['unchanged values', ['x', 'y'], ['x', 'y']],
    ['a value added', ['x'], ['x', 'y']],
    ['a value removed', ['x', 'y'], ['y']],
    ['the same values in another order', ['x', 'y'], ['y', 'x']],
    ['all values replaced', ['x'], ['z']],
    ['from none', [], ['x']],
    ['to none', ['x'], []],
  ])('an update with %s leaves the index holding exactly the new values', (_what, before: string[], after: string[]) => {
    const tagged = (tags: string[], rv: string): ApiObject => ({ metadata: { name: 'p', namespace: 'a', resourceVersion: rv }, tags });
    const s = new IndexedStore({ tag: (o) => o['tags'] as string[] }, () => {});
    s.set('a/q', { metadata: { name: 'q', namespace: 'a', resourceVersion: '1' }, tags: ['x'] });
    s.set('a/p', tagged(before, '1'));
    s.set('a/p', tagged(after, '2'));
    for (const v of ['x', 'y', 'z']) expect(names(s.byIndex('tag', v)), v).toEqual([...(after.includes(v) ? ['p'] : []), ...(v === 'x' ? ['q'] : [])].sort());
  });
});
