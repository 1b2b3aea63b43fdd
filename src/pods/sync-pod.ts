// Carries out a pod's actions against the runtime (the kubelet's SyncPod and
// KillPod). The decision is computePodActions'; this file is the only part of
// the pod lifecycle that calls the runtime. Each step's failure becomes the
// waiting reason the kubelet would report, and the pod is retried later.
import { mkdir, rm } from 'node:fs/promises';
import type { Container as ContainerSpec, Pod } from '../pod-model/pod-types.js';
import type { PodSandboxConfig, RuntimeService } from '../cri/types.js';
import type { ImageManager } from '../images/manager.js';
import type { AgentLogger } from '../log/index.js';
import type { KeyedBackoff } from '../util/backoff.js';
import { SlotHold, type Semaphore } from '../util/rate-limit.js';
import { computePodActions, type PodActions } from './actions.js';
import { containerConfig, ContainerConfigError, type ContainerSettings } from './container-config.js';
import { containerHash, type ContainerType } from '../runtime-view/labels.js';
import { latestByName, type ObservedPod } from '../runtime-view/observed.js';
import { sandboxConfig, type SandboxSettings } from './sandbox-config.js';
import { runPostStart, runPreStop } from '../hooks/index.js';
import type { ProbeResultsView } from '../probes/view.js';

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
  /** Monotonic ms that time a container's stop against its grace period; performance.now() by default. */
  now?: () => number;
  /** The prober's latest verdicts per container instance; none (every probe without a result) when absent. */
  probes?: ProbeResultsView;
}

const NS_PER_MS = 1_000_000n;

/** The kubelet's minimumGracePeriodInSeconds: a container always gets this long to stop before SIGKILL. */
const MIN_GRACE_PERIOD_SECONDS = 2;

/**
 * Whether a stop that took `elapsedMs` ended within its grace period. The
 * runtime sends SIGTERM, waits the grace period, then SIGKILL: a stop that
 * lasted the whole grace period ended with the kill. Pure.
 */
export function stoppedWithinGrace(elapsedMs: number, gracePeriodSeconds: number): boolean {
  return elapsedMs < gracePeriodSeconds * 1000;
}

/** What stopping a pod's containers needs: its logger (pod and podUID set), the dependencies, the signal of the sync. */
interface StopContext {
  deps: SyncDeps;
  log: AgentLogger;
  signal: AbortSignal;
  /** What the runtime holds of the pod: a container's preStop hook and its pod's IP are read from it. */
  observed?: ObservedPod;
}

/**
 * Stops one container with the grace period (at least MIN_GRACE_PERIOD_SECONDS)
 * and says so: when the stop begins (the kubelet's "Killing container with a
 * grace period"), and when it ends whether the container exited within the
 * grace period or was killed after it, so a container that ignores SIGTERM is
 * not a silent wait. Blocks for as long as the runtime's stop; throws its error.
 */
async function stopContainer(ctx: StopContext, c: { id: string; name: string }, gracePeriodSeconds: number, why?: { reason: string; message: string }): Promise<void> {
  // The preStop hook runs first and shares the grace period: the stop gets what it left.
  const afterHook = await runPreStop(ctx.deps, ctx.observed, c.id, gracePeriodSeconds, ctx.signal);
  const gracePeriod = Math.max(MIN_GRACE_PERIOD_SECONDS, afterHook);
  const now = ctx.deps.now ?? (() => performance.now());
  ctx.log.info('Killing container with a grace period', { container: c.name, containerID: c.id, gracePeriod, ...why });
  const began = now();
  await ctx.deps.runtime.stopContainer(c.id, gracePeriod, ctx.signal);
  const elapsedMs = Math.round(now() - began);
  const fields = { container: c.name, containerID: c.id, gracePeriod, elapsedMs };
  if (stoppedWithinGrace(elapsedMs, gracePeriod)) ctx.log.info('Container exited within its grace period', fields);
  else ctx.log.info('Container did not exit within its grace period; killed', fields);
}

async function killAll(ctx: StopContext, observed: ObservedPod, gracePeriodSeconds: number): Promise<void> {
  const running = observed.containers.filter((c) => c.state === 'RUNNING' || c.state === 'CREATED' || c.state === 'UNKNOWN');
  await Promise.all(running.map((c) => stopContainer(ctx, c, gracePeriodSeconds)));
  for (const s of observed.sandboxes) if (s.ready) await ctx.deps.runtime.stopPodSandbox(s.id, ctx.signal);
}

function podLog(deps: SyncDeps, observed: { namespace: string; name: string; uid: string }): AgentLogger {
  return deps.log.child({ pod: `${observed.namespace}/${observed.name}`, podUID: observed.uid });
}

/** Stops every container (with the grace period, at least MIN_GRACE_PERIOD_SECONDS) and then every sandbox of the pod. */
export async function killPod(observed: ObservedPod, gracePeriodSeconds: number, deps: SyncDeps, signal: AbortSignal): Promise<void> {
  await killAll({ deps, log: podLog(deps, observed), signal, observed }, observed, gracePeriodSeconds);
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

/** A pod that has its sandbox and needs a slot back (after a pull, or to restart a container) goes before new pods. */
const SANDBOX_STEP = 0;
const CONTAINER_STEP = 1;

function backoffKey(pod: Pod, name: string, hash: string): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.uid}/${name}/${hash}`;
}

/**
 * One sync of one pod: what each of its steps reads, and the result they fill
 * in. Built by syncPod and dropped when it returns. `slot` is the pod's hold on
 * deps.startSlots: taken at its first runtime step and kept through the next
 * ones, as when a few pods are started one after the other; given up for an
 * image pull (the image manager releases it) and when the sync ends. Handing
 * the slot back between a pod's own steps let queued sandboxes slip in.
 */
interface PodSync extends StopContext {
  pod: Pod;
  observed: ObservedPod;
  slot: SlotHold;
  result: SyncResult & { actions: PodActions };
}

/** The sandbox the pod's containers join. */
interface SandboxFacts {
  id: string;
  config: PodSandboxConfig;
  /** The pod's IP (the node's, on the host network); '' when the runtime reported none. */
  podIP: string;
}

export async function syncPod(pod: Pod, observed: ObservedPod, deps: SyncDeps, signal: AbortSignal): Promise<SyncResult & { actions: PodActions }> {
  const actions = computePodActions(pod, observed);
  const result: SyncResult & { actions: PodActions } = { waiting: new Map(), actions };
  const grace = pod.spec.terminationGracePeriodSeconds;
  const log = podLog(deps, pod.metadata);
  const sync: PodSync = { pod, observed, deps, slot: new SlotHold(deps.startSlots), result, log, signal };
  try {
    if (actions.killPod) {
      if (observed.sandboxes.some((s) => s.ready) || observed.containers.some((c) => c.state === 'RUNNING')) {
        log.info('Stopping pod sandbox and containers', { reason: actions.createSandbox ? 'sandbox must be recreated' : 'pod has nothing left to run' });
      }
      await killAll(sync, observed, grace);
    } else {
      for (const k of actions.containersToKill) await stopContainer(sync, k, grace, { reason: k.reason, message: k.message });
    }
    if (!actions.createSandbox && actions.sandboxId === '') return result;

    const sandbox: SandboxFacts = {
      id: actions.sandboxId,
      config: sandboxConfig(pod, actions.sandboxAttempt, deps.sandbox),
      podIP: observed.sandboxes.find((s) => s.id === actions.sandboxId)?.ip ?? '',
    };
    if (actions.createSandbox) {
      await mkdir(sandbox.config.logDirectory, { recursive: true });
      await sync.slot.hold(SANDBOX_STEP, sync.signal);
      sandbox.id = await deps.runtime.runPodSandbox(sandbox.config, pod.spec.runtimeClassName ?? '', signal);
      // A host-network pod has the node's IP; only a pod network's IP needs asking for.
      sandbox.podIP = pod.spec.hostNetwork ? '' : (await deps.runtime.podSandboxStatus(sandbox.id, signal)).ip;
      log.info('Created pod sandbox', { sandbox: sandbox.id, attempt: actions.sandboxAttempt });
    }
    if (pod.spec.hostNetwork) sandbox.podIP = deps.hostIP;
    await startContainers(sync, sandbox);
  } catch (e) {
    if (signal.aborted) throw e;
    result.error = e as Error;
  } finally {
    sync.slot.release();
  }
  return result;
}

/** Starts the containers the actions name, in order; each one's failure is its waiting reason. Throws only when the sync is aborted. */
async function startContainers(sync: PodSync, sandbox: SandboxFacts): Promise<void> {
  const { pod, deps, result } = sync;
  const latest = latestByName(sync.observed.containers);
  for (const s of result.actions.containersToStart) {
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
    await startContainer(sync, sandbox, { spec, type: s.type, restartCount: s.restartCount });
  }
}

/** Image, create, start and clean-up of one container; a failure is set as its waiting reason. Throws only when the sync is aborted. */
async function startContainer(sync: PodSync, sandbox: SandboxFacts, c: { spec: ContainerSpec; type: ContainerType; restartCount: number }): Promise<void> {
  const { pod, deps, result, signal, log } = sync;
  const { spec } = c;
  const image = await deps.images.ensure({ image: spec.image, policy: spec.imagePullPolicy, backoffKey: pod.metadata.uid, sandbox: sandbox.config }, signal, sync.slot);
  if (!image.ok) {
    result.waiting.set(spec.name, { reason: image.reason, message: image.message });
    return;
  }
  let id: string;
  try {
    const facts = { nodeName: deps.nodeName, hostIP: deps.hostIP, podIP: sandbox.podIP, podIPs: sandbox.podIP ? [sandbox.podIP] : [] };
    const config = containerConfig(pod, spec, c.type, c.restartCount, facts, deps.container);
    for (const v of pod.spec.volumes ?? []) if (v.emptyDir) await mkdir(deps.container.emptyDirPath(pod, v.name), { recursive: true });
    await mkdir(`${sandbox.config.logDirectory}/${spec.name}`, { recursive: true });
    await sync.slot.hold(CONTAINER_STEP, sync.signal);
    id = await deps.runtime.createContainer(sandbox.id, config, sandbox.config, signal);
  } catch (e) {
    if (signal.aborted) throw e;
    if (e instanceof ContainerConfigError) {
      result.waiting.set(spec.name, { reason: e.reason, message: e.message });
      return;
    }
    // The image may have been removed since it was found present: the retry asks the runtime again.
    deps.images.forget(spec.image);
    result.waiting.set(spec.name, { reason: 'CreateContainerError', message: (e as Error).message });
    return;
  }
  try {
    await deps.runtime.startContainer(id, signal);
    log.info('Started container', { container: spec.name, containerID: id, restartCount: c.restartCount, imagePulled: image.pulled });
  } catch (e) {
    if (signal.aborted) throw e;
    result.waiting.set(spec.name, { reason: 'RunContainerError', message: (e as Error).message });
    return;
  }
  // A postStart hook may run long: other pods' starts must not wait on it.
  if (spec.lifecycle?.postStart) sync.slot.release();
  const hookFailed = await runPostStart(deps, { pod, spec, containerId: id, podIP: sandbox.podIP !== '' ? sandbox.podIP : deps.hostIP }, signal);
  if (hookFailed) {
    // As the kubelet: the container is killed and restarts per restartPolicy.
    await stopContainer(sync, { id, name: spec.name }, pod.spec.terminationGracePeriodSeconds, { reason: 'FailedPostStartHook', message: hookFailed.message });
    result.waiting.set(spec.name, { reason: hookFailed.reason, message: hookFailed.message });
    return;
  }
  await removeOldInstances(sync.observed, spec.name, deps, signal);
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

