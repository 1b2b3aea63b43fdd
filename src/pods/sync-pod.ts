// Carries out a pod's actions against the runtime (the kubelet's SyncPod and
// KillPod). The decision is computePodActions'; this file is the only part of
// the pod lifecycle that calls the runtime. Each step's failure becomes the
// waiting reason the kubelet would report, and the pod is retried later.
import { mkdir, rm } from 'node:fs/promises';
import type { Container as ContainerSpec, Pod } from '../pod-model/pod-types.js';
import { isNotFound } from '../cri/errors.js';
import type { PodSandboxConfig, RuntimeService } from '../cri/types.js';
import type { ImageManager } from '../images/manager.js';
import type { AgentLogger } from '../log/index.js';
import type { KeyedBackoff } from '../util/backoff.js';
import { SlotHold, type Semaphore } from '../util/rate-limit.js';
import { computePodActions, type PodActions } from './actions.js';
import { containerConfig, ContainerConfigError, type ContainerSettings } from './container-config.js';
import { containerHash, type ContainerType } from '../runtime-view/labels.js';
import { latestByName, type ObservedContainer, type ObservedPod } from '../runtime-view/observed.js';
import type { ProbeResultsView } from '../probes/view.js';
import { sandboxConfig, type SandboxSettings } from './sandbox-config.js';
import { podRefLabels, startErrorCode, type PodMetricsSink } from './metrics-sink.js';
import type { VolumeManager } from '../volumes/index.js';
import { needsImageUser, SecurityConfigError } from './container-security.js';
import type { PodCgroups } from './pod-cgroup.js';
import type { ApiObjectSource } from '../api-objects/index.js';
import { EnvSourceError, fetchEnvObjects } from './env-from.js';
import { podPullSecrets } from './pull-secrets.js';
import { runPostStart, runPreStop } from '../hooks/index.js';
import { containerRef, crashBackOffMessage, podRef, type EventRecorder } from '../events/index.js';

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
  /** Sets up a pod's volumes before its containers start and removes them with the pod (src/volumes/); none: volumes are not prepared. */
  volumes?: VolumeManager;
  log: AgentLogger;
  /** Monotonic ms that time a container's stop against its grace period; performance.now() by default. */
  now?: () => number;
  /** The prober's latest results (liveness/startup failures kill, startup gates sidecars); none by default. */
  probes?: ProbeResultsView;
  /** The SidecarContainers feature gate (off by default, as in 1.28). */
  sidecars?: boolean;
  /** The pods' own cgroups (--pod-max-pids); absent: none. */
  podCgroups?: PodCgroups;
  /** Pod start phases and container starts (src/metrics' AgentMetrics fits); absent: nothing recorded. */
  metrics?: PodMetricsSink;
  /** The kubelet's pod and container events (src/events); absent: none recorded. */
  events?: EventRecorder;
  /** API-server mode: ConfigMaps and Secrets for env/envFrom and imagePullSecrets; absent (standalone): references to them fail as before. */
  apiObjects?: ApiObjectSource;
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
async function stopContainer(ctx: StopContext, c: { id: string; name: string; type?: ContainerType }, gracePeriodSeconds: number, why?: { reason: string; message: string }): Promise<void> {
  if (ctx.observed) ctx.deps.events?.event(containerRef(ctx.observed, c.name, c.type), 'Normal', 'Killing', why?.message ?? `Stopping container ${c.name}`);
  // The preStop hook runs first and shares the grace period: the stop gets what it left.
  const afterHook = await runPreStop(ctx.deps, ctx.observed, c.id, gracePeriodSeconds, ctx.signal);
  const gracePeriod = Math.max(MIN_GRACE_PERIOD_SECONDS, afterHook);
  const now = ctx.deps.now ?? (() => performance.now());
  ctx.log.info('Killing container with a grace period', { container: c.name, containerID: c.id, gracePeriod, ...why });
  const began = now();
  try {
    await ctx.deps.runtime.stopContainer(c.id, gracePeriod, ctx.signal);
  } catch (err) {
    // Removed meanwhile (another teardown of the same pod, the runtime's own cleanup): it is stopped, as the kubelet counts it.
    if (!isNotFound(err)) throw err;
    ctx.log.info('Container already gone', { container: c.name, containerID: c.id });
    return;
  }
  const elapsedMs = Math.round(now() - began);
  const fields = { container: c.name, containerID: c.id, gracePeriod, elapsedMs };
  if (stoppedWithinGrace(elapsedMs, gracePeriod)) ctx.log.info('Container exited within its grace period', fields);
  else ctx.log.info('Container did not exit within its grace period; killed', fields);
}

/** Still holds a process, or may: what a kill must stop. */
const mayRun = (c: ObservedContainer): boolean => c.state === 'RUNNING' || c.state === 'CREATED' || c.state === 'UNKNOWN';

/**
 * The order a pod's containers stop in: every app container at once, then its
 * init containers still running (sidecars; a plain init container only when
 * the pod stops during init) one at a time, the last in the spec first, so
 * that what the app containers rely on outlives them. The spec index comes
 * from the container's annotation (no spec needed: teardowns after a restart
 * have none); without one, the newest instance goes first. Pure.
 */
export function stopOrder(observed: ObservedPod): { first: ObservedContainer[]; thenInOrder: ObservedContainer[] } {
  const running = observed.containers.filter(mayRun);
  const first = running.filter((c) => c.type !== 'init');
  // observed.containers is newest first: a stable sort keeps that order among equal indices.
  const thenInOrder = running.filter((c) => c.type === 'init').sort((a, b) => (b.specIndex ?? -1) - (a.specIndex ?? -1));
  return { first, thenInOrder };
}

/**
 * Stops the pod's containers in stopOrder and then its ready sandboxes. The
 * app containers get the grace period; the sidecars after them share what
 * is left of it (each still gets MIN_GRACE_PERIOD_SECONDS). Blocks until all
 * are stopped; throws the first stop error.
 */
async function killAll(ctx: StopContext, observed: ObservedPod, gracePeriodSeconds: number): Promise<void> {
  const now = ctx.deps.now ?? (() => performance.now());
  const began = now();
  const { first, thenInOrder } = stopOrder(observed);
  await Promise.all(first.map((c) => stopContainer(ctx, c, gracePeriodSeconds)));
  for (const c of thenInOrder) await stopContainer(ctx, c, Math.max(0, Math.floor(gracePeriodSeconds - (now() - began) / 1000)));
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
  await deps.podCgroups?.remove(observed.uid);
  // The pod is gone from every source and from the runtime: its logs and volume data go too.
  if (observed.namespace !== '' && observed.name !== '') {
    await rm(`${deps.sandbox.podLogsDir}/${observed.namespace}_${observed.name}_${observed.uid}`, { recursive: true, force: true });
  }
  await deps.volumes?.tearDown(observed.uid, signal);
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
  const actions = computePodActions(pod, observed, { ...(deps.probes ? { probes: deps.probes } : {}), sidecars: deps.sidecars === true });
  const result: SyncResult & { actions: PodActions } = { waiting: new Map(), actions };
  const grace = pod.spec.terminationGracePeriodSeconds;
  const log = podLog(deps, pod.metadata);
  const sync: PodSync = { pod, observed, deps, slot: new SlotHold(deps.startSlots), result, log, signal };
  try {
    if (actions.killPod) {
      if (observed.sandboxes.some((s) => s.ready) || observed.containers.some((c) => c.state === 'RUNNING')) {
        log.info('Stopping pod sandbox and containers', { reason: actions.createSandbox ? 'sandbox must be recreated' : 'pod has nothing left to run' });
        if (actions.createSandbox && actions.sandboxAttempt > 0) deps.events?.event(podRef(pod.metadata), 'Normal', 'SandboxChanged', 'Pod sandbox changed, it will be killed and re-created.');
      }
      await killAll(sync, observed, grace);
    } else {
      for (const k of actions.containersToKill) await stopContainer(sync, k, k.gracePeriodSeconds ?? grace, { reason: k.reason, message: k.message });
    }
    if (!actions.createSandbox && actions.sandboxId === '') return result;
    // Volumes are ready before any container starts (the kubelet's WaitForAttachAndMount); until then every container that would start waits.
    const volumes = deps.volumes && (await deps.volumes.setUp(pod, signal));
    if (volumes && !volumes.ready) {
      deps.events?.event(podRef(pod.metadata), 'Warning', 'FailedMount', volumes.message);
      for (const s of actions.containersToStart) result.waiting.set((s.type === 'init' ? pod.spec.initContainers : pod.spec.containers)![s.index]!.name, { reason: 'ContainerCreating', message: volumes.message });
      result.error = volumes.error;
      return result;
    }

    const sandbox: SandboxFacts = {
      id: actions.sandboxId,
      config: sandboxConfig(pod, actions.sandboxAttempt, deps.sandbox),
      podIP: observed.sandboxes.find((s) => s.id === actions.sandboxId)?.ip ?? '',
    };
    if (actions.createSandbox) {
      await mkdir(sandbox.config.logDirectory, { recursive: true });
      await deps.podCgroups?.ensure(pod);
      await sync.slot.hold(SANDBOX_STEP, sync.signal);
      sandbox.id = await deps.runtime.runPodSandbox(sandbox.config, pod.spec.runtimeClassName ?? '', signal).catch((e: unknown) => {
        if (!signal.aborted) deps.events?.event(podRef(pod.metadata), 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${(e as Error).message}`);
        throw e;
      });
      // A host-network pod has the node's IP; only a pod network's IP needs asking for.
      sandbox.podIP = pod.spec.hostNetwork ? '' : (await deps.runtime.podSandboxStatus(sandbox.id, signal)).ip;
      log.info('Created pod sandbox', { sandbox: sandbox.id, attempt: actions.sandboxAttempt });
      deps.metrics?.podStartPhase(podRefLabels(pod), 'sandbox');
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
        deps.events?.event(containerRef(pod.metadata, spec.name, s.type), 'Warning', 'BackOff', crashBackOffMessage(spec.name, pod.metadata));
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
  const ref = containerRef(pod.metadata, spec.name, c.type);
  const pullSecrets = deps.apiObjects && podPullSecrets(pod, deps.apiObjects, log, signal);
  const image = await deps.images.ensure({ image: spec.image, policy: spec.imagePullPolicy, backoffKey: pod.metadata.uid, sandbox: sandbox.config, ref, ...(pullSecrets ? { pullSecrets } : {}) }, signal, sync.slot);
  if (!image.ok) {
    deps.events?.event(ref, 'Warning', 'Failed', `Error: ${image.reason}`);
    result.waiting.set(spec.name, { reason: image.reason, message: image.message });
    return;
  }
  deps.metrics?.podStartPhase(podRefLabels(pod), 'images');
  let id: string;
  try {
    // runAsNonRoot is checked against the image's user: asked for when the presence answer had none (after a pull).
    const user = image.user ?? (needsImageUser(pod, spec) ? await deps.images.user(spec.image, signal) : undefined);
    const envObjects = deps.apiObjects && (await fetchEnvObjects(pod, spec, deps.apiObjects, signal).catch((e: unknown) => {
      throw e instanceof EnvSourceError ? new ContainerConfigError('CreateContainerConfigError', e.message) : e;
    }));
    const facts = { nodeName: deps.nodeName, hostIP: deps.hostIP, podIP: sandbox.podIP, podIPs: sandbox.podIP ? [sandbox.podIP] : [], ...(user ? { image: user } : {}), ...(envObjects ? { envObjects } : {}) };
    const config = containerConfig(pod, spec, c.type, c.restartCount, facts, deps.container);
    await deps.volumes?.prepareSubPaths(pod, spec, config.mounts, signal).catch((e: unknown) => {
      throw signal.aborted ? e : new ContainerConfigError('CreateContainerConfigError', (e as Error).message);
    });
    await mkdir(`${sandbox.config.logDirectory}/${spec.name}`, { recursive: true });
    await sync.slot.hold(CONTAINER_STEP, sync.signal);
    id = await deps.runtime.createContainer(sandbox.id, config, sandbox.config, signal);
  } catch (e) {
    if (signal.aborted) throw e;
    deps.events?.event(ref, 'Warning', 'Failed', `Error: ${(e as Error).message}`);
    if (e instanceof ContainerConfigError || e instanceof SecurityConfigError) {
      result.waiting.set(spec.name, { reason: e.reason, message: e.message });
      return;
    }
    // The image may have been removed since it was found present: the retry asks the runtime again.
    deps.images.forget(spec.image);
    result.waiting.set(spec.name, { reason: 'CreateContainerError', message: (e as Error).message });
    return;
  }
  deps.events?.event(ref, 'Normal', 'Created', `Created container ${spec.name}`);
  const metricType = c.type === 'init' ? 'init_container' : 'container';
  try {
    await deps.runtime.startContainer(id, signal);
    deps.events?.event(ref, 'Normal', 'Started', `Started container ${spec.name}`);
    log.info('Started container', { container: spec.name, containerID: id, restartCount: c.restartCount, imagePulled: image.pulled });
    deps.metrics?.containerStart(metricType, undefined);
    deps.metrics?.podStartPhase(podRefLabels(pod), 'containers');
  } catch (e) {
    if (signal.aborted) throw e;
    deps.metrics?.containerStart(metricType, startErrorCode(e));
    deps.events?.event(ref, 'Warning', 'Failed', `Error: ${(e as Error).message}`);
    result.waiting.set(spec.name, { reason: 'RunContainerError', message: (e as Error).message });
    return;
  }
  // A postStart hook may run long: other pods' starts must not wait on it.
  if (spec.lifecycle?.postStart) sync.slot.release();
  const hookFailed = await runPostStart(deps, { pod, spec, containerId: id, podIP: sandbox.podIP !== '' ? sandbox.podIP : deps.hostIP }, signal);
  if (hookFailed) {
    deps.events?.event(ref, 'Warning', 'FailedPostStartHook', 'PostStartHook failed');
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

