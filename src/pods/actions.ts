// What to do for one pod, given what it should be and what the runtime holds:
// the kubelet's computePodActions (kuberuntime_manager.go), as a pure function.
// No I/O, no clock: the executor (sync-pod.ts) carries the actions out, and
// back-off gating of starts happens there.
import type { Container, Pod } from '../pod-model/pod-types.js';
import { containerHash, sandboxHash, type ContainerType } from '../runtime-view/labels.js';
import { latestByName, type ObservedContainer, type ObservedPod } from '../runtime-view/observed.js';

export interface ContainerToStart {
  type: ContainerType;
  /** Index in spec.initContainers or spec.containers. */
  index: number;
  name: string;
  /** Restart count the new instance carries (previous instance's + 1, or 0). */
  restartCount: number;
}

export interface ContainerToKill {
  id: string;
  name: string;
  /** Machine-readable reason, as the kubelet's events use. */
  reason: 'Changed' | 'Unknown' | 'NotStarted' | 'Orphaned';
  message: string;
}

export interface PodActions {
  /** Stop every container and sandbox of the pod before anything else. */
  killPod: boolean;
  createSandbox: boolean;
  /** Attempt number for a new sandbox. */
  sandboxAttempt: number;
  /** The sandbox to start containers in; '' when a new one is created. */
  sandboxId: string;
  containersToKill: ContainerToKill[];
  containersToStart: ContainerToStart[];
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

export function computePodActions(pod: Pod, observed: ObservedPod): PodActions {
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

  if (sandbox.create) {
    // A pod that must not restart and has already run does not get a new sandbox.
    if (!restartsOnFailure(pod) && sandbox.attempt !== 0 && observed.containers.length > 0) {
      actions.createSandbox = false;
      return actions;
    }
    const init = pod.spec.initContainers ?? [];
    if (init.length > 0) {
      start('init', 0);
      return actions;
    }
    pod.spec.containers.forEach((c, i) => {
      const prev = latest.get(c.name);
      if (pod.spec.restartPolicy === 'OnFailure' && prev?.state === 'EXITED' && prev.exitCode === 0) return;
      start('container', i);
    });
    if (actions.containersToStart.length === 0) actions.createSandbox = false;
    return actions;
  }

  // Init containers run one at a time, in order, each to success, before any app container.
  const init = pod.spec.initContainers ?? [];
  for (let i = 0; i < init.length; i++) {
    const status = latest.get(init[i]!.name);
    if (status === undefined) {
      start('init', i);
      return actions;
    }
    if (status.state === 'RUNNING') return actions;
    if (status.state === 'EXITED' && status.exitCode === 0) continue;
    if (status.state === 'UNKNOWN' || status.state === 'CREATED') {
      actions.containersToKill.push({ id: status.id, name: status.name, reason: status.state === 'UNKNOWN' ? 'Unknown' : 'NotStarted', message: `Init container ${status.name} is in state ${status.state}` });
      start('init', i);
      return actions;
    }
    // Failed init container: the pod fails under Never, otherwise the init container runs again.
    if (pod.spec.restartPolicy === 'Never') actions.killPod = true;
    else start('init', i);
    return actions;
  }

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
    if (status.hash === containerHash(c)) {
      keep++;
      return;
    }
    actions.containersToKill.push({ id: status.id, name: c.name, reason: 'Changed', message: `Container ${c.name} definition changed, will be restarted` });
    start('container', i);
  });
  if (keep === 0 && actions.containersToStart.length === 0) actions.killPod = true;
  return actions;
}

/** Actions for a pod no source wants any more: stop everything. */
export function terminationActions(): PodActions {
  return { killPod: true, createSandbox: false, sandboxAttempt: 0, sandboxId: '', containersToKill: [], containersToStart: [] };
}
