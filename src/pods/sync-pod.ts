// Carries out a pod's actions against the runtime (the kubelet's SyncPod and
// KillPod). The decision is computePodActions'; this file is the only part of
// the pod lifecycle that calls the runtime. Each step's failure becomes the
// waiting reason the kubelet would report, and the pod is retried later.
import { mkdir, rm } from 'node:fs/promises';
import type { Pod } from '../api/pod-types.js';
import type { PodSandboxConfig, RuntimeService } from '../cri/types.js';
import type { ImageManager } from '../images/manager.js';
import type { AgentLogger } from '../log/index.js';
import type { KeyedBackoff } from '../util/backoff.js';
import type { Semaphore } from '../util/rate-limit.js';
import { computePodActions, type PodActions } from './actions.js';
import { containerConfig, ContainerConfigError, type ContainerSettings } from './container-config.js';
import { containerHash } from './labels.js';
import { latestByName, type ObservedPod } from './observed.js';
import { sandboxConfig, type SandboxSettings } from './sandbox-config.js';

export interface Waiting {
  reason: string;
  message: string;
}

export interface SyncResult {
  /** Why containers that should run are not running, by container name. */
  waiting: Map<string, Waiting>;
  /** A step that failed; the pod is retried after the pod back-off. */
  error?: Error;
  /** When the earliest back-off of this pod ends (ms from now), for a prompt retry. */
  retryAfterMs?: number;
}

export interface SyncDeps {
  runtime: RuntimeService;
  /**
   * Bounds the pods being started at once (sandbox creation, container create and
   * start; not image pulls). Measured by bench/pods.mjs: containerd brings 110 pods
   * up fastest with a few at a time, not all at once.
   */
  startSlots?: Semaphore;
  images: ImageManager;
  crashBackoff: KeyedBackoff;
  sandbox: SandboxSettings;
  container: ContainerSettings;
  nodeName: string;
  hostIP: string;
  log: AgentLogger;
}

const NS_PER_MS = 1_000_000n;

/** The kubelet's minimumGracePeriodInSeconds: a container always gets this long to stop before SIGKILL. */
export const MIN_GRACE_PERIOD_SECONDS = 2;

function stopContainer(deps: SyncDeps, id: string, gracePeriodSeconds: number, signal: AbortSignal): Promise<void> {
  return deps.runtime.stopContainer(id, Math.max(MIN_GRACE_PERIOD_SECONDS, gracePeriodSeconds), signal);
}

/** Stops every container (with the grace period, at least MIN_GRACE_PERIOD_SECONDS) and then every sandbox of the pod. */
export async function killPod(observed: ObservedPod, gracePeriodSeconds: number, deps: SyncDeps, signal: AbortSignal): Promise<void> {
  const running = observed.containers.filter((c) => c.state === 'RUNNING' || c.state === 'CREATED' || c.state === 'UNKNOWN');
  await Promise.all(running.map((c) => stopContainer(deps, c.id, gracePeriodSeconds, signal)));
  for (const s of observed.sandboxes) if (s.ready) await deps.runtime.stopPodSandbox(s.id, signal);
}

/** Stops and removes everything the runtime holds for a pod no source wants any more. */
export async function teardownPod(observed: ObservedPod, gracePeriodSeconds: number, deps: SyncDeps, signal: AbortSignal): Promise<void> {
  await killPod(observed, gracePeriodSeconds, deps, signal);
  for (const c of observed.containers) await deps.runtime.removeContainer(c.id, signal);
  for (const s of observed.sandboxes) await deps.runtime.removePodSandbox(s.id, signal);
  // The pod is gone from every source and from the runtime: its logs and volume data go too.
  if (observed.namespace !== '' && observed.name !== '') {
    await rm(`${deps.sandbox.podLogsDir}/${observed.namespace}_${observed.name}_${observed.uid}`, { recursive: true, force: true });
  }
  if (deps.container.podDataDir) await rm(deps.container.podDataDir(observed.uid), { recursive: true, force: true });
}

/**
 * A pod's hold on one of deps.startSlots: taken at its first runtime step and
 * kept through the next ones, as when a few pods are started one after the
 * other; given up for an image pull and when the sync ends. Handing the slot
 * back between a pod's own steps let queued sandboxes slip in between them.
 */
class StartSlot {
  private release: (() => void) | undefined;
  constructor(private readonly slots: Semaphore | undefined) {}

  async hold(priority: number): Promise<void> {
    if (this.slots && !this.release) this.release = await this.slots.acquire(priority);
  }

  free = (): void => {
    const release = this.release;
    this.release = undefined;
    release?.();
  };
}

/** A pod that has its sandbox and needs a slot back (after a pull, or to restart a container) goes before new pods. */
const SANDBOX_STEP = 0;
const CONTAINER_STEP = 1;

function backoffKey(pod: Pod, name: string, hash: string): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.uid}/${name}/${hash}`;
}

export async function syncPod(pod: Pod, observed: ObservedPod, deps: SyncDeps, signal: AbortSignal): Promise<SyncResult & { actions: PodActions }> {
  const actions = computePodActions(pod, observed);
  const result: SyncResult & { actions: PodActions } = { waiting: new Map(), actions };
  const grace = pod.spec.terminationGracePeriodSeconds;
  const log = deps.log.child({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, podUID: pod.metadata.uid });
  const slot = new StartSlot(deps.startSlots);
  try {
    if (actions.killPod) {
      if (observed.sandboxes.some((s) => s.ready) || observed.containers.some((c) => c.state === 'RUNNING')) {
        log.info('Stopping pod sandbox and containers', { reason: actions.createSandbox ? 'sandbox must be recreated' : 'pod has nothing left to run' });
      }
      await killPod(observed, grace, deps, signal);
    } else {
      for (const k of actions.containersToKill) {
        log.info('Killing container', { container: k.name, reason: k.reason, message: k.message });
        await stopContainer(deps, k.id, grace, signal);
      }
    }
    if (!actions.createSandbox && actions.sandboxId === '') return result;

    const sbConfig = sandboxConfig(pod, actions.sandboxAttempt, deps.sandbox);
    let sandboxId = actions.sandboxId;
    let podIP = observed.sandboxes.find((s) => s.id === sandboxId)?.ip ?? '';
    if (actions.createSandbox) {
      await mkdir(sbConfig.logDirectory, { recursive: true });
      await slot.hold(SANDBOX_STEP);
      sandboxId = await deps.runtime.runPodSandbox(sbConfig, pod.spec.runtimeClassName ?? '', signal);
      // A host-network pod has the node's IP; only a pod network's IP needs asking for.
      podIP = pod.spec.hostNetwork ? '' : (await deps.runtime.podSandboxStatus(sandboxId, signal)).ip;
      log.info('Created pod sandbox', { sandbox: sandboxId, attempt: actions.sandboxAttempt });
    }
    if (pod.spec.hostNetwork) podIP = deps.hostIP;
    await startContainers(pod, observed, actions, sandboxId, sbConfig, podIP, deps, slot, result, log, signal);
  } catch (e) {
    if (signal.aborted) throw e;
    result.error = e as Error;
  } finally {
    slot.free();
  }
  return result;
}

async function startContainers(
  pod: Pod,
  observed: ObservedPod,
  actions: PodActions,
  sandboxId: string,
  sbConfig: PodSandboxConfig,
  podIP: string,
  deps: SyncDeps,
  slot: StartSlot,
  result: SyncResult,
  log: AgentLogger,
  signal: AbortSignal,
): Promise<void> {
  const latest = latestByName(observed.containers);
  const facts = { nodeName: deps.nodeName, hostIP: deps.hostIP, podIP, podIPs: podIP ? [podIP] : [] };
  for (const s of actions.containersToStart) {
    const spec = (s.type === 'init' ? pod.spec.initContainers : pod.spec.containers)![s.index]!;
    const prev = latest.get(spec.name);
    // Crash-loop back-off applies to a container that already ran and exited.
    if (prev && prev.state === 'EXITED') {
      const key = backoffKey(pod, spec.name, containerHash(spec));
      const finishedMs = Number(prev.finishedAt / NS_PER_MS);
      if (deps.crashBackoff.inBackoffSince(key, finishedMs)) {
        const wait = deps.crashBackoff.remaining(key, finishedMs);
        result.waiting.set(spec.name, { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(deps.crashBackoff.current(key) / 1000)}s restarting failed container=${spec.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})` });
        result.retryAfterMs = Math.min(result.retryAfterMs ?? Infinity, wait);
        continue;
      }
      deps.crashBackoff.next(key, finishedMs);
    }
    const image = await deps.images.ensure(spec.image, spec.imagePullPolicy, pod.metadata.uid, sbConfig, signal, slot.free);
    if (!image.ok) {
      result.waiting.set(spec.name, { reason: image.reason, message: image.message });
      continue;
    }
    let id: string;
    try {
      const config = containerConfig(pod, spec, s.type, s.restartCount, facts, deps.container);
      for (const v of pod.spec.volumes ?? []) if (v.emptyDir) await mkdir(deps.container.emptyDirPath(pod, v.name), { recursive: true });
      await mkdir(`${sbConfig.logDirectory}/${spec.name}`, { recursive: true });
      await slot.hold(CONTAINER_STEP);
      id = await deps.runtime.createContainer(sandboxId, config, sbConfig, signal);
    } catch (e) {
      if (signal.aborted) throw e;
      if (e instanceof ContainerConfigError) {
        result.waiting.set(spec.name, { reason: e.reason, message: e.message });
        continue;
      }
      // The image may have been removed since it was found present: the retry asks the runtime again.
      deps.images.forget(spec.image);
      result.waiting.set(spec.name, { reason: 'CreateContainerError', message: (e as Error).message });
      continue;
    }
    try {
      await deps.runtime.startContainer(id, signal);
      log.info('Started container', { container: spec.name, containerID: id, restartCount: s.restartCount, imagePulled: image.pulled });
    } catch (e) {
      if (signal.aborted) throw e;
      result.waiting.set(spec.name, { reason: 'RunContainerError', message: (e as Error).message });
      continue;
    }
    await removeOldInstances(observed, spec.name, deps, signal);
  }
}

/** Keeps one dead instance per container (the kubelet's minimum for lastState); older ones go. */
async function removeOldInstances(observed: ObservedPod, name: string, deps: SyncDeps, signal: AbortSignal): Promise<void> {
  const dead = observed.containers.filter((c) => c.name === name && c.state === 'EXITED');
  for (const c of dead.slice(1)) {
    try {
      await deps.runtime.removeContainer(c.id, signal);
    } catch (e) {
      deps.log.v(2)?.info('Could not remove an old container instance', { containerID: c.id, err: e });
    }
  }
}

