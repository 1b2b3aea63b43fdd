// The mirror pod manager's decisions as tables, and the mirror pod object
// checked against the server's NodeRestriction rule for what a node may create.
import { describe, expect, it } from 'vitest';
import { nodePodCreateReason } from '../../../src/apiserver/admission/node-restriction.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { mirrorActions, mirrorPodObject, mirrorRefOf, type MirrorRef } from '../../../src/pod-sync/mirror-diff.js';

const stat = (name: string, hash: string, source = 'file'): Pod =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'kube', uid: `s-${name}`, labels: { tier: 'cp' }, annotations: { 'platform.io/config.hash': hash, 'platform.io/config.source': source } }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', emptyDir: {}, otherSources: ['x'] }] } }) as unknown as Pod;
const mirror = (name: string, hash: string, deleting = false): MirrorRef => ({ name, namespace: 'kube', uid: `m-${name}`, hash, deleting });
const show = (a: ReturnType<typeof mirrorActions>[number]): string => (a.kind === 'delete' ? `delete ${a.name} ${a.uid}` : a.kind === 'replace' ? `replace ${a.pod.metadata.name} ${a.uid}` : `create ${a.pod.metadata.name}`);

describe('mirrorActions', () => {
  it.each<[string, Pod[], MirrorRef[], boolean, string[]]>([
    ['a static pod without a mirror gets one', [stat('a', 'h1')], [], true, ['create a']],
    ['a mirror with the same hash stays', [stat('a', 'h1')], [mirror('a', 'h1')], true, []],
    ['a changed static pod replaces its mirror', [stat('a', 'h2')], [mirror('a', 'h1')], true, ['replace a m-a']],
    ['a mirror someone deleted gracefully is finished and made anew', [stat('a', 'h1')], [mirror('a', 'h1', true)], true, ['replace a m-a']],
    ['a mirror whose static pod went is deleted', [], [mirror('a', 'h1')], true, ['delete a m-a']],
    ['... but not before every static source reported', [], [mirror('a', 'h1')], false, []],
    ['creations do not wait for the sources', [stat('b', 'h')], [mirror('a', 'h1')], false, ['create b']],
  ])('%s', (_n, statics, mirrors, seen, want) => {
    expect(mirrorActions(statics, mirrors, seen).map(show)).toEqual(want);
  });
});

describe('mirrorPodObject', () => {
  const obj = mirrorPodObject(stat('a', 'h1'), { name: 'n1', uid: 'node-uid' });
  it('carries the mirror annotation, the static annotations and the node as controller owner', () => {
    expect(obj['metadata']).toEqual({
      name: 'a',
      namespace: 'kube',
      labels: { tier: 'cp' },
      annotations: { 'platform.io/config.hash': 'h1', 'platform.io/config.source': 'file', 'platform.io/config.mirror': 'h1' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid', controller: true }],
    });
    expect(obj['spec']).toMatchObject({ nodeName: 'n1', volumes: [{ name: 'v', emptyDir: {} }] });
    expect(JSON.stringify(obj)).not.toContain('otherSources');
  });
  it('is what NodeRestriction lets the node create', () => {
    expect(nodePodCreateReason('n1', obj as never)).toBeUndefined();
  });
  it('reads back as a mirror of the hash', () => {
    expect(mirrorRefOf({ ...obj, metadata: { ...(obj['metadata'] as object), uid: 'x' } })).toEqual({ name: 'a', namespace: 'kube', uid: 'x', hash: 'h1', deleting: false });
    expect(mirrorRefOf({ metadata: { name: 'p' } })).toBeUndefined();
  });
});
