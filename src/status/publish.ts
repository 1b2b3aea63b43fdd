// Publishing a pod's status: computes it (compute.ts), logs what an operator
// looks for first (a phase change, a container newly waiting, as the kubelet
// emits events for them) and stores it. Called by the pod workers after each
// sync; synchronous, never blocks.
import { podRef } from '../pod-model/pod-types.js';
import type { AgentLogger } from '../log/index.js';
import { computePodStatus, type StatusInputs } from './compute.js';
import type { StatusStore } from './store.js';

/** Computes the pod's status from `inputs` (the previous status read from `store`), logs its changes, stores it when it differs. */
export function publishPodStatus(store: StatusStore, log: AgentLogger, inputs: Omit<StatusInputs, 'previous'>): void {
  const { pod } = inputs;
  const uid = pod.metadata.uid;
  const previous = store.get(uid)?.status;
  const status = computePodStatus({ ...inputs, ...(previous ? { previous } : {}) });
  if (previous?.phase !== status.phase) log.info('Pod phase changed', { pod: podRef(pod), podUID: uid, from: previous?.phase ?? 'none', to: status.phase });
  // Ready is what a Service or an operator waits on: its changes are logged (a pod starting not ready is not a change).
  const ready = status.conditions.find((c) => c.type === 'Ready');
  const wasReady = previous?.conditions.find((c) => c.type === 'Ready')?.status ?? 'False';
  if (ready && ready.status !== wasReady) log.info('Pod readiness changed', { pod: podRef(pod), podUID: uid, ready: ready.status === 'True', ...(ready.reason ? { reason: ready.reason } : {}) });
  const was = new Map([...(previous?.initContainerStatuses ?? []), ...(previous?.containerStatuses ?? [])].map((p) => [p.name, p.state.waiting?.reason]));
  for (const cs of [...(status.initContainerStatuses ?? []), ...status.containerStatuses]) {
    const w = cs.state.waiting;
    if (w && w.reason !== 'ContainerCreating' && w.reason !== 'PodInitializing' && w.reason !== was.get(cs.name)) {
      log.warn('Container is waiting', { pod: podRef(pod), podUID: uid, container: cs.name, reason: w.reason, message: w.message ?? '' });
    }
  }
  // A periodic sync of a pod that did not change computes the same status: keeping the stored
  // one leaves the store's version alone, so /pods is not re-serialized and no listener
  // (the API status sync) wakes for nothing — 110 pods resync about twice a second.
  const stored = store.get(uid);
  if (stored !== undefined && stored.pod === pod && JSON.stringify(stored.status) === JSON.stringify(status)) return;
  store.set(uid, { pod, status });
}
