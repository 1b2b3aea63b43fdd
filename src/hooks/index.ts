// Lifecycle hooks (the kubelet's lifecycle/handlers.go and the hook steps of
// kuberuntime_container.go): postStart right after a container starts,
// preStop before its stop call. Both run their handler (exec or httpGet)
// through the prober's action runner (src/probes/run-action.ts).
//
// Callers: src/pods/sync-pod.ts, inside a pod's sync or teardown, under that
// work's signal. Both block for as long as the hook runs (postStart without a
// limit other than the signal, as the kubelet; preStop within the grace
// period) and never throw except on abort.
import type { RuntimeService } from '../cri/types.js';
import type { AgentLogger } from '../log/index.js';
import type { Container, LifecycleHandler, Pod } from '../pod-model/pod-types.js';
import type { ObservedPod } from '../runtime-view/observed.js';
import { runAction, userAgentFor } from '../probes/run-action.js';
import { preStopBudgetMs, stopSecondsAfterHook } from './budget.js';

export { MIN_STOP_SECONDS, preStopBudgetMs, stopSecondsAfterHook } from './budget.js';

/** What a hook needs of the pod wing's dependencies (SyncDeps has all of it). */
export interface HookDeps {
  readonly runtime: Pick<RuntimeService, 'execSync'>;
  /** The node's IP: the host of an httpGet hook in a host-network pod. */
  readonly hostIP: string;
  readonly log: AgentLogger;
  /** Monotonic ms; performance.now() by default. */
  readonly now?: () => number;
}

const USER_AGENT = userAgentFor('lifecycle');

/** Why a postStart hook failed: the container is killed, and waits with this reason until it restarts. */
export interface PostStartFailure {
  readonly reason: 'PostStartHookError';
  readonly message: string;
}

interface HookRun {
  handler: LifecycleHandler;
  containerId: string;
  containerName: string;
  podIP: string;
  ports: Container['ports'];
  podRef: string;
  timeoutMs: number;
}

/** Runs one hook; undefined on success, else the kubelet's failure message. Throws only when `signal` aborts. */
async function runHook(deps: HookDeps, h: HookRun, signal: AbortSignal): Promise<string | undefined> {
  const target = { containerId: h.containerId, podIP: h.podIP, ports: h.ports ?? [], timeoutMs: h.timeoutMs, signal };
  try {
    const r = await runAction(h.handler, target, { runtime: deps.runtime, userAgent: USER_AGENT });
    signal.throwIfAborted();
    if (h.handler.exec) {
      if (r.result === 'failure') return `Exec lifecycle hook (${JSON.stringify(h.handler.exec.command)}) for Container "${h.containerName}" in Pod "${h.podRef}" failed - error: ${r.output}`;
      return undefined;
    }
    // An HTTP hook fails only when no response came: the kubelet does not judge the status code.
    if (h.handler.httpGet && r.status === undefined) return `HTTP lifecycle hook (${h.handler.httpGet.path ?? '/'}) for Container "${h.containerName}" in Pod "${h.podRef}" failed - error: ${r.output}`;
    return undefined;
  } catch (e) {
    signal.throwIfAborted();
    return `lifecycle hook for Container "${h.containerName}" in Pod "${h.podRef}" failed - error: ${(e as Error).message}`;
  }
}

const podRef = (p: { namespace: string; name: string; uid: string }): string => `${p.namespace}/${p.name}(${p.uid})`;

/**
 * The container's postStart hook, if it has one, right after its start; its
 * failure is logged with reason FailedPostStartHook and returned (the caller
 * kills the container and it restarts per restartPolicy).
 */
export async function runPostStart(deps: HookDeps, c: { pod: Pod; spec: Container; containerId: string; podIP: string }, signal: AbortSignal): Promise<PostStartFailure | undefined> {
  const handler = c.spec.lifecycle?.postStart;
  if (!handler) return undefined;
  const ref = podRef(c.pod.metadata);
  const failed = await runHook(deps, { handler, containerId: c.containerId, containerName: c.spec.name, podIP: c.podIP, ports: c.spec.ports, podRef: ref, timeoutMs: 0 }, signal);
  if (failed === undefined) return undefined;
  deps.log.warn('Failed to execute PostStartHook', { pod: `${c.pod.metadata.namespace}/${c.pod.metadata.name}`, podUID: c.pod.metadata.uid, container: c.spec.name, containerID: c.containerId, reason: 'FailedPostStartHook', message: failed });
  return { reason: 'PostStartHookError', message: failed };
}

/**
 * The preStop hook of container instance `containerId` (read from its
 * annotation, so a pod whose spec is gone still gets it), within the grace
 * period; returns the grace period the stop call gets (what the hook left, at
 * least MIN_STOP_SECONDS). Without a hook, the grace period unchanged. A
 * failing or timed-out hook is logged (FailedPreStopHook) and the stop goes on.
 */
export async function runPreStop(deps: HookDeps, observed: ObservedPod | undefined, containerId: string, gracePeriodSeconds: number, signal: AbortSignal): Promise<number> {
  const c = observed?.containers.find((x) => x.id === containerId);
  const budgetMs = preStopBudgetMs(gracePeriodSeconds);
  if (!observed || !c?.preStop || budgetMs === 0 || c.state !== 'RUNNING') return gracePeriodSeconds;
  const sandbox = observed.sandboxes.find((s) => s.id === c.sandboxId);
  const podIP = sandbox === undefined || sandbox.hostNetwork || sandbox.ip === '' ? deps.hostIP : sandbox.ip;
  const now = deps.now ?? (() => performance.now());
  const began = now();
  const fields = { pod: `${observed.namespace}/${observed.name}`, podUID: observed.uid, container: c.name, containerID: c.id };
  const failed = await runHook(deps, { handler: c.preStop, containerId: c.id, containerName: c.name, podIP, ports: [], podRef: podRef(observed), timeoutMs: budgetMs }, signal);
  const elapsedMs = now() - began;
  if (elapsedMs >= budgetMs) deps.log.warn('PreStop hook not completed in grace period', { ...fields, reason: 'FailedPreStopHook', gracePeriod: gracePeriodSeconds });
  else if (failed !== undefined) deps.log.warn('PreStop hook failed', { ...fields, reason: 'FailedPreStopHook', message: failed });
  else deps.log.v(2)?.info('PreStop hook completed', { ...fields, elapsedMs: Math.round(elapsedMs) });
  return stopSecondsAfterHook(gracePeriodSeconds, elapsedMs);
}
