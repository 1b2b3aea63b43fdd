// What to do with a pod's init containers (part of computePodActions, pure):
// which init container runs next, whether initialisation failed for good, and
// which sidecars (init containers with restartPolicy Always, behind the
// SidecarContainers gate) must be started again. Two algorithms, as in the
// kubelet 1.28: findNextInitContainerToRun with the gate off,
// computeInitContainerActions with it on. Called by actions.ts only.
import type { Container, Pod } from '../pod-model/pod-types.js';
import type { ProbeResultsView } from '../probes/view.js';
import type { ObservedContainer } from '../runtime-view/observed.js';
import type { ContainerToKill } from './action-types.js';

export interface InitPlan {
  /** Every init container is done (sidecars started): the app containers may be looked at. */
  initialized: boolean;
  /** An init container failed under restartPolicy Never: the pod is over. */
  killPod: boolean;
  kills: ContainerToKill[];
  /** Indices in spec.initContainers to start, in spec order. */
  start: number[];
}

/** A sidecar: an init container with restartPolicy Always, when the gate is on (off, it is a plain init container, as the kubelet's old path treats it). */
export const isSidecar = (c: Container, sidecarsEnabled: boolean): boolean => sidecarsEnabled && c.restartPolicy === 'Always';

/** The kubelet's isInitContainerFailed. */
export function initFailed(s: ObservedContainer): boolean {
  if (s.reason === 'OOMKilled') return true;
  if (s.state === 'EXITED' && s.exitCode !== 0) return true;
  return s.state === 'UNKNOWN';
}

/**
 * Some app container runs: every init container completed at some point,
 * even if its exited instance was removed since (garbage-collected, or the
 * runtime lost it), so init is not run again.
 */
function appRunning(pod: Pod, latest: ReadonlyMap<string, ObservedContainer>): boolean {
  return pod.spec.containers.some((c) => latest.get(c.name)?.state === 'RUNNING');
}

const unknownKill = (s: ObservedContainer): ContainerToKill => ({
  id: s.id,
  name: s.name,
  reason: s.state === 'UNKNOWN' ? 'Unknown' : 'NotStarted',
  message: `Init container is in "${s.state}" state, try killing it before restart`,
});

/**
 * The gate-off algorithm (the kubelet's findNextInitContainerToRun and its
 * use in computePodActions): the init containers run one at a time; the last
 * failed one is the next to run again; the spec of an init container that
 * completed is never compared again (an edit does not re-run init).
 */
export function sequentialInit(pod: Pod, latest: ReadonlyMap<string, ObservedContainer>): InitPlan {
  const init = pod.spec.initContainers ?? [];
  const plan: InitPlan = { initialized: false, killPod: false, kills: [], start: [] };
  if (init.length === 0 || appRunning(pod, latest)) return { ...plan, initialized: true };
  for (let i = init.length - 1; i >= 0; i--) {
    const s = latest.get(init[i]!.name);
    if (s === undefined || !initFailed(s)) continue;
    if (pod.spec.restartPolicy === 'Never') return { ...plan, killPod: true };
    if (s.state === 'UNKNOWN') plan.kills.push(unknownKill(s));
    plan.start.push(i);
    return plan;
  }
  for (let i = init.length - 1; i >= 0; i--) {
    const s = latest.get(init[i]!.name);
    if (s === undefined) continue;
    if (s.state === 'RUNNING') return plan;
    if (s.state === 'CREATED') {
      // Created but never started (the start failed or the agent stopped in between): start it afresh.
      plan.kills.push(unknownKill(s));
      plan.start.push(i);
      return plan;
    }
    // Exited with 0 (a failure was found above).
    if (i === init.length - 1) return { ...plan, initialized: true };
    plan.start.push(i + 1);
    return plan;
  }
  plan.start.push(0);
  return plan;
}

/** Whether a running sidecar counts as started: it has no startup probe, or that probe succeeded. `undefined`: no result yet. */
function sidecarStartup(c: Container, s: ObservedContainer, probes: ProbeResultsView): 'started' | 'waiting' | 'failed' {
  if (c.startupProbe === undefined) return 'started';
  const r = probes.get('startup', s.id);
  return r === 'success' ? 'started' : r === 'failure' ? 'failed' : 'waiting';
}

function probeKill(c: Container, s: ObservedContainer, kind: 'liveness' | 'startup'): ContainerToKill {
  const probe = kind === 'liveness' ? c.livenessProbe : c.startupProbe;
  return {
    id: s.id,
    name: c.name,
    reason: kind === 'liveness' ? 'LivenessProbe' : 'StartupProbe',
    message: `Init container ${c.name} failed ${kind} probe`,
    ...(probe?.terminationGracePeriodSeconds !== undefined ? { gracePeriodSeconds: probe.terminationGracePeriodSeconds } : {}),
  };
}

/**
 * The gate-on algorithm (the kubelet 1.28's computeInitContainerActions): the
 * init containers are walked from the last one back, since completed ones
 * may have been removed; a regular one runs to success before the next; a
 * sidecar counts as done once started (startup probe passed, or running
 * without one) and is kept running afterwards: started again when it exits,
 * killed and started again when its startup or liveness probe fails.
 */
export function initWithSidecars(pod: Pod, latest: ReadonlyMap<string, ObservedContainer>, probes: ProbeResultsView): InitPlan {
  const init = pod.spec.initContainers ?? [];
  const plan: InitPlan = { initialized: false, killPod: false, kills: [], start: [] };
  if (init.length === 0) return { ...plan, initialized: true };
  let initialized = appRunning(pod, latest);
  let previouslyInitialized = initialized;
  const restartOnFailure = pod.spec.restartPolicy !== 'Never';
  const failPod = (): InitPlan => ({ initialized: false, killPod: true, kills: plan.kills, start: [] });
  for (let i = init.length - 1; i >= 0; i--) {
    const c = init[i]!;
    const sidecar = c.restartPolicy === 'Always';
    const s = latest.get(c.name);
    if (s === undefined) {
      // Its instance is gone although the pod got past it: a sidecar must run again.
      if (previouslyInitialized && sidecar) plan.start.push(i);
      continue;
    }
    if (previouslyInitialized && !sidecar) continue;
    if (s.state === 'RUNNING' && sidecar) {
      const startup = sidecarStartup(c, s, probes);
      if (startup === 'failed') {
        plan.kills.push(probeKill(c, s, 'startup'));
        plan.start.push(i);
      } else if (startup === 'started') {
        if (i === init.length - 1) initialized = true;
        else if (!previouslyInitialized) plan.start.push(i + 1);
        // Its liveness does not hold the next init container back; a failure restarts it.
        if (c.livenessProbe !== undefined && probes.get('liveness', s.id) === 'failure') {
          plan.kills.push(probeKill(c, s, 'liveness'));
          plan.start.push(i);
        }
      }
    } else if (s.state === 'EXITED') {
      if (sidecar) plan.start.push(i);
      else if (initFailed(s)) {
        if (!restartOnFailure) return failPod();
        plan.start.push(i);
      } else if (i === init.length - 1) initialized = true;
      else plan.start.push(i + 1);
    } else if (s.state === 'UNKNOWN') {
      if (!sidecar && !restartOnFailure) return failPod();
      plan.kills.push(unknownKill(s));
      plan.start.push(i);
    } else if (s.state === 'CREATED') {
      // Created but never started (the start failed or the agent stopped in between): start it afresh.
      plan.kills.push(unknownKill(s));
      plan.start.push(i);
    }
    // A regular init container running: wait for it to finish.
    previouslyInitialized = true;
  }
  if (!previouslyInitialized) plan.start.push(0);
  plan.start.reverse();
  plan.kills.reverse();
  return { ...plan, initialized };
}
