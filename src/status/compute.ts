// A pod's API status from its spec, what the runtime holds and why
// containers are waiting (the kubelet's generateAPIPodStatus and getPhase),
// as a pure function. Transition times are kept from the previous status
// when a condition does not change.
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodPhase, PodStatus } from '../pod-model/pod-types.js';
import { qosClass } from '../pod-model/qos.js';
import type { ObservedContainer, ObservedPod } from '../runtime-view/observed.js';

/** Why a container that should run is not running, as the last sync left it (its waiting reason and message). */
export interface Waiting {
  reason: string;
  message: string;
}

export interface StatusInputs {
  pod: Pod;
  observed: ObservedPod;
  /** Why containers are waiting, from the last sync. */
  waiting: ReadonlyMap<string, Waiting>;
  previous?: PodStatus;
  /** Runtime name for container IDs: `containerd://<id>`. */
  runtimeName: string;
  hostIP: string;
  now: Date;
}

const iso = (ns: bigint): string | undefined => (ns > 0n ? new Date(Number(ns / 1_000_000n)).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined);
const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

function terminated(c: ObservedContainer, runtimeName: string): ContainerState {
  const reason = c.reason !== '' ? c.reason : c.exitCode === 0 ? 'Completed' : 'Error';
  return {
    terminated: {
      exitCode: c.exitCode,
      reason,
      ...(c.message ? { message: c.message } : {}),
      ...(iso(c.startedAt) ? { startedAt: iso(c.startedAt) } : {}),
      ...(iso(c.finishedAt) ? { finishedAt: iso(c.finishedAt) } : {}),
      containerID: `${runtimeName}://${c.id}`,
    },
  };
}

function containerStatus(spec: Container, instances: ObservedContainer[], waiting: Waiting | undefined, runtimeName: string): ContainerStatus {
  const [latest, previous] = instances;
  const base = { name: spec.name, image: spec.image, imageID: latest?.imageRef ?? '', restartCount: latest?.restartCount ?? 0 };
  if (latest === undefined) {
    return { ...base, state: { waiting: waiting ?? { reason: 'ContainerCreating' } }, lastState: {}, ready: false, started: false };
  }
  const id = `${runtimeName}://${latest.id}`;
  const lastState = previous && previous.state === 'EXITED' ? terminated(previous, runtimeName) : {};
  switch (latest.state) {
    case 'RUNNING':
      return { ...base, containerID: id, state: { running: { ...(iso(latest.startedAt) ? { startedAt: iso(latest.startedAt) } : {}) } }, lastState, ready: true, started: true };
    case 'EXITED':
      // Waiting to be restarted (back-off, image trouble): the exit becomes the last state.
      if (waiting) return { ...base, containerID: id, state: { waiting }, lastState: terminated(latest, runtimeName), ready: false, started: false };
      return { ...base, containerID: id, state: terminated(latest, runtimeName), lastState, ready: false, started: false };
    default:
      return { ...base, containerID: id, state: { waiting: waiting ?? { reason: 'ContainerCreating' } }, lastState, ready: false, started: false };
  }
}

/** The kubelet's getPhase over the app containers, given the init containers' outcome. */
export function podPhase(pod: Pod, statuses: readonly ContainerStatus[], init: 'done' | 'pending' | 'failed'): PodPhase {
  if (init === 'failed') return 'Failed';
  if (init === 'pending') return 'Pending';
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const s of statuses) {
    if (s.state.running) running++;
    else if (s.state.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state.waiting) {
      if (s.lastState.terminated) stopped++;
      else waiting++;
    }
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (pod.spec.restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    return pod.spec.restartPolicy === 'OnFailure' ? 'Running' : 'Failed';
  }
  return 'Pending';
}

function initOutcome(pod: Pod, statuses: readonly ContainerStatus[]): 'done' | 'pending' | 'failed' {
  for (const s of statuses) {
    const t = s.state.terminated ?? (s.state.waiting ? s.lastState.terminated : undefined);
    if (t && t.exitCode !== 0 && pod.spec.restartPolicy === 'Never') return 'failed';
    if (!s.state.terminated || s.state.terminated.exitCode !== 0) return 'pending';
  }
  return 'done';
}

function condition(type: string, ok: boolean, previous: PodStatus | undefined, now: Date, reason?: string): PodCondition {
  const status = ok ? 'True' : 'False';
  const prev = previous?.conditions.find((c) => c.type === type);
  return {
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : rfc3339(now),
    ...(!ok && reason ? { reason } : {}),
  };
}

export function computePodStatus(inp: StatusInputs): PodStatus {
  const { pod, observed, waiting, previous, runtimeName, now } = inp;
  const byName = new Map<string, ObservedContainer[]>();
  for (const c of observed.containers) (byName.get(c.name) ?? byName.set(c.name, []).get(c.name)!).push(c);
  const statusOf = (c: Container) => containerStatus(c, byName.get(c.name) ?? [], waiting.get(c.name), runtimeName);
  const initStatuses = (pod.spec.initContainers ?? []).map(statusOf);
  const containerStatuses = pod.spec.containers.map(statusOf);
  const init = initOutcome(pod, initStatuses);
  const phase = podPhase(pod, containerStatuses, init);
  const sandbox = observed.sandboxes.find((s) => s.ready) ?? observed.sandboxes[0];
  const podIP = pod.spec.hostNetwork ? inp.hostIP : (sandbox?.ip ?? '');
  const allReady = containerStatuses.every((s) => s.ready);
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const reasonNotReady = terminal ? 'PodCompleted' : 'ContainersNotReady';
  return {
    phase,
    conditions: [
      condition('Initialized', init === 'done', previous, now, 'ContainersNotInitialized'),
      condition('Ready', allReady && !terminal, previous, now, reasonNotReady),
      condition('ContainersReady', allReady && !terminal, previous, now, reasonNotReady),
      condition('PodScheduled', true, previous, now),
    ],
    hostIP: inp.hostIP,
    hostIPs: [{ ip: inp.hostIP }],
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }, ...(pod.spec.hostNetwork ? [] : (sandbox?.additionalIps ?? []).map((ip) => ({ ip })))] } : {}),
    startTime: previous?.startTime ?? rfc3339(now),
    ...(initStatuses.length > 0 ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses,
    qosClass: qosClass(pod),
  };
}
