// A pod's API status from its spec, what the runtime holds, why containers
// are waiting and what the probes say (the kubelet's generateAPIPodStatus,
// getPhase and the prober manager's UpdatePodStatus), as a pure function.
// Transition times are kept from the previous status when a condition does
// not change.
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodPhase, PodStatus } from '../pod-model/pod-types.js';
import { qosClass } from '../pod-model/qos.js';
import { NO_PROBE_RESULTS, type ProbeResultsView } from '../probes/view.js';
import type { ObservedContainer, ObservedPod } from '../runtime-view/observed.js';
import { anyAppContainerStarted, initializedCondition, readyCondition, type ConditionValue } from './conditions.js';

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
  /** The prober's latest results: `started` and `ready` follow them; none by default (every container without probes is ready once running). */
  probes?: ProbeResultsView;
  /** The SidecarContainers feature gate: init containers with restartPolicy Always are sidecars. Off by default. */
  sidecars?: boolean;
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

/** How one container's status is built: its kind, the probe view, and what the previous status said of it. */
interface StatusContext {
  runtimeName: string;
  probes: ProbeResultsView;
  /** The waiting reason of a container with no instance yet: PodInitializing in a pod with init containers, as the kubelet's default. */
  defaultWaiting: string;
  previous: ReadonlyMap<string, ContainerStatus>;
}

/** What a container is to the status: an app container, a regular init container, or a sidecar (gate on). */
export type ContainerKind = 'app' | 'init' | 'sidecar';
type Kind = ContainerKind;

function containerStatus(spec: Container, kind: Kind, instances: ObservedContainer[], waiting: Waiting | undefined, ctx: StatusContext): ContainerStatus {
  const { runtimeName } = ctx;
  const [latest, previous] = instances;
  const base = { name: spec.name, image: spec.image, imageID: latest?.imageRef ?? '', restartCount: latest?.restartCount ?? 0 };
  if (latest === undefined) {
    // Its instance is gone (garbage-collected, or lost with the runtime): a termination already reported stands, as the kubelet keeps it.
    const old = ctx.previous.get(spec.name);
    if (old?.state.terminated && !waiting) return old;
    return { ...base, state: { waiting: waiting ?? { reason: ctx.defaultWaiting } }, lastState: old?.lastState ?? {}, ready: false, started: false };
  }
  const id = `${runtimeName}://${latest.id}`;
  const lastState = previous && previous.state === 'EXITED' ? terminated(previous, runtimeName) : {};
  switch (latest.state) {
    case 'RUNNING': {
      // The prober manager's UpdatePodStatus: started once the startup probe passed (or there is none), ready once started and the readiness probe passed (or there is none).
      const started = spec.startupProbe === undefined || ctx.probes.get('startup', latest.id) === 'success';
      const ready = kind !== 'init' && started && (spec.readinessProbe === undefined || ctx.probes.get('readiness', latest.id) === 'success');
      return { ...base, containerID: id, state: { running: { ...(iso(latest.startedAt) ? { startedAt: iso(latest.startedAt) } : {}) } }, lastState, ready, started };
    }
    case 'EXITED':
      // Waiting to be restarted (back-off, image trouble): the exit becomes the last state.
      if (waiting) return { ...base, containerID: id, state: { waiting }, lastState: terminated(latest, runtimeName), ready: false, started: false };
      // A regular init container that completed counts as ready.
      return { ...base, containerID: id, state: terminated(latest, runtimeName), lastState, ready: kind === 'init' && latest.exitCode === 0 && latest.reason !== 'OOMKilled', started: false };
    default:
      return { ...base, containerID: id, state: { waiting: waiting ?? { reason: ctx.defaultWaiting } }, lastState, ready: false, started: false };
  }
}

/** Counts for getPhase. */
interface PhaseCounts {
  pendingInit: number;
  failedInit: number;
  running: number;
  waiting: number;
  stopped: number;
  succeeded: number;
}

function countInit(init: readonly ContainerStatus[], kinds: readonly Kind[], n: PhaseCounts): void {
  init.forEach((s, i) => {
    if (kinds[i] === 'sidecar') {
      // A sidecar counts as running beside the app containers; one that is not started yet holds initialisation; exited ones do not count.
      if (s.state.running) {
        if (s.started !== true) n.pendingInit++;
        n.running++;
      } else if (s.state.waiting && !s.lastState.terminated) {
        n.pendingInit++;
        n.waiting++;
      }
      return;
    }
    if (s.state.terminated) {
      if (s.state.terminated.exitCode !== 0) n.failedInit++;
    } else if (s.state.waiting && s.lastState.terminated) {
      if (s.lastState.terminated.exitCode !== 0) n.failedInit++;
    } else n.pendingInit++;
  });
}

/**
 * The kubelet 1.28's getPhase: init containers (regular and sidecars), then
 * the app containers. `kinds` gives each init status its kind (sidecar only
 * with the gate on). A static pod is never made terminal by the kubelet's
 * podIsTerminal shortcut, so that branch is not here.
 */
export function podPhase(pod: Pod, init: readonly ContainerStatus[], kinds: readonly Kind[], statuses: readonly ContainerStatus[]): PodPhase {
  const n: PhaseCounts = { pendingInit: 0, failedInit: 0, running: 0, waiting: 0, stopped: 0, succeeded: 0 };
  countInit(init, kinds, n);
  for (const s of statuses) {
    if (s.state.running) n.running++;
    else if (s.state.terminated) {
      n.stopped++;
      if (s.state.terminated.exitCode === 0) n.succeeded++;
    } else if (s.state.waiting) {
      if (s.lastState.terminated) n.stopped++;
      else n.waiting++;
    }
  }
  const policy = pod.spec.restartPolicy;
  if (n.failedInit > 0 && policy === 'Never') return 'Failed';
  // Init not done holds the pod in Pending, unless an app container already started (a sidecar restarting later does not put it back).
  if ((n.pendingInit > 0 && !anyAppContainerStarted(statuses)) || n.waiting > 0) return 'Pending';
  if (n.running > 0) return 'Running';
  if (n.stopped > 0) {
    if (policy === 'Always') return 'Running';
    if (n.stopped === n.succeeded) return 'Succeeded';
    return policy === 'Never' ? 'Failed' : 'Running';
  }
  return 'Pending';
}

function condition(type: string, value: ConditionValue, previous: PodStatus | undefined, now: Date): PodCondition {
  const status = value.ok ? 'True' : 'False';
  const prev = previous?.conditions.find((c) => c.type === type);
  return {
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : rfc3339(now),
    ...(value.reason ? { reason: value.reason } : {}),
    ...(value.message ? { message: value.message } : {}),
  };
}

function groupByName(containers: readonly ObservedContainer[]): Map<string, ObservedContainer[]> {
  const byName = new Map<string, ObservedContainer[]>();
  for (const c of containers) (byName.get(c.name) ?? byName.set(c.name, []).get(c.name)!).push(c);
  return byName;
}

export function computePodStatus(inp: StatusInputs): PodStatus {
  const { pod, observed, waiting, previous, runtimeName, now } = inp;
  const byName = groupByName(observed.containers);
  const initSpecs = pod.spec.initContainers ?? [];
  const ctx: StatusContext = {
    runtimeName,
    probes: inp.probes ?? NO_PROBE_RESULTS,
    defaultWaiting: initSpecs.length > 0 ? 'PodInitializing' : 'ContainerCreating',
    previous: new Map([...(previous?.initContainerStatuses ?? []), ...(previous?.containerStatuses ?? [])].map((s) => [s.name, s])),
  };
  const statusOf = (c: Container, kind: Kind) => containerStatus(c, kind, byName.get(c.name) ?? [], waiting.get(c.name), ctx);
  const initKinds: Kind[] = initSpecs.map((c) => (inp.sidecars === true && c.restartPolicy === 'Always' ? 'sidecar' : 'init'));
  const initStatuses = initSpecs.map((c, i) => statusOf(c, initKinds[i]!));
  const containerStatuses = pod.spec.containers.map((c) => statusOf(c, 'app'));
  const phase = podPhase(pod, initStatuses, initKinds, containerStatuses);
  const sandbox = observed.sandboxes.find((s) => s.ready) ?? observed.sandboxes[0];
  const podIP = pod.spec.hostNetwork ? inp.hostIP : (sandbox?.ip ?? '');
  const sidecarStatuses = initStatuses.filter((_, i) => initKinds[i] === 'sidecar');
  const ready = readyCondition([...sidecarStatuses, ...containerStatuses], phase);
  return {
    phase,
    conditions: [
      condition('Initialized', initializedCondition(initStatuses, initKinds, containerStatuses, phase), previous, now),
      condition('Ready', ready, previous, now),
      condition('ContainersReady', ready, previous, now),
      condition('PodScheduled', { ok: true }, previous, now),
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
