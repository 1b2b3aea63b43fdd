// The work a pod worker runs: one sync, or one teardown, of one pod, under
// that pod's own signal (aborted when the pod is removed or the agent stops,
// which cancels its pull, create or start in flight). The effectful half of
// the worker: the sync loop (sync-loop.ts) starts it for a `sync` or
// `teardown` command and posts the outcome back as a `done` event. Never
// rejects: every failure becomes an outcome.
import type { Pod } from '../pod-model/pod-types.js';
import type { AgentLogger } from '../log/index.js';
import { observePod } from '../runtime-view/observe.js';
import type { ObservedPod } from '../runtime-view/observed.js';
import { changesRuntime } from './actions.js';
import type { PodCache } from './pod-cache.js';
import type { TeardownReason, WorkOutcome } from './sync-step.js';
import { syncPod, teardownPod, type SyncDeps } from './sync-pod.js';

/** The grace period of a pod whose spec is unknown and whose containers record none (the API default). */
const DEFAULT_GRACE_PERIOD_SECONDS = 30;

export interface WorkerDeps {
  readonly sync: SyncDeps;
  readonly cache: PodCache;
  /** The pod's admitted spec now (read after the wait for a relist: a source may have changed it meanwhile). */
  readonly desired: (uid: string) => Pod | undefined;
  /** Publishes the status computed from the state seen before the sync acted (as the kubelet does). */
  readonly publish: (pod: Pod, observed: ObservedPod, waiting: ReadonlyMap<string, { reason: string; message: string }>) => void;
  readonly log: AgentLogger;
}

/** One piece of a pod's work: `since` is when its previous work ended (the cache serves no older view). */
export interface WorkRequest {
  readonly uid: string;
  readonly since: number;
  readonly signal: AbortSignal;
}

/** The pod's runtime state, no older than its previous work: from the relist cache, else read fresh. */
async function view(deps: WorkerDeps, req: WorkRequest): Promise<ObservedPod> {
  const cached = await deps.cache.getNewerThan(req.uid, req.since, req.signal);
  if (cached) return cached;
  // Cancelled while waiting: no runtime call for a pod whose work is over.
  req.signal.throwIfAborted();
  return observePod(deps.sync.runtime, req.uid, req.signal);
}

export async function runSync(deps: WorkerDeps, req: WorkRequest): Promise<WorkOutcome> {
  const { uid, signal } = req;
  try {
    const observed = await view(deps, req);
    const pod = deps.desired(uid);
    if (!pod || signal.aborted) return { kind: 'cancelled' };
    const result = await syncPod(pod, observed, deps.sync, signal);
    // Cancelled (the pod removed, the agent stopping): its status is not this sync's to publish.
    if (signal.aborted) return { kind: 'cancelled' };
    // Published from the state seen before acting, as the kubelet does: the next
    // relist sees what the sync changed and brings the status up to date.
    deps.publish(pod, observed, result.waiting);
    if (result.error) deps.log.error('Error syncing pod, skipping', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, podUID: uid, err: result.error });
    const report = { waiting: result.waiting, changed: changesRuntime(result.actions), ...(result.error ? { error: result.error } : {}), ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}) };
    return { kind: 'synced', report };
  } catch (e) {
    if (signal.aborted) return { kind: 'cancelled' };
    deps.log.error('Error syncing pod, skipping', { podUID: uid, err: e });
    return { kind: 'failed' };
  }
}

const WHY: Record<TeardownReason, string> = {
  removed: 'Tearing down pod',
  rejected: 'Tearing down a pod rejected at admission',
  orphan: 'Tearing down a pod no source declares',
};

/** Stops and removes what the runtime holds of the pod; `gracePeriod` undefined: read from its containers. */
export async function runTeardown(deps: WorkerDeps, req: WorkRequest, why: TeardownReason, gracePeriod: number | undefined): Promise<WorkOutcome> {
  const { uid, signal } = req;
  try {
    const observed = await view(deps, req);
    if (observed.sandboxes.length === 0 && observed.containers.length === 0) return { kind: 'gone' };
    const grace = gracePeriod ?? graceFromAnnotations(observed);
    const pod = `${observed.namespace}/${observed.name}`;
    deps.log.info(WHY[why], { pod, podUID: uid, gracePeriod: grace });
    await teardownPod(observed, grace, deps.sync, signal);
    deps.log.info('Pod torn down', { pod, podUID: uid });
    return { kind: 'torn-down' };
  } catch (e) {
    if (signal.aborted) return { kind: 'cancelled' };
    deps.log.error('Error syncing pod, skipping', { podUID: uid, err: e });
    return { kind: 'failed' };
  }
}

/** The grace period recorded on the containers of a pod whose spec is unknown (e.g. after a restart). */
function graceFromAnnotations(observed: ObservedPod): number {
  for (const c of observed.containers) if (c.gracePeriodSeconds !== undefined) return c.gracePeriodSeconds;
  return DEFAULT_GRACE_PERIOD_SECONDS;
}
