// The kubelet's list shapes of /pods (the status store) and /runningpods/ (the runtime's sandboxes and containers).
import { describe, expect, it } from 'vitest';
import type { Container, PodSandbox } from '../../../../src/cri/types.js';
import { LABEL_CONTAINER_NAME, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID } from '../../../../src/runtime-view/labels.js';
import { podList, runningPodList } from '../../../../src/server/routes/pods.js';
import { staticPod } from '../../../helpers/sync-pod.js';

describe('podList', () => {
  it('lists each pod with the store status, sorted by namespace and name, items without kind/apiVersion', () => {
    const b = staticPod({ name: 'c', image: 'img' }, 'b');
    const a = staticPod({ name: 'c', image: 'img' }, 'a');
    const status = { phase: 'Running' as const, conditions: [], containerStatuses: [] };
    const list = podList([
      { pod: b, status: { ...status, phase: 'Pending' } },
      { pod: a, status },
    ]);
    expect(list).toMatchObject({ kind: 'PodList', apiVersion: 'v1', metadata: {} });
    expect(list.items.map((i) => (i as { metadata: { name: string } }).metadata.name)).toEqual(['a-n', 'b-n']);
    expect(list.items[0]).toMatchObject({ metadata: a.metadata, spec: a.spec, status });
    expect(list.items[0]).not.toHaveProperty('kind');
    expect(list.items[1]).toMatchObject({ status: { phase: 'Pending' } });
    expect(podList([]).items).toEqual([]);
  });
});

const sandbox = (uid: string, name: string, state: PodSandbox['state'] = 'READY'): PodSandbox => ({
  id: `sb-${uid}-${state}`,
  metadata: { name, uid, namespace: 'ns', attempt: 0 },
  state,
  createdAt: 1n,
  labels: {},
  annotations: {},
  runtimeHandler: '',
});
const container = (uid: string, pod: string, name: string, state: Container['state'] = 'RUNNING'): Container => ({
  id: `c-${uid}-${name}`,
  podSandboxId: `sb-${uid}`,
  metadata: { name, attempt: 0 },
  image: `img-${name}`,
  imageRef: 'sha256:x',
  state,
  createdAt: 1n,
  labels: { [LABEL_POD_UID]: uid, [LABEL_POD_NAME]: pod, [LABEL_POD_NAMESPACE]: 'ns', [LABEL_CONTAINER_NAME]: name },
  annotations: {},
});

describe('runningPodList', () => {
  it.each([
    ['no sandboxes', [], [], []],
    ['a ready sandbox without containers is a pod with none', [sandbox('u1', 'p1')], [], [{ uid: 'u1', name: 'p1', containers: [] }]],
    ['a not-ready sandbox is left out', [sandbox('u1', 'p1', 'NOTREADY')], [], []],
    ['only running containers, sorted', [sandbox('u1', 'p1')], [container('u1', 'p1', 'z'), container('u1', 'p1', 'a'), container('u1', 'p1', 'gone', 'EXITED')], [{ uid: 'u1', name: 'p1', containers: ['a', 'z'] }]],
    ['a running container names its pod from labels', [], [container('u2', 'p2', 'c')], [{ uid: 'u2', name: 'p2', containers: ['c'] }]],
    ['pods sorted by name', [sandbox('u2', 'b'), sandbox('u1', 'a')], [], [{ uid: 'u1', name: 'a', containers: [] }, { uid: 'u2', name: 'b', containers: [] }]],
  ] as const)('%s', (_name, sandboxes, containers, want) => {
    const list = runningPodList(sandboxes, containers);
    expect(list).toMatchObject({ kind: 'PodList', apiVersion: 'v1', metadata: {} });
    const got = list.items.map((i) => {
      const p = i as { metadata: { uid: string; name: string }; spec: { containers: Array<{ name: string }> } };
      return { uid: p.metadata.uid, name: p.metadata.name, containers: p.spec.containers.map((c) => c.name) };
    });
    expect(got).toEqual(want);
  });

  it('has the kubelet item shape', () => {
    const list = runningPodList([sandbox('u1', 'p1')], [container('u1', 'p1', 'c')]);
    expect(list.items[0]).toEqual({
      metadata: { name: 'p1', namespace: 'ns', uid: 'u1', creationTimestamp: null },
      spec: { containers: [{ name: 'c', image: 'img-c', resources: {} }] },
      status: {},
    });
  });
});
