import { describe, expect, it } from 'vitest';
import { decodePod, defaultPullPolicy } from '../../../src/pod-model/pod-decode.js';
import { validatePod } from '../../../src/pod-model/pod-validate.js';

const base = (spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = { name: 'web' }) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata,
  spec: { containers: [{ name: 'c', image: 'localhost/busybox:latest' }], ...spec },
});

function problems(raw: unknown): string[] {
  const d = decodePod(raw);
  const list = d.ok ? validatePod(d.pod) : d.problems;
  return list.map((p) => `${p.field}: ${p.message}`);
}

describe('decodePod defaults', () => {
  it('applies the API defaults', () => {
    const d = decodePod(base());
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.pod.spec).toMatchObject({ restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst' });
    expect(d.pod.spec.containers[0]).toMatchObject({ imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: { limits: {}, requests: {} } });
  });
  it('requests default to limits', () => {
    const d = decodePod(base({ containers: [{ name: 'c', image: 'i:1', resources: { limits: { cpu: 1, memory: '64Mi' }, requests: { cpu: '500m' } } }] }));
    expect(d.ok && d.pod.spec.containers[0]!.resources).toEqual({ limits: { cpu: '1', memory: '64Mi' }, requests: { cpu: '500m', memory: '64Mi' } });
  });
  it.each([
    ['busybox', 'Always'],
    ['busybox:latest', 'Always'],
    ['busybox:1.36', 'IfNotPresent'],
    ['127.0.0.1:5001/busybox', 'Always'],
    ['127.0.0.1:5001/busybox:v2', 'IfNotPresent'],
    ['busybox@sha256:abc', 'IfNotPresent'],
  ])('pull policy of %s is %s', (image, policy) => expect(defaultPullPolicy(image)).toBe(policy));
});

describe('bad manifests name the field', () => {
  it.each([
    ['wrong kind', { ...base(), kind: 'Deployment' }, 'kind: must be "Pod"'],
    ['wrong apiVersion', { ...base(), apiVersion: 'apps/v1' }, 'apiVersion: must be "v1"'],
    ['no containers', base({ containers: [] }), 'spec.containers: a pod needs at least one container'],
    ['missing name', base({}, {}), 'metadata.name: required value'],
    ['invalid name', base({}, { name: 'Web_1' }), 'metadata.name: "Web_1" must be a lowercase RFC 1123 subdomain'],
    ['duplicate container names', base({ containers: [{ name: 'a', image: 'i' }, { name: 'a', image: 'i' }] }), 'spec.containers[1].name: duplicate container name "a"'],
    ['init/app duplicate', base({ initContainers: [{ name: 'c', image: 'i' }] }), 'spec.containers[0].name: duplicate container name "c"'],
    ['no image', base({ containers: [{ name: 'c' }] }), 'spec.containers[0].image: required value'],
    ['bad quantity', base({ containers: [{ name: 'c', image: 'i', resources: { limits: { memory: '12Qi' } } }] }), 'spec.containers[0].resources.limits[memory]:'],
    ['request above limit', base({ containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1' }, requests: { cpu: '2' } } }] }), 'spec.containers[0].resources.requests[cpu]: must be less than or equal to the cpu limit (1)'],
    ['bad restart policy', base({ restartPolicy: 'Sometimes' }), 'spec.restartPolicy:'],
    ['wrong type', base({ containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 'http' }] }] }), 'spec.containers[0].ports[0].containerPort:'],
    ['port out of range', base({ containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 70000 }] }] }), 'spec.containers[0].ports[0].containerPort: must be between 1 and 65535'],
    ['host network port mismatch', base({ hostNetwork: true, containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80, hostPort: 81 }] }] }), 'spec.containers[0].ports[0].hostPort: must match containerPort when hostNetwork is true'],
    ['bad env name', base({ containers: [{ name: 'c', image: 'i', env: [{ name: '1 x', value: 'y' }] }] }), 'spec.containers[0].env[0].name:'],
    ['undefined volume', base({ containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/d' }] }] }), 'spec.containers[0].volumeMounts[0].name: volume "data" is not defined'],
    ['negative grace period', base({ terminationGracePeriodSeconds: -1 }), 'spec.terminationGracePeriodSeconds: must be >= 0'],
    ['bad container name', base({ containers: [{ name: 'Main', image: 'i' }] }), 'spec.containers[0].name: "Main" must be a lowercase RFC 1123 label'],
  ])('%s', (_n, raw, want) => {
    expect(problems(raw).join('\n')).toContain(want);
  });
  it('a valid pod has no problems', () => {
    expect(problems(base({ hostNetwork: true, volumes: [{ name: 'data', emptyDir: {} }], containers: [{ name: 'c', image: 'i:1', ports: [{ name: 'http', containerPort: 8080, hostPort: 8080 }], volumeMounts: [{ name: 'data', mountPath: '/data' }], env: [{ name: 'A_B', value: '1' }] }] }))).toEqual([]);
  });
});
