import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { PodConfigMerger } from '../../../src/sources/merger.js';

const pod = (name: string, uid: string, image = 'i:1', seen = 't0'): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid, labels: {}, annotations: { 'platform.io/config.seen': seen } },
  spec: { containers: [{ name: 'c', image, resources: { limits: {}, requests: {} }, terminationMessagePath: '', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }], restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst' },
});
const ops = (r: { updates: Array<{ op: string; pod: Pod }> }) => r.updates.map((u) => `${u.op} ${u.pod.metadata.name}`);

describe('PodConfigMerger', () => {
  it('turns complete sets into minimal updates', () => {
    const m = new PodConfigMerger(['file']);
    expect(ops(m.set('file', [pod('a', '1'), pod('b', '2')]))).toEqual(['ADD a', 'ADD b']);
    expect(ops(m.set('file', [pod('a', '1', 'i:1', 't1'), pod('b', '2')]))).toEqual([]);
    expect(ops(m.set('file', [pod('a', '1', 'i:2'), pod('c', '3')]))).toEqual(['REMOVE b', 'UPDATE a', 'ADD c']);
    expect(ops(m.set('file', []))).toEqual(['REMOVE a', 'REMOVE c']);
  });
  it('a pod whose UID changes (renamed) is a remove and an add', () => {
    const m = new PodConfigMerger(['file']);
    m.set('file', [pod('a', '1')]);
    expect(ops(m.set('file', [pod('a', '9', 'i:2')]))).toEqual(['REMOVE a', 'ADD a']);
  });
  it('knows when every source has reported', () => {
    const m = new PodConfigMerger(['file', 'http']);
    m.set('file', []);
    expect(m.allSourcesSeen()).toBe(false);
    m.set('http', []);
    expect(m.allSourcesSeen()).toBe(true);
  });
  it('rejects a name another source declares, and a name declared twice', () => {
    const m = new PodConfigMerger(['file', 'http']);
    m.set('file', [pod('a', '1')]);
    const r = m.set('http', [pod('a', '2'), pod('b', '3'), pod('b', '4')]);
    expect(ops(r)).toEqual(['ADD b']);
    expect(r.rejected.map((x) => x.reason)).toEqual(['pod default/a is already declared by the file source', 'pod default/b is declared twice by the http source']);
    expect(m.pods().map((p) => p.metadata.uid).sort()).toEqual(['1', '3']);
  });
});
