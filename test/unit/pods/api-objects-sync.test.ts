// The pod sync with an ApiObjectSource (API-server mode), on the in-memory
// runtime: the container's environment comes from envFrom and key refs, a
// missing required ConfigMap is CreateContainerConfigError with the
// kubelet's text, and the pod's imagePullSecrets are the pull's credentials.
import { describe, expect, it } from 'vitest';
import type { ApiObjectSource, SecretData } from '../../../src/api-objects/index.js';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { syncDeps, syncOnce } from '../../helpers/sync-pod.js';

const IMAGE = 'reg.example:5000/app:1';
const enc = (s: string): Uint8Array => new Uint8Array(Buffer.from(s));
const PULL: SecretData = { type: 'platform.io/dockerconfigjson', data: { '.dockerconfigjson': enc(JSON.stringify({ auths: { 'reg.example:5000': { username: 'u', password: 'p' } } })) } };

const source: ApiObjectSource = {
  configMap: (_ns, name) => Promise.resolve(name === 'app' ? { data: { MODE: 'prod' }, binaryData: {} } : undefined),
  secret: (_ns, name) => Promise.resolve(name === 'pull' ? PULL : name === 'creds' ? { type: 'Opaque', data: { PW: enc('hunter2') } } : undefined),
  serviceAccountToken: () => Promise.reject(new Error('unused')),
  clusterTrustBundles: () => Promise.resolve([]),
  serviceAccount: () => Promise.resolve(undefined),
  register: () => undefined,
  unregister: () => undefined,
};

function apiPod(container: Record<string, unknown>, spec: Record<string, unknown> = {}): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'uid-p' }, spec: { hostNetwork: true, nodeName: 'n', containers: [{ name: 'main', image: IMAGE, ...container }], ...spec } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}

describe('syncPod with API objects', () => {
  it('builds the environment from envFrom and key refs and pulls with the pod’s pull secret', async () => {
    const runtime = new FakeRuntime({ registry: { [IMAGE]: { auth: { username: 'u', password: 'p' } } } });
    const pod = apiPod({ envFrom: [{ configMapRef: { name: 'app' } }], env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'PW' } } }] }, { imagePullSecrets: [{ name: 'pull' }, { name: 'absent' }] });
    const result = await syncOnce(runtime, pod, syncDeps(runtime, { apiObjects: source }));
    expect(result.waiting).toEqual(new Map());
    expect(runtime.callsOf('pullImage').map(([, auth]) => auth)).toEqual([{ username: 'u', password: 'p' }]);
    const [, config] = runtime.callsOf('createContainer')[0]!;
    expect(config.envs).toEqual([{ key: 'MODE', value: 'prod' }, { key: 'PASSWORD', value: 'hunter2' }]);
  });

  it('a missing required ConfigMap is CreateContainerConfigError', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const pod = apiPod({ imagePullPolicy: 'IfNotPresent', envFrom: [{ configMapRef: { name: 'nope' } }] });
    const result = await syncOnce(runtime, pod, syncDeps(runtime, { apiObjects: source }));
    expect(result.waiting.get('main')).toEqual({ reason: 'CreateContainerConfigError', message: 'configmap "nope" not found' });
    expect(runtime.callsOf('createContainer')).toEqual([]);
  });

  it('without a source (standalone) the pull has no pod credentials and key refs keep the standalone text', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const pod = apiPod({ imagePullPolicy: 'IfNotPresent', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'app', key: 'MODE' } } }] });
    const result = await syncOnce(runtime, pod, syncDeps(runtime));
    expect(result.waiting.get('main')?.message).toBe('configmap "app" not found: a standalone agent has no API server to read it from');
  });
});
