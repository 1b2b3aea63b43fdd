import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { applyStaticPodDefaults, sameDesiredPod } from '../../../src/sources/static-pod.js';
import { canonicalJson } from '../../../src/util/canonical-json.js';
import { podFromFile, podsFromUrlBody } from '../../../src/sources/manifest.js';

const pod = (image = 'i:1', extra: Record<string, unknown> = {}): Pod => {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', ...extra }, spec: { containers: [{ name: 'c', image }] } });
  if (!d.ok) throw new Error('bad fixture');
  return d.pod;
};
const t0 = new Date('2026-11-22T00:00:00Z');

describe('static pod identity', () => {
  it('suffixes the node name, defaults the namespace, records source and hash', () => {
    const p = applyStaticPodDefaults(pod(), 'node-a', 'file', '/etc/m/web.yaml', t0);
    expect(p.metadata.name).toBe('web-node-a');
    expect(p.metadata.namespace).toBe('default');
    expect(p.spec.nodeName).toBe('node-a');
    expect(p.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(p.metadata.annotations).toEqual({ 'platform.io/config.hash': expect.stringMatching(/^[0-9a-f]{32}$/) as string, 'platform.io/config.source': 'file', 'platform.io/config.seen': '2026-11-22T00:00:00.000000000Z' });
    expect(p.spec.tolerations).toEqual([{ operator: 'Exists', effect: 'NoExecute' }]);
  });
  it('the UID is stable for the same pod, source and node, also across edits, and differs otherwise', () => {
    const uid = (p: Pod, node = 'n', loc = '/m/a.yaml', src: 'file' | 'http' = 'file') => applyStaticPodDefaults(p, node, src, loc, t0).metadata.uid;
    expect(uid(pod())).toBe(uid(pod()));
    expect(uid(pod())).toBe(uid(pod('i:2')));
    expect(uid(pod())).not.toBe(uid(pod('i:1', { name: 'other' })));
    expect(uid(pod())).not.toBe(uid(pod('i:1', { namespace: 'kube' })));
    expect(uid(pod())).not.toBe(uid(pod(), 'other'));
    expect(uid(pod())).not.toBe(uid(pod(), 'n', '/m/b.yaml'));
    expect(uid(pod())).not.toBe(uid(pod(), 'n', '/m/a.yaml', 'http'));
  });
  it('config.hash hashes the content: the same for the same manifest, new with every edit', () => {
    const hash = (p: Pod, node = 'n', t = t0) => applyStaticPodDefaults(p, node, 'file', '/m/a.yaml', t).metadata.annotations!['platform.io/config.hash'];
    expect(hash(pod())).toBe(hash(pod(), 'n', new Date('2030-01-01T00:00:00Z')));
    expect(hash(pod())).not.toBe(hash(pod('i:2')));
    expect(hash(pod())).not.toBe(hash(pod(), 'other'));
    expect(hash(pod())).not.toBe(applyStaticPodDefaults(pod(), 'n', 'file', '/m/a.yaml', t0).metadata.uid);
  });
  it('keeps a UID the manifest gives', () => {
    expect(applyStaticPodDefaults(pod('i:1', { uid: 'given' }), 'n', 'file', '/m', t0).metadata.uid).toBe('given');
  });
  it('key order in the manifest does not change the hash', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [3, { f: 1, e: 2 }] } })).toBe('{"a":{"c":[3,{"e":2,"f":1}],"d":2},"b":1}');
  });
  it('the first-seen time is not a change', () => {
    const a = applyStaticPodDefaults(pod(), 'n', 'file', '/m', t0);
    const b = applyStaticPodDefaults(pod(), 'n', 'file', '/m', new Date(t0.getTime() + 1000));
    expect(sameDesiredPod(a, b)).toBe(true);
    expect(sameDesiredPod(a, applyStaticPodDefaults(pod('i:2'), 'n', 'file', '/m', t0))).toBe(false);
  });
});

describe('manifests', () => {
  const ctx = { node: 'n', source: 'file' as const, location: '/m/web.yaml', now: t0 };
  it('reads YAML and JSON', () => {
    const yaml = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: c\n    image: i:1\n';
    const r1 = podFromFile(yaml, ctx);
    const r2 = podFromFile(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'i:1' }] } }), ctx);
    expect(r1.ok && r2.ok && r1.pods[0]!.metadata.uid === r2.pods[0]!.metadata.uid).toBe(true);
  });
  it.each([
    ['', 'the manifest is empty'],
    ['apiVersion: v1\nkind: Pod\nmetadata: {name: web\n', 'YAML syntax error at line'],
    ['apiVersion: v1\nkind: Pod\n---\napiVersion: v1\nkind: Pod\n', 'holds 2 YAML documents'],
    ['apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers: []\n', 'spec.containers: a pod needs at least one container'],
  ])('rejects %j', (text, want) => {
    const r = podFromFile(text, ctx);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(want);
  });
  it('the name with its node suffix must stay a valid name (at most 253 characters)', () => {
    const named = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'i:1' }] } });
    const fits = podFromFile(named('a'.repeat(251)), ctx);
    expect(fits.ok && fits.pods[0]!.metadata.name).toBe(`${'a'.repeat(251)}-n`);
    const long = podFromFile(named('a'.repeat(252)), ctx);
    expect(long.ok).toBe(false);
    if (!long.ok) expect(long.error).toContain(`metadata.name: "${'a'.repeat(252)}" is too long: with the node name it becomes`);
  });
  it('a PodList from a URL; one bad item rejects the list', () => {
    const item = (name: string, image = 'i:1') => ({ metadata: { name }, spec: { containers: [{ name: 'c', image }] } });
    const ok = podsFromUrlBody(JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [item('a'), item('b')] }), { ...ctx, source: 'http', location: 'http://x' });
    expect(ok.ok && ok.pods.map((p) => p.metadata.name)).toEqual(['a-n', 'b-n']);
    const bad = podsFromUrlBody(JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [item('a'), item('b', '')] }), { ...ctx, source: 'http', location: 'http://x' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toBe('items[1].spec.containers[0].image: required value');
  });
});
