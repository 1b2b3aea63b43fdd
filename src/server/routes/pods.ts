// /pods and /runningpods/: the kubelet's PodList shapes. /pods lists the pods
// the agent runs (its StatusStore: spec and latest status); /runningpods/ lists
// what the runtime actually runs, rebuilt from sandboxes and containers the
// way the kubelet's runtime cache does (ready sandboxes, running containers).
import type { Container, PodSandbox } from '../../cri/types.js';
import type { Pod } from '../../pod-model/pod-types.js';
import { LABEL_CONTAINER_NAME, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID } from '../../runtime-view/labels.js';
import type { PodWithStatus } from '../../status/store.js';
import { compareStrings } from '../../util/compare.js';

export interface PodList {
  kind: 'PodList';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  items: unknown[];
}

const byRef = (a: { ns: string; name: string }, b: { ns: string; name: string }): number =>
  a.ns === b.ns ? compareStrings(a.name, b.name) : compareStrings(a.ns, b.ns);

/** Items carry no kind/apiVersion, as in the kubelet's encoded list; status is the store's, not the spec's copy. */
export function podList(pods: readonly PodWithStatus[]): PodList {
  const items = [...pods]
    .sort((a, b) => byRef({ ns: a.pod.metadata.namespace, name: a.pod.metadata.name }, { ns: b.pod.metadata.namespace, name: b.pod.metadata.name }))
    .map(({ pod, status }) => podItem(pod, status));
  return { kind: 'PodList', apiVersion: 'v1', metadata: {}, items };
}

function podItem(pod: Pod, status: PodWithStatus['status']): unknown {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = pod;
  return { ...rest, status };
}

interface RunningPod {
  metadata: { name: string; namespace: string; uid: string; creationTimestamp: null };
  spec: { containers: Array<{ name: string; image: string; resources: Record<string, never> }> };
  status: Record<string, never>;
}

/**
 * Groups ready sandboxes and running containers by pod UID (the sandbox's
 * metadata, else the container's labels: a container whose sandbox is not
 * ready still names its pod). Pure: the route lists, this shapes.
 */
export function runningPodList(sandboxes: readonly PodSandbox[], containers: readonly Container[]): PodList {
  const pods = new Map<string, RunningPod>();
  const podFor = (uid: string, name: string, namespace: string): RunningPod => {
    let p = pods.get(uid);
    if (p === undefined) {
      p = { metadata: { name, namespace, uid, creationTimestamp: null }, spec: { containers: [] }, status: {} };
      pods.set(uid, p);
    }
    return p;
  };
  for (const s of sandboxes) {
    if (s.state !== 'READY') continue;
    podFor(s.metadata.uid, s.metadata.name, s.metadata.namespace);
  }
  for (const c of containers) {
    if (c.state !== 'RUNNING') continue;
    const uid = c.labels[LABEL_POD_UID];
    if (uid === undefined) continue;
    const p = podFor(uid, c.labels[LABEL_POD_NAME] ?? '', c.labels[LABEL_POD_NAMESPACE] ?? '');
    p.spec.containers.push({ name: c.labels[LABEL_CONTAINER_NAME] ?? c.metadata.name, image: c.image, resources: {} });
  }
  const items = [...pods.values()].sort((a, b) => byRef({ ns: a.metadata.namespace, name: a.metadata.name }, { ns: b.metadata.namespace, name: b.metadata.name }));
  for (const p of items) p.spec.containers.sort((a, b) => compareStrings(a.name, b.name));
  return { kind: 'PodList', apiVersion: 'v1', metadata: {}, items };
}
