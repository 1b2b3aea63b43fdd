// Container environment from ConfigMaps and Secrets: envFrom with prefixes,
// optional sources and invalid names; configMapKeyRef/secretKeyRef with the
// kubelet's CreateContainerConfigError texts; env overriding envFrom; the
// standalone texts when no objects were read.
import { describe, expect, it } from 'vitest';
import type { ConfigMapData, SecretData } from '../../../src/api-objects/index.js';
import { containerEnv, ContainerConfigError } from '../../../src/pods/container-config.js';
import { envReferences, isEnvVarName, type EnvObjects } from '../../../src/pods/env-from.js';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';

const FACTS = { nodeName: 'n', hostIP: '10.0.0.1', podIP: '10.1.0.2', podIPs: ['10.1.0.2'] };
const cm = (data: Record<string, string>): ConfigMapData => ({ data, binaryData: { bin: new Uint8Array([1]) } });
const secret = (data: Record<string, string>): SecretData => ({ type: 'Opaque', data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, new Uint8Array(Buffer.from(v))])) });
const OBJECTS: EnvObjects = {
  configMaps: new Map([['app', cm({ MODE: 'prod', 'log.level': 'debug', '1bad': 'x', URL: 'http://$(HOST)' })], ['gone', undefined]]),
  secrets: new Map([['creds', secret({ PASSWORD: 'hunter2', USER: 'admin' })], ['nosecret', undefined]]),
};

function pod(container: Record<string, unknown>): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { containers: [{ name: 'c', image: 'i:1', ...container }] } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}
const env = (container: Record<string, unknown>, objects: EnvObjects | null = OBJECTS) => {
  const p = pod(container);
  return containerEnv(p, p.spec.containers[0]!, objects === null ? FACTS : { ...FACTS, envObjects: objects });
};

describe('containerEnv with API objects', () => {
  it.each<[string, Record<string, unknown>, Array<[string, string]>]>([
    ['envFrom a ConfigMap: sorted keys, invalid names skipped, binaryData left out, values not expanded', { envFrom: [{ configMapRef: { name: 'app' } }] }, [['MODE', 'prod'], ['URL', 'http://$(HOST)'], ['log.level', 'debug']]],
    ['envFrom with a prefix makes a bad name good', { envFrom: [{ prefix: 'A_', configMapRef: { name: 'app' } }] }, [['A_1bad', 'x'], ['A_MODE', 'prod'], ['A_URL', 'http://$(HOST)'], ['A_log.level', 'debug']]],
    ['envFrom a Secret', { envFrom: [{ secretRef: { name: 'creds' } }] }, [['PASSWORD', 'hunter2'], ['USER', 'admin']]],
    ['optional missing envFrom sources are skipped', { envFrom: [{ configMapRef: { name: 'gone', optional: true } }, { secretRef: { name: 'nosecret', optional: true } }] }, []],
    ['env overrides envFrom and may use its values', { envFrom: [{ secretRef: { name: 'creds' } }], env: [{ name: 'USER', value: 'root' }, { name: 'DSN', value: '$(USER):$(PASSWORD)' }] }, [['PASSWORD', 'hunter2'], ['USER', 'root'], ['DSN', 'root:hunter2']]],
    ['configMapKeyRef and secretKeyRef', { env: [{ name: 'M', valueFrom: { configMapKeyRef: { name: 'app', key: 'MODE' } } }, { name: 'P', valueFrom: { secretKeyRef: { name: 'creds', key: 'PASSWORD' } } }] }, [['M', 'prod'], ['P', 'hunter2']]],
    ['optional missing object or key skipped', { env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'gone', key: 'k', optional: true } } }, { name: 'B', valueFrom: { secretKeyRef: { name: 'creds', key: 'nokey', optional: true } } }] }, []],
  ])('%s', (_n, container, want) => {
    expect(env(container).map((e) => [e.key, e.value])).toEqual(want);
  });

  it.each<[string, Record<string, unknown>, EnvObjects | null, string]>([
    ['missing envFrom ConfigMap', { envFrom: [{ configMapRef: { name: 'gone' } }] }, OBJECTS, 'configmap "gone" not found'],
    ['missing envFrom Secret', { envFrom: [{ secretRef: { name: 'nosecret' } }] }, OBJECTS, 'secret "nosecret" not found'],
    ['missing ConfigMap of a key ref', { env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'gone', key: 'k' } } }] }, OBJECTS, 'configmap "gone" not found'],
    ['missing ConfigMap key', { env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'app', key: 'k' } } }] }, OBJECTS, "couldn't find key k in ConfigMap ns/app"],
    ['missing Secret key', { env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'creds', key: 'k' } } }] }, OBJECTS, "couldn't find key k in Secret ns/creds"],
    ['standalone: envFrom', { envFrom: [{ configMapRef: { name: 'app' } }] }, null, 'configmap "app" not found: a standalone agent has no API server to read it from'],
    ['standalone: key ref', { env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'creds', key: 'k' } } }] }, null, 'secret "creds" not found: a standalone agent has no API server to read it from'],
  ])('%s fails container creation', (_n, container, objects, message) => {
    let err: unknown;
    try {
      env(container, objects);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ContainerConfigError);
    expect((err as ContainerConfigError).reason).toBe('CreateContainerConfigError');
    expect((err as Error).message).toBe(message);
  });

  it('standalone optional references are skipped as before', () => {
    expect(env({ envFrom: [{ configMapRef: { name: 'x', optional: true } }], env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'x', key: 'k', optional: true } } }] }, null)).toEqual([]);
  });
});

describe('envReferences and isEnvVarName', () => {
  it('collects env and envFrom names', () => {
    const p = pod({ envFrom: [{ configMapRef: { name: 'a' } }, { secretRef: { name: 'b' } }], env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } }, { name: 'Y', valueFrom: { secretKeyRef: { name: 'b', key: 'k' } } }] });
    const r = envReferences(p.spec.containers[0]!);
    expect([[...r.configMaps], [...r.secrets]]).toEqual([['a', 'c'], ['b']]);
  });
  it.each([['A_1', true], ['a.b-c', true], ['1A', false], ['', false], ['A B', false], ['A=B', false]])('%j → %s', (k, want) => expect(isEnvVarName(k)).toBe(want));
});
