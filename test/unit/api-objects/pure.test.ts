// The pure parts of the API object source: the token refresh rule (80 % of
// the lifetime or 24 h, less jitter), the TokenRequest body, ClusterTrustBundle
// merging, which objects a pod references, and decoding objects.
import { describe, expect, it } from 'vitest';
import { certificateBlocks, mergeTrustBundles, needsRefresh, podReferences, podRegistrations, tokenRequestBody, type CachedToken } from '../../../src/api-objects/index.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { configMapData, secretData, serviceAccountData } from '../../../src/api-objects/decode.js';
import { decodePod } from '../../../src/pod-model/pod-decode.js';

const H = 3600_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const token = (expirationSeconds: number): CachedToken => ({ token: 't', expirationSeconds, expirationTimestamp: new Date(T0 + expirationSeconds * 1000).toISOString() });

describe('needsRefresh (the kubelet token manager rule)', () => {
  it.each<[string, CachedToken, number, number, boolean]>([
    ['fresh 1 h token', token(3600), T0 + 10 * 60_000, 0, false],
    ['1 h token at 79 %', token(3600), T0 + 2844_000, 0, false],
    ['1 h token past 80 %', token(3600), T0 + 2881_000, 0, true],
    ['1 h token at 79 % with 10 s jitter', token(3600), T0 + 2875_000, 10_000, true],
    ['1 year token at 23 h', token(365 * 24 * 3600), T0 + 23 * H, 0, false],
    ['1 year token past 24 h', token(365 * 24 * 3600), T0 + 24 * H + 1000, 0, true],
    ['expired', token(600), T0 + 601_000, 0, true],
    ['unparsable expiration', { token: 't', expirationSeconds: 600, expirationTimestamp: 'x' }, T0, 0, true],
  ])('%s', (_n, t, now, jitter, want) => expect(needsRefresh(t, now, jitter)).toBe(want));
});

describe('tokenRequestBody', () => {
  it('binds the token to the pod, with the audience when given', () => {
    expect(tokenRequestBody({ namespace: 'ns', serviceAccount: 'sa', audience: 'vault', expirationSeconds: 3607, pod: { name: 'p', uid: 'u' } })).toEqual({
      apiVersion: 'authentication.platform.io/v1',
      kind: 'TokenRequest',
      metadata: { name: 'sa', namespace: 'ns' },
      spec: { audiences: ['vault'], expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' } },
    });
    expect((tokenRequestBody({ namespace: 'ns', serviceAccount: 'sa', expirationSeconds: 600, pod: { name: 'p', uid: 'u' } })['spec'] as { audiences: string[] }).audiences).toEqual([]);
  });
});

const pem = (b64: string, headers = ''): string => `-----BEGIN CERTIFICATE-----\n${headers}${b64}\n-----END CERTIFICATE-----\n`;
const LONG = 'M'.repeat(70);

describe('mergeTrustBundles', () => {
  it.each<[string, string[], string[]]>([
    ['one bundle, one block', [pem('QUJD')], [pem('QUJD')]],
    ['deduplicated across bundles and sorted', [pem('WFla') + pem('QUJD'), pem('QUJD')], [pem('QUJD'), pem('WFla')]],
    ['text between blocks and non-certificate blocks dropped', [`junk\n${pem('QUJD')}more\n-----BEGIN PRIVATE KEY-----\nS0VZ\n-----END PRIVATE KEY-----\n`], [pem('QUJD')]],
    ['headers dropped, lines rewrapped at 64', [pem(`${LONG.slice(0, 40)}\n${LONG.slice(40)}`, 'Proc-Type: x\n\n')], [`-----BEGIN CERTIFICATE-----\n${LONG.slice(0, 64)}\n${LONG.slice(64)}\n-----END CERTIFICATE-----\n`]],
    ['nothing', [], []],
  ])('%s', (_n, bundles, want) => expect(mergeTrustBundles(bundles)).toEqual(want));
  it('bundle order does not matter', () => {
    expect(mergeTrustBundles([pem('QQ=='), pem('Qg==')])).toEqual(mergeTrustBundles([pem('Qg=='), pem('QQ==')]));
    expect(certificateBlocks(pem('QUJD') + pem('REVG'))).toEqual(['QUJD', 'REVG']);
  });
});

describe('podReferences', () => {
  it('collects names from volumes, projected sources, env, envFrom and imagePullSecrets of all containers', () => {
    const d = decodePod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns', uid: 'u' },
      spec: {
        imagePullSecrets: [{ name: 'pull' }],
        volumes: [{ name: 'a', configMap: { name: 'cm1' } }, { name: 'b', secret: { secretName: 's1' } }, { name: 'c', projected: { sources: [{ configMap: { name: 'cm2' } }, { secret: { name: 's2' } }] } }],
        initContainers: [{ name: 'i', image: 'i', envFrom: [{ configMapRef: { name: 'cm3' } }, { secretRef: { name: 's3' } }] }],
        containers: [{ name: 'c', image: 'i', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cm4', key: 'k' } } }, { name: 'Y', valueFrom: { secretKeyRef: { name: 's4', key: 'k' } } }] }],
      },
    });
    if (!d.ok) throw new Error(JSON.stringify(d.problems));
    const refs = podReferences(d.pod);
    expect([...refs.configMaps].sort()).toEqual(['cm1', 'cm2', 'cm3', 'cm4']);
    expect([...refs.secrets].sort()).toEqual(['pull', 's1', 's2', 's3', 's4']);
  });
});

describe('decoding objects', () => {
  it('configMap text and binary keys, secret bytes, service account pull secrets', () => {
    const cm = configMapData({ data: { a: 'A' }, binaryData: { b: Buffer.from([0, 255]).toString('base64') } });
    expect(cm.data).toEqual({ a: 'A' });
    expect([...cm.binaryData['b']!]).toEqual([0, 255]);
    const s = secretData({ type: 'platform.io/dockerconfigjson', data: { k: Buffer.from('v').toString('base64') } });
    expect([s.type, Buffer.from(s.data['k']!).toString()]).toEqual(['platform.io/dockerconfigjson', 'v']);
    expect(secretData({}).type).toBe('Opaque');
    expect(serviceAccountData({ imagePullSecrets: [{ name: 'x' }, {}], automountServiceAccountToken: false })).toEqual({ imagePullSecrets: ['x'], automountServiceAccountToken: false });
  });
});

describe('podRegistrations', () => {
  it('registers the pods given and unregisters the ones that went', () => {
    const calls: string[] = [];
    const sync = podRegistrations({ register: (p) => void calls.push(`+${p.metadata.uid}`), unregister: (uid) => void calls.push(`-${uid}`) });
    const p = (uid: string) => ({ metadata: { uid } }) as Pod;
    sync([p('a'), p('b')]);
    sync([p('b'), p('c')]);
    sync([]);
    expect(calls).toEqual(['+a', '+b', '+b', '+c', '-a', '-b', '-c']);
  });
});
