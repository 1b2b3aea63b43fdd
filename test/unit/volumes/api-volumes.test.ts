// The API-backed volume kinds without a server: which files a configMap or
// secret source gives (keys, items, modes, optional), how a projected volume
// collects its sources and reports failures, with a fake ApiObjectSource.
import { describe, expect, it } from 'vitest';
import type { ApiObjectSource, ConfigMapData, SecretData, TokenRequestInput } from '../../../src/api-objects/index.js';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { keyedPayload, keysOf } from '../../../src/volumes/api-payload.js';
import { aggregateMessage, collectProjected, CTB_NOT_SUPPORTED } from '../../../src/volumes/projected.js';
import { volumeHostPath } from '../../../src/volumes/paths.js';
import { containerMounts } from '../../../src/volumes/mounts.js';

const NODE = { memoryBytes: 1024, cpuMilli: 1000, ephemeralStorageBytes: 0 };
const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s));
const signal = new AbortController().signal;

function pod(spec: Record<string, unknown>): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u1', labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i:1' }], ...spec } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}

const CM: ConfigMapData = { data: { a: 'A', b: 'B' }, binaryData: { bin: bytes('\x00\x01') } };

describe('keyedPayload (MakePayload)', () => {
  const keys = keysOf('configmap', CM);
  it.each<[string, Parameters<typeof keyedPayload>[2], number | undefined, Record<string, [string, number]> | string]>([
    ['every key with the default mode', {}, undefined, { a: ['A', 0o644], b: ['B', 0o644], bin: ['\x00\x01', 0o644] }],
    ['items at their paths with their own modes', { items: [{ key: 'a', path: 'x/a.txt', mode: 0o400 }, { key: 'b', path: 'b' }] }, undefined, { 'x/a.txt': ['A', 0o400], b: ['B', 0o644] }],
    ['a missing item key fails', { items: [{ key: 'zz', path: 'z' }] }, undefined, 'configmap references non-existent config key: zz'],
    ['a missing item key of an optional source is skipped', { items: [{ key: 'zz', path: 'z' }, { key: 'a', path: 'a' }], optional: true }, undefined, { a: ['A', 0o644] }],
    ['fsGroup adds group read', {}, 1000, { a: ['A', 0o644], b: ['B', 0o644], bin: ['\x00\x01', 0o644] }],
    ['fsGroup on a 0400 item', { items: [{ key: 'a', path: 'a', mode: 0o400 }] }, 1000, { a: ['A', 0o440] }],
  ])('%s', (_name, src, fsGroup, want) => {
    if (typeof want === 'string') {
      expect(() => keyedPayload('configmap', keys, src, 0o644, fsGroup)).toThrow(want);
      return;
    }
    const got = keyedPayload('configmap', keys, src, 0o644, fsGroup);
    expect(Object.fromEntries([...got].map(([k, v]) => [k, [Buffer.from(v.content).toString('latin1'), v.mode]]))).toEqual(want);
  });

  it('a secret key missing names the secret key', () => {
    expect(() => keyedPayload('secret', keysOf('secret', { type: 'Opaque', data: {} }), { items: [{ key: 'k', path: 'k' }] }, 0o644, undefined)).toThrow('secret references non-existent secret key: k');
  });
  it('an absent optional object gives no files', () => {
    expect(keyedPayload('secret', undefined, { optional: true }, 0o644, undefined).size).toBe(0);
  });
});

describe('aggregateMessage', () => {
  it.each([[['a'], 'a'], [['a', 'b'], '[a, b]']])('%j', (m, want) => expect(aggregateMessage(m)).toBe(want));
});

function fakeSource(over: Partial<ApiObjectSource> = {}): ApiObjectSource & { tokens: TokenRequestInput[] } {
  const tokens: TokenRequestInput[] = [];
  const configMaps: Record<string, ConfigMapData> = { cm: CM };
  const secrets: Record<string, SecretData> = { s: { type: 'Opaque', data: { pw: bytes('hunter2') } } };
  return {
    tokens,
    configMap: (_ns, name) => Promise.resolve(configMaps[name]),
    secret: (_ns, name) => Promise.resolve(secrets[name]),
    serviceAccountToken: (req) => {
      tokens.push(req);
      return Promise.resolve({ token: `tok-${req.audience ?? ''}`, expirationTimestamp: '2030-01-01T00:00:00Z' });
    },
    clusterTrustBundles: (q) => Promise.resolve(q.signerName === 'x.io/s' ? ['-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n'] : []),
    serviceAccount: () => Promise.resolve(undefined),
    register: () => undefined,
    unregister: () => undefined,
    ...over,
  };
}

describe('collectProjected', () => {
  const projected = (sources: unknown[], extra: Record<string, unknown> = {}) => pod({ serviceAccountName: 'sa', volumes: [{ name: 'v', projected: { sources, ...extra } }], ...(extra['fsGroup'] ? { securityContext: { fsGroup: extra['fsGroup'] } } : {}) });
  const collect = (p: Pod, source = fakeSource(), ctb = true) => collectProjected({ pod: p, volume: p.spec.volumes![0]!, node: NODE, source, opts: { clusterTrustBundles: ctb }, signal });
  const files = (m: Map<string, { content: string | Uint8Array; mode: number }>) => Object.fromEntries([...m].map(([k, v]) => [k, [Buffer.from(v.content).toString(), v.mode.toString(8)]]));

  it('merges every kind of source with the default mode', async () => {
    const source = fakeSource();
    const p = projected(
      [
        { configMap: { name: 'cm', items: [{ key: 'a', path: 'a' }] } },
        { secret: { name: 's' } },
        { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { serviceAccountToken: { path: 'token', audience: 'aud', expirationSeconds: 3607 } },
        { clusterTrustBundle: { path: 'ca.crt', signerName: 'x.io/s', labelSelector: {} } },
      ],
      { defaultMode: 0o420 },
    );
    expect(files(await collect(p, source))).toEqual({ a: ['A', '420'], pw: ['hunter2', '420'], labels: ['app="a"', '420'], token: ['tok-aud', '420'], 'ca.crt': ['-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n', '420'] });
    expect(source.tokens).toEqual([{ namespace: 'ns', serviceAccount: 'sa', audience: 'aud', expirationSeconds: 3607, pod: { name: 'p', uid: 'u1' } }]);
  });

  it('a token without expirationSeconds asks for the API default; with fsGroup it is 0640', async () => {
    const source = fakeSource();
    const got = await collect(projected([{ serviceAccountToken: { path: 't' } }], { fsGroup: 2000 }), source);
    expect(files(got)).toEqual({ t: ['tok-', '640'] });
    expect(source.tokens[0]!.expirationSeconds).toBe(3600);
    expect(source.tokens[0]!.audience).toBeUndefined();
  });

  it('reports every failing source together', async () => {
    const p = projected([{ configMap: { name: 'nope' } }, { secret: { name: 'gone' } }, { configMap: { name: 'opt', optional: true } }]);
    await expect(collect(p)).rejects.toThrow('[configmap "nope" not found, secret "gone" not found]');
  });

  it.each<[string, unknown, boolean, string | undefined]>([
    ['a named bundle that is absent', { path: 'c', name: 'x.io:s:1' }, true, 'while getting ClusterTrustBundle: clustertrustbundles.certificates.platform.io "x.io:s:1" not found'],
    ['an optional absent bundle', { path: 'c', name: 'x.io:s:1', optional: true }, true, undefined],
    ['a signer without bundles', { path: 'c', signerName: 'y.io/none' }, true, 'combined trust anchors for signer "y.io/none" is empty'],
    ['the gate off', { path: 'c', signerName: 'x.io/s' }, false, CTB_NOT_SUPPORTED],
  ])('clusterTrustBundle: %s', async (_n, src, gate, err) => {
    const run = collect(projected([{ clusterTrustBundle: src }]), fakeSource(), gate);
    if (err === undefined) expect(files(await run)).toEqual({ c: ['', '644'] });
    else await expect(run).rejects.toThrow(err);
  });

  it('a token request failure is the volume failure', async () => {
    const source = fakeSource({ serviceAccountToken: () => Promise.reject(new Error('serviceaccounts "sa" is forbidden')) });
    await expect(collect(projected([{ serviceAccountToken: { path: 't' } }]), source)).rejects.toThrow('serviceaccounts "sa" is forbidden');
  });
});

describe('paths and mounts of the API-backed kinds', () => {
  const p = pod({
    volumes: [{ name: 'cm', configMap: { name: 'x' } }, { name: 's', secret: { secretName: 'y' } }, { name: 'pj', projected: { sources: [] } }],
    containers: [{ name: 'c', image: 'i:1', volumeMounts: [{ name: 'cm', mountPath: '/cm' }, { name: 's', mountPath: '/s' }, { name: 'pj', mountPath: '/pj', readOnly: false }] }],
  });
  it('each lives under its plugin directory and is mounted read-only', () => {
    expect(p.spec.volumes!.map((v) => volumeHostPath('/r', 'u1', v))).toEqual(['/r/pods/u1/volumes/platform.io~configmap/cm', '/r/pods/u1/volumes/platform.io~secret/s', '/r/pods/u1/volumes/platform.io~projected/pj']);
    expect(containerMounts(p, p.spec.containers[0]!, '/r', new Map()).map((m) => m.readonly)).toEqual([true, true, true]);
  });
  it('the decoder applies the API defaults (0644) and keeps the kind name', () => {
    expect(p.spec.volumes!.map((v) => [v.otherSources, v.configMap?.defaultMode ?? v.secret?.defaultMode ?? v.projected?.defaultMode])).toEqual([[['configMap'], 0o644], [['secret'], 0o644], [['projected'], 0o644]]);
  });
});
