import { describe, expect, it } from 'vitest';
import { diffReplace } from '../../../../src/client/informer/diff.js';
import type { ApiObject } from '../../../../src/client/types.js';

const pod = (name: string, rv: string): ApiObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
const view = (objs: ApiObject[]): { get(k: string): ApiObject | undefined; keys(): string[] } => {
  const m = new Map(objs.map((o) => [`ns/${(o['metadata'] as { name: string }).name}`, o]));
  return { get: (k) => m.get(k), keys: () => [...m.keys()] };
};
const listed = (objs: ApiObject[]): [string, ApiObject][] => objs.map((o) => [`ns/${(o['metadata'] as { name: string }).name}`, o]);
const summary = (ds: ReturnType<typeof diffReplace>): string[] =>
  ds.map((d) => `${d.type} ${d.key}${d.type === 'update' ? ` ${String((d.old['metadata'] as { resourceVersion: string }).resourceVersion)}→${String((d.obj['metadata'] as { resourceVersion: string }).resourceVersion)}` : ''}`);

describe('diffReplace (a relist as events)', () => {
  it.each([
    ['empty store: all adds in list order', [], [pod('b', '2'), pod('a', '1')], ['add ns/b', 'add ns/a']],
    ['same versions: nothing', [pod('a', '1'), pod('b', '2')], [pod('a', '1'), pod('b', '2')], []],
    ['changed version: update', [pod('a', '1')], [pod('a', '5')], ['update ns/a 1→5']],
    ['missing from the list: delete, after adds and updates', [pod('a', '1'), pod('gone', '3')], [pod('a', '4'), pod('new', '6')], ['update ns/a 1→4', 'add ns/new', 'delete ns/gone']],
    ['empty list: all deletes', [pod('a', '1'), pod('b', '2')], [], ['delete ns/a', 'delete ns/b']],
    ['recreated under the same name (new version): update', [pod('a', '1')], [pod('a', '9')], ['update ns/a 1→9']],
  ])('%s', (_n, current, list, want) => {
    expect(summary(diffReplace(view(current), listed(list)))).toEqual(want);
  });
  it('a delete carries the store’s last state', () => {
    const old = pod('a', '1');
    const [d] = diffReplace(view([old]), []);
    expect(d).toEqual({ type: 'delete', key: 'ns/a', old });
  });
});
