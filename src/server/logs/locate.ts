// Which container instance a /containerLogs/ request means, decided from the
// pod's spec and status as the kubelet's validateContainerLogStatus does:
// the current instance (running, or terminated, or the last terminated one
// while the next waits), or with `previous` the last terminated instance.
// Pure; table-tested. The route turns the answer into a CRI lookup.
import type { Pod, PodStatus } from '../../pod-model/pod-types.js';

export type Located =
  | {
      readonly kind: 'found';
      /** The runtime's ID, the `<type>://` prefix removed. */
      readonly containerId: string;
      /** The pod's log directory name under the pod logs directory: <namespace>_<name>_<uid>. */
      readonly podDir: string;
      /** The instance's attempt number: its file is `<attempt>.log` when the runtime cannot say. */
      readonly attempt: number;
    }
  | { readonly kind: 'error'; readonly status: 400 | 404; readonly message: string };

export interface PodView {
  readonly pod: Pod;
  readonly status: PodStatus;
}

const stripScheme = (id: string): string => {
  const i = id.indexOf('://');
  return i >= 0 ? id.slice(i + 3) : id;
};

/** Pure: namespace, pod and container names + every known pod → the instance, or the answer to give. */
export function locateContainer(pods: readonly PodView[], q: { namespace: string; pod: string; container: string; previous: boolean }): Located {
  const view = pods.find((p) => p.pod.metadata.namespace === q.namespace && p.pod.metadata.name === q.pod);
  const podName = `${q.namespace}/${q.pod}`;
  if (!view) return { kind: 'error', status: 404, message: `pod "${podName}" does not exist` };
  const spec = view.pod.spec;
  const names = [...(spec.initContainers ?? []), ...spec.containers].map((c) => c.name);
  if (!names.includes(q.container)) return { kind: 'error', status: 404, message: `container "${q.container}" not found in pod "${podName}"` };
  const st = view.status;
  const statuses = [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? [])];
  const cs = statuses.find((s) => s.name === q.container);
  const bad = (message: string): Located => ({ kind: 'error', status: 400, message });
  if (!cs) return bad(`container "${q.container}" in pod "${podName}" is not available`);
  const found = (id: string, attempt: number): Located => ({
    kind: 'found',
    containerId: stripScheme(id),
    podDir: `${view.pod.metadata.namespace}_${view.pod.metadata.name}_${view.pod.metadata.uid}`,
    attempt: Math.max(0, attempt),
  });
  const last = cs.lastState.terminated;
  const lastId = last?.containerID ?? '';
  const { running, terminated, waiting } = cs.state;
  if (q.previous) {
    if (lastId === '') return bad(`previous terminated container "${q.container}" in pod "${podName}" not found`);
    return found(lastId, cs.restartCount - 1);
  }
  if (running) {
    if ((cs.containerID ?? '') === '') return bad(`container "${q.container}" in pod "${podName}" is not available`);
    return found(cs.containerID!, cs.restartCount);
  }
  if (terminated) {
    const id = terminated.containerID ?? cs.containerID ?? '';
    if (id !== '') return found(id, cs.restartCount);
    if (lastId !== '') return found(lastId, cs.restartCount - 1);
    return bad(`container "${q.container}" in pod "${podName}" is terminated`);
  }
  if (last) {
    if (lastId === '') return bad(`container "${q.container}" in pod "${podName}" is terminated`);
    return found(lastId, cs.restartCount - 1);
  }
  if (waiting) {
    const reason = waiting.reason ?? '';
    if (reason === 'ErrImagePull') return bad(`container "${q.container}" in pod "${podName}" is waiting to start: image can't be pulled`);
    if (reason === 'ImagePullBackOff') return bad(`container "${q.container}" in pod "${podName}" is waiting to start: trying and failing to pull image`);
    return bad(`container "${q.container}" in pod "${podName}" is waiting to start: ${reason}`);
  }
  return bad(`container "${q.container}" in pod "${podName}" is waiting to start - no logs yet`);
}
