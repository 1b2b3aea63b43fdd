// What to do for one pod, given what it should be and what the runtime holds:
// the kubelet's computePodActions (kuberuntime_manager.go), as a pure function.
// No I/O, no clock: the executor (sync-pod.ts) carries the actions out, and
// back-off gating of starts happens there. Init containers and sidecars are
// decided in init-actions.ts; probe results come in as data (a
// ProbeResultsView), so a failed liveness or startup probe is one more reason
// to kill a running container here.
import type { Container, Pod } from '../pod-model/pod-types.js';
import { NO_PROBE_RESULTS, type ProbeResultsView } from '../probes/view.js';
import { containerHash, sandboxHash, type ContainerType } from '../runtime-view/labels.js';
import { latestByName, type ObservedContainer, type ObservedPod } from '../runtime-view/observed.js';
import type { ContainerToKill, PodActions } from './action-types.js';
import { initWithSidecars, sequentialInit, type InitPlan } from './init-actions.js';

export type { ContainerToKill, ContainerToStart, KillReason, PodActions } from './action-types.js';

/** What computePodActions reads besides the spec and the runtime. */
export interface ActionOptions {
  /** The prober's latest results; NO_PROBE_RESULTS (every probe without a result) by default. */
  probes?: ProbeResultsView;
  /** The SidecarContainers feature gate (alpha in 1.28, off by default). */
  sidecars?: boolean;
}

/** Whether carrying out `a` changes anything in the runtime (an empty plan leaves it as it is). */
export const changesRuntime = (a: PodActions): boolean => a.killPod || a.createSandbox || a.containersToKill.length > 0 || a.containersToStart.length > 0;

const restartsOnFailure = (pod: Pod): boolean => pod.spec.restartPolicy !== 'Never';

/** The kubelet's ShouldContainerBeRestarted, for a container that is not running. */
export function shouldStart(pod: Pod, latest: ObservedContainer | undefined): boolean {
  if (latest === undefined) return true;
  if (latest.state === 'RUNNING') return false;
  if (latest.state === 'UNKNOWN' || latest.state === 'CREATED') return true;
  if (pod.spec.restartPolicy === 'Never') return false;
  if (pod.spec.restartPolicy === 'OnFailure' && latest.exitCode === 0) return false;
  return true;
}

const nextRestartCount = (latest: ObservedContainer | undefined): number => (latest === undefined ? 0 : latest.restartCount + 1);

/** Whether the pod's sandbox must be (re)created, and with which attempt number. */
export function sandboxChange(pod: Pod, observed: ObservedPod): { create: boolean; attempt: number; sandboxId: string } {
  const [latest] = observed.sandboxes;
  if (latest === undefined) return { create: true, attempt: 0, sandboxId: '' };
  const again = { create: true, attempt: latest.attempt + 1, sandboxId: '' };
  if (observed.sandboxes.filter((s) => s.ready).length > 1) return again;
  if (!latest.ready) return again;
  if (latest.hostNetwork !== (pod.spec.hostNetwork === true)) return again;
  if (!latest.hostNetwork && latest.ip === '') return again;
  // Settings baked into the sandbox (ports, namespaces, DNS, hostname) changed in the manifest.
  if (latest.configHash !== '' && latest.configHash !== sandboxHash(pod)) return again;
  return { create: false, attempt: latest.attempt, sandboxId: latest.id };
}

function containerList(pod: Pod, type: ContainerType): Container[] {
  return (type === 'init' ? pod.spec.initContainers : pod.spec.containers) ?? [];
}

/**
 * Why a running app container must be stopped, in the kubelet's order: its
 * spec changed (restarted whatever the restart policy), else its liveness
 * probe failed, else its startup probe failed (restarted per restartPolicy:
 * not under Never). undefined: keep it.
 */
function runningVerdict(pod: Pod, c: Container, status: ObservedContainer, probes: ProbeResultsView): { kill: ContainerToKill; restart: boolean } | undefined {
  if (status.hash !== containerHash(c)) {
    return { kill: { id: status.id, name: c.name, reason: 'Changed', message: `Container ${c.name} definition changed, will be restarted` }, restart: true };
  }
  const kind = probes.get('liveness', status.id) === 'failure' ? 'liveness' : probes.get('startup', status.id) === 'failure' ? 'startup' : undefined;
  if (kind === undefined) return undefined;
  const restart = restartsOnFailure(pod);
  const probe = kind === 'liveness' ? c.livenessProbe : c.startupProbe;
  const kill: ContainerToKill = {
    id: status.id,
    name: c.name,
    reason: kind === 'liveness' ? 'LivenessProbe' : 'StartupProbe',
    message: `Container ${c.name} failed ${kind} probe${restart ? ', will be restarted' : ''}`,
    ...(probe?.terminationGracePeriodSeconds !== undefined ? { gracePeriodSeconds: probe.terminationGracePeriodSeconds } : {}),
  };
  return { kill, restart };
}

/**
 * The plan for one sync of `pod`. Idempotent: the same inputs give the same
 * plan; a plan carried out and observed again gives an empty one (or the next
 * step: the next init container, a restart after back-off).
 */
export function computePodActions(pod: Pod, observed: ObservedPod, opts: ActionOptions = {}): PodActions {
  const probes = opts.probes ?? NO_PROBE_RESULTS;
  const sidecars = opts.sidecars === true;
  const sandbox = sandboxChange(pod, observed);
  const latest = latestByName(observed.containers);
  const actions: PodActions = {
    killPod: sandbox.create,
    createSandbox: sandbox.create,
    sandboxAttempt: sandbox.attempt,
    sandboxId: sandbox.sandboxId,
    containersToKill: [],
    containersToStart: [],
  };
  const start = (type: ContainerType, index: number): void => {
    const c = containerList(pod, type)[index]!;
    actions.containersToStart.push({ type, index, name: c.name, restartCount: nextRestartCount(latest.get(c.name)) });
  };
  const init = pod.spec.initContainers ?? [];

  if (sandbox.create) {
    // A pod that must not restart and has already run does not get a new sandbox.
    if (!restartsOnFailure(pod) && sandbox.attempt !== 0 && observed.containers.length > 0) {
      actions.createSandbox = false;
      return actions;
    }
    const apps: number[] = [];
    pod.spec.containers.forEach((c, i) => {
      const prev = latest.get(c.name);
      if (pod.spec.restartPolicy === 'OnFailure' && prev?.state === 'EXITED' && prev.exitCode === 0) return;
      apps.push(i);
    });
    // Every app container succeeded (OnFailure): the pod is done, nothing to create.
    if (apps.length === 0) {
      actions.createSandbox = false;
      return actions;
    }
    // A new sandbox starts from the first init container (the kubelet cannot tell an old sandbox's statuses from the new one's).
    if (init.length > 0) start('init', 0);
    else for (const i of apps) start('container', i);
    return actions;
  }

  const plan: InitPlan = sidecars ? initWithSidecars(pod, latest, probes) : sequentialInit(pod, latest);
  actions.containersToKill.push(...plan.kills);
  for (const i of plan.start) start('init', i);
  if (plan.killPod) {
    actions.killPod = true;
    actions.containersToStart = [];
    return actions;
  }
  // Initialisation failed or is still in progress: the app containers wait.
  if (!plan.initialized) return actions;

  let keep = 0;
  pod.spec.containers.forEach((c, i) => {
    const status = latest.get(c.name);
    if (status === undefined || status.state !== 'RUNNING') {
      if (shouldStart(pod, status)) {
        if (status && (status.state === 'UNKNOWN' || status.state === 'CREATED')) {
          actions.containersToKill.push({ id: status.id, name: c.name, reason: status.state === 'UNKNOWN' ? 'Unknown' : 'NotStarted', message: `Container ${c.name} is in state ${status.state}, will be restarted` });
        }
        start('container', i);
      }
      return;
    }
    const verdict = runningVerdict(pod, c, status, probes);
    if (verdict === undefined) {
      keep++;
      return;
    }
    actions.containersToKill.push(verdict.kill);
    if (verdict.restart) start('container', i);
  });
  if (keep === 0 && !actions.containersToStart.some((s) => s.type === 'container')) {
    // Nothing of the pod's own work is left: stop it, sidecars included (they do not keep it alive).
    actions.killPod = true;
    actions.containersToStart = [];
  }
  return actions;
}

/** Actions for a pod no source wants any more: stop everything. */
export function terminationActions(): PodActions {
  return { killPod: true, createSandbox: false, sandboxAttempt: 0, sandboxId: '', containersToKill: [], containersToStart: [] };
}
