// An API server's pod → the agent's Pod model: the source annotation, the
// deletion fields kept, the volatile ones (resourceVersion, status) left out,
// and a bad object refused with the field named.
import { describe, expect, it } from 'vitest';
import { isMirrorPodObject, podFromApiObject } from '../../../src/sources/api-decode.js';

const obj = (over: { meta?: Record<string, unknown>; spec?: Record<string, unknown> } = {}): Record<string, unknown> => ({
  metadata: { name: 'web', namespace: 'apps', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2026-11-24T10:00:00Z', labels: { app: 'web' }, managedFields: [{}], ...over.meta },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'registry.local/app:1' }], ...over.spec },
  status: { phase: 'Running' },
});

describe('podFromApiObject', () => {
  it('decodes a pod with the API source annotation and without the volatile fields', () => {
    const r = podFromApiObject(obj(), { sidecars: false });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.pod.metadata).toMatchObject({ name: 'web', namespace: 'apps', uid: 'u-1', labels: { app: 'web' }, annotations: { 'platform.io/config.source': 'api' }, creationTimestamp: '2026-11-24T10:00:00Z' });
    expect(r.pod.metadata.resourceVersion).toBeUndefined();
    expect(r.pod.metadata.deletionTimestamp).toBeUndefined();
    expect(r.pod.status).toBeUndefined();
    expect(r.pod.spec.nodeName).toBe('n1');
  });

  it('keeps the deletion timestamp and grace period', () => {
    const r = podFromApiObject(obj({ meta: { deletionTimestamp: '2026-11-24T10:01:00Z', deletionGracePeriodSeconds: 5 } }), { sidecars: false });
    expect(r.ok && r.pod.metadata).toMatchObject({ deletionTimestamp: '2026-11-24T10:01:00Z', deletionGracePeriodSeconds: 5 });
  });

  it('two versions differing only in status and resourceVersion decode to equal pods', () => {
    const a = podFromApiObject(obj(), { sidecars: false });
    const b = podFromApiObject({ ...obj({ meta: { resourceVersion: '43' } }), status: { phase: 'Failed' } }, { sidecars: false });
    expect(a).toEqual(b);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['no containers', obj({ spec: { containers: [] } }), /spec\.containers/],
    ['a container without a name', obj({ spec: { containers: [{ image: 'x' }] } }), /spec\.containers\[0\]\.name/],
    ['a bad restart policy', obj({ spec: { restartPolicy: 'Sometimes' } }), /spec\.restartPolicy/],
    ['no uid', obj({ meta: { uid: undefined } }), /metadata\.uid/],
  ])('refuses %s, naming the field', (_name, raw, field) => {
    const r = podFromApiObject(raw, { sidecars: false });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(field);
  });

  it('decodes a pod as a controller and the API server make it (projected service account volume, default tolerations)', () => {
    const typical = obj({
      meta: { generateName: 'web-', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs', controller: true, blockOwnerDeletion: true }] },
      spec: {
        volumes: [{ name: 'kube-api-access-abcde', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } }],
        containers: [{ name: 'nginx', image: 'nginx:1.25', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: {}, volumeMounts: [{ name: 'kube-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/platform.io/serviceaccount' }], terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
        restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', serviceAccountName: 'default', serviceAccount: 'default', securityContext: {}, schedulerName: 'default-scheduler', priority: 0, enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority',
        tolerations: [{ key: 'node.platform.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      },
    });
    expect(podFromApiObject(typical, { sidecars: false })).toMatchObject({ ok: true });
  });

  it('ignores ephemeral containers (kubectl debug) instead of refusing the pod', () => {
    expect(podFromApiObject(obj({ spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } }), { sidecars: false }).ok).toBe(true);
  });

  it('tells mirror pods apart', () => {
    expect(isMirrorPodObject(obj({ meta: { annotations: { 'platform.io/config.mirror': 'h' } } }))).toBe(true);
    expect(isMirrorPodObject(obj())).toBe(false);
  });
});
