// The pod conditions the status derives from its container statuses (the
// kubelet's GeneratePodInitializedCondition and GenerateContainersReadyCondition
// / GeneratePodReadyCondition, without readiness gates). Pure; compute.ts
// stamps the transition times.
import type { ContainerStatus, PodPhase } from '../pod-model/pod-types.js';

export interface ConditionValue {
  ok: boolean;
  reason?: string;
  message?: string;
}

/** Go's %s of a []string: `[a b]`. */
const goList = (names: readonly string[]): string => `[${names.join(' ')}]`;

/** Whether an app container runs or ran (the kubelet's HasAnyRegularContainerStarted). */
export const anyAppContainerStarted = (statuses: readonly ContainerStatus[]): boolean => statuses.some((s) => s.state.running !== undefined || s.state.terminated !== undefined);

/**
 * `Initialized`: every regular init container exited 0 and every sidecar
 * started; else False with `ContainersNotInitialized` and the names still
 * incomplete. True once an app container started (its init containers ran,
 * even if their instances are gone or a sidecar restarts); True with
 * `PodCompleted` when the pod succeeded.
 */
export function initializedCondition(init: readonly ContainerStatus[], kinds: readonly string[], apps: readonly ContainerStatus[], phase: PodPhase): ConditionValue {
  const incomplete = init.filter((s, i) => (kinds[i] === 'sidecar' ? s.started !== true : !s.state.terminated || s.state.terminated.exitCode !== 0)).map((s) => s.name);
  if (phase === 'Succeeded') return { ok: true, reason: 'PodCompleted' };
  if (anyAppContainerStarted(apps) || incomplete.length === 0) return { ok: true };
  return { ok: false, reason: 'ContainersNotInitialized', message: `containers with incomplete status: ${goList(incomplete)}` };
}

/**
 * `ContainersReady` (and `Ready`, which follows it here): every app container
 * and every sidecar ready; False with `ContainersNotReady` and the names of
 * the unready ones; once the pod is over, with `PodCompleted` (Succeeded) or
 * `PodFailed` (Failed), as the kubelet's terminal-phase conditions.
 */
export function readyCondition(statuses: readonly ContainerStatus[], phase: PodPhase): ConditionValue {
  if (phase === 'Succeeded') return { ok: false, reason: 'PodCompleted' };
  if (phase === 'Failed') return { ok: false, reason: 'PodFailed' };
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  if (unready.length === 0) return { ok: true };
  return { ok: false, reason: 'ContainersNotReady', message: `containers with unready status: ${goList(unready)}` };
}
