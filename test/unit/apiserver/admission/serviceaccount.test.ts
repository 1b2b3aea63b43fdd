import { describe, expect, it } from 'vitest';
import { defaultServiceAccount, rootCaConfigMap } from '../../../../src/apiserver/admission/defaults.js';
import { checkMountableSecrets } from '../../../../src/apiserver/admission/mountable-secrets.js';
import type { AccountLike, PodLike } from '../../../../src/apiserver/admission/pod-shape.js';
import { ServiceAccountAdmission, accountGetterFromStore, checkMirrorPod, randomSuffix } from '../../../../src/apiserver/admission/serviceaccount.js';

const signal = new AbortController().signal;
const accounts = (list: AccountLike[]) => ({ getServiceAccount: (ns: string, name: string) => Promise.resolve(list.find((a) => a.metadata?.namespace === ns && a.metadata?.name === name)) });
const def: AccountLike = defaultServiceAccount('ns');
const admission = (list: AccountLike[] = [def]) => new ServiceAccountAdmission(accounts(list), () => 'abcde');
const newPod = (spec: Record<string, unknown> = {}, metadata: PodLike['metadata'] = { name: 'p' }): PodLike => ({ metadata, spec: { containers: [{ name: 'app' }], ...spec } });

describe('ServiceAccountAdmission', () => {
  it('defaults the account and mounts the API access volume in every container', async () => {
    const pod = newPod({ initContainers: [{ name: 'init' }] });
    expect(await admission().admitCreate(pod, 'ns', signal)).toBeUndefined();
    expect(pod.spec).toEqual({
      serviceAccountName: 'default',
      initContainers: [{ name: 'init', volumeMounts: [{ name: 'platform-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/platform.io/serviceaccount' }] }],
      containers: [{ name: 'app', volumeMounts: [{ name: 'platform-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/platform.io/serviceaccount' }] }],
      volumes: [
        {
          name: 'platform-api-access-abcde',
          projected: {
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'platform-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
            ],
            defaultMode: 420,
          },
        },
      ],
    });
  });

  it.each<[string, unknown, unknown, boolean]>([
    ['both unset', undefined, undefined, true],
    ['account false', undefined, false, false],
    ['pod true wins over account false', true, false, true],
    ['pod false wins over account true', false, true, false],
  ])('automount: %s', async (_n, podField, saField, mounted) => {
    const pod = newPod(podField === undefined ? {} : { automountServiceAccountToken: podField });
    await admission([{ ...def, automountServiceAccountToken: saField }]).admitCreate(pod, 'ns', signal);
    expect(Array.isArray(pod.spec?.volumes)).toBe(mounted);
  });

  it('leaves a container that already mounts the path alone', async () => {
    const pod = newPod({ containers: [{ name: 'a', volumeMounts: [{ name: 'mine', mountPath: '/var/run/secrets/platform.io/serviceaccount' }] }, { name: 'b' }] });
    await admission().admitCreate(pod, 'ns', signal);
    expect(pod.spec?.containers).toEqual([{ name: 'a', volumeMounts: [{ name: 'mine', mountPath: '/var/run/secrets/platform.io/serviceaccount' }] }, { name: 'b', volumeMounts: [{ name: 'platform-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/platform.io/serviceaccount' }] }]);
  });

  it('copies the account image pull secrets only into a pod without any', async () => {
    const sa = { ...def, imagePullSecrets: [{ name: 'reg' }] };
    const a = newPod();
    await admission([sa]).admitCreate(a, 'ns', signal);
    expect(a.spec?.imagePullSecrets).toEqual([{ name: 'reg' }]);
    const b = newPod({ imagePullSecrets: [{ name: 'own' }] });
    await admission([sa]).admitCreate(b, 'ns', signal);
    expect(b.spec?.imagePullSecrets).toEqual([{ name: 'own' }]);
  });

  it('refuses a missing account with 403', async () => {
    const e = await admission().admitCreate(newPod({ serviceAccountName: 'builder' }), 'ns', signal);
    expect([e?.code, e?.message]).toEqual([403, 'pods "p" is forbidden: error looking up service account ns/builder: serviceaccount "builder" not found']);
  });

  it('enforces mountable secrets when the account says so', async () => {
    const sa: AccountLike = { metadata: { name: 'default', namespace: 'ns', annotations: { 'platform.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'ok' }] };
    const e = await admission([sa]).admitCreate(newPod({ volumes: [{ name: 'v', secret: { secretName: 'other' } }] }), 'ns', signal);
    expect([e?.code, e?.message]).toEqual([403, 'pods "p" is forbidden: volume with secret.secretName="other" is not allowed because service account default does not reference that secret']);
    expect(await admission([sa]).admitCreate(newPod({ volumes: [{ name: 'v', secret: { secretName: 'ok' } }] }), 'ns', signal)).toBeUndefined();
  });

  it('admits a clean mirror pod untouched and refuses references', async () => {
    const mirror = { name: 'm', annotations: { 'platform.io/config.mirror': 'hash' } };
    const clean = newPod({}, mirror);
    expect(await admission([]).admitCreate(clean, 'ns', signal)).toBeUndefined();
    expect(clean.spec).toEqual({ containers: [{ name: 'app' }] });
    const e = await admission([]).admitCreate(newPod({ serviceAccountName: 'x' }, mirror), 'ns', signal);
    expect(e?.message).toBe('pods "m" is forbidden: a mirror pod may not reference service accounts');
  });
});

describe('checkMirrorPod', () => {
  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['clean', { containers: [{ name: 'a' }] }, undefined],
    ['service account', { serviceAccountName: 'sa' }, 'a mirror pod may not reference service accounts'],
    ['secret volume', { volumes: [{ name: 'v', secret: { secretName: 's' } }] }, 'a mirror pod may not reference secrets'],
    ['secret env', { containers: [{ name: 'a', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] }, 'a mirror pod may not reference secrets'],
    ['token projection', { volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }, 'a mirror pod may not use ServiceAccountToken volume projections'],
  ])('%s', (_n, spec, want) => expect(checkMirrorPod({ spec })).toBe(want));
});

describe('checkMountableSecrets', () => {
  const sa: AccountLike = { metadata: { name: 'build', annotations: { 'platform.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'ok' }], imagePullSecrets: [{ name: 'reg' }] };
  const tail = 'is not allowed because service account build does not reference that secret';
  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['allowed everywhere', { volumes: [{ name: 'v', secret: { secretName: 'ok' } }], containers: [{ name: 'a', envFrom: [{ secretRef: { name: 'ok' } }] }], imagePullSecrets: [{ name: 'reg' }] }, undefined],
    ['volume', { volumes: [{ name: 'v', secret: { secretName: 'x' } }] }, `volume with secret.secretName="x" ${tail}`],
    ['projected', { volumes: [{ name: 'v', projected: { sources: [{ secret: { name: 'x' } }] } }] }, `projected volume with secret.name="x" ${tail}`],
    ['init env', { initContainers: [{ name: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'x', key: 'k' } } }] }] }, `init container i with envVar E referencing secret.secretName="x" ${tail}`],
    ['container envFrom', { containers: [{ name: 'c', envFrom: [{ secretRef: { name: 'x' } }] }] }, `container c with envFrom referencing secret.secretName="x" ${tail}`],
    ['ephemeral envFrom', { ephemeralContainers: [{ name: 'd', envFrom: [{ secretRef: { name: 'x' } }] }] }, `container d with envFrom referencing secret.secretName="x" ${tail}`],
    ['pull secret', { imagePullSecrets: [{ name: 'reg' }, { name: 'x' }] }, 'imagePullSecrets[1].name="x" is not allowed because service account build does not reference that imagePullSecret'],
  ])('%s', (_n, spec, want) => expect(checkMountableSecrets({ spec }, sa)).toBe(want));
  it('does nothing without the annotation', () => {
    expect(checkMountableSecrets({ spec: { volumes: [{ name: 'v', secret: { secretName: 'x' } }] } }, { metadata: { name: 'b', annotations: { 'platform.io/enforce-mountable-secrets': 'false' } } })).toBeUndefined();
  });
});

describe('defaults', () => {
  it('produces the default account and root CA map', () => {
    expect(defaultServiceAccount('team')).toEqual({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'team' } });
    expect(rootCaConfigMap('team', 'PEM').data).toEqual({ 'ca.crt': 'PEM' });
    expect(randomSuffix()).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
});

describe('accountGetterFromStore', () => {
  it('maps NotFound to undefined and rethrows other errors', async () => {
    const { apiErrors } = await import('../../../../src/api/errors.js');
    const getter = accountGetterFromStore({ get: (_ns, name) => (name === 'default' ? Promise.resolve(def) : name === 'boom' ? Promise.reject(apiErrors.internal('down')) : Promise.reject(apiErrors.notFound({ group: '', resource: 'serviceaccounts' }, name))) });
    expect(await getter.getServiceAccount('ns', 'default', signal)).toBe(def);
    expect(await getter.getServiceAccount('ns', 'x', signal)).toBeUndefined();
    await expect(getter.getServiceAccount('ns', 'boom', signal)).rejects.toThrow('Internal error occurred: down');
  });

  it.each([
    ['a fresh hit is answered from the cache', { fresh: true, object: { metadata: { name: 'cached' } } }, 'cached', 0],
    ['a fresh miss (an account just made) is read live', { fresh: true, object: undefined }, 'default', 1],
    ['a cache not synced or behind is read live', { fresh: false }, 'default', 1],
  ] as const)('%s', async (_what, lookup, want, liveReads) => {
    let reads = 0;
    const getter = accountGetterFromStore({
      get: () => ((reads += 1), Promise.resolve(def)),
      cached: () => ({ lookup: (key: string) => (key === 'ns/default' ? (lookup as never) : { fresh: false }) }),
      key: (ns, name) => `${ns}/${name}`,
    });
    expect((await getter.getServiceAccount('ns', 'default', signal))?.metadata?.name).toBe(want);
    expect(reads).toBe(liveReads);
  });
});
