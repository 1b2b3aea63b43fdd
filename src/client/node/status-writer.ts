// The agent's status writers over a ResourceClient, with the kubelet's request
// shapes: node status (kubelet_node_status.go updateNodeStatus: up to 5
// immediate tries per cycle, the first GET served from the watch cache with
// resourceVersion=0, then a strategic-merge PATCH of nodes/<name>/status) and
// pod status (the status manager's syncPod: GET, skip a pod that is gone or
// was re-created, PATCH pods/<name>/status). Callers: the agent's node status
// loop and pod status manager, one call at a time per object; each call may
// block on the API (it takes the caller's signal) and is safe to repeat.
import { isNotFound } from '../../api/errors.js';
import { PATCH_STRATEGIC } from '../../api/media.js';
import type { ApiObject, ClientLog, ResourceClient } from '../types.js';
import { NodeWriterError } from './errors.js';
import { nodeStatusPatchBody, podStatusPatchBody } from './status-patch.js';
import { nameOf, uidOf } from '../meta.js';

/** kubelet's nodeStatusUpdateRetry. */
export const NODE_STATUS_UPDATE_RETRY = 5;

export interface StatusWriteResult {
  /** `unchanged`: no request was sent (nothing to say); `gone`: the object no longer exists or has another uid. */
  readonly outcome: 'patched' | 'unchanged' | 'gone';
  /** The server's answer to the patch, or the object the decision was made on; undefined when gone. */
  readonly object: ApiObject | undefined;
}


/**
 * Which GET the n-th try (0-based) of a node status cycle sends: the first
 * from the server's cache (resourceVersion=0, cheap), later ones a
 * consistent read, since a failed patch may come from a stale cached node.
 */
export const nodeStatusGetOptions = (attempt: number): { resourceVersion?: string } => (attempt === 0 ? { resourceVersion: '0' } : {});

/**
 * PATCH nodes/<name>/status from `oldNode` (as the server returned it) to
 * `newNode`; sends nothing when only the uid would be sent. One attempt:
 * rejects with the client's error.
 */
export async function patchNodeStatus(nodes: ResourceClient, oldNode: ApiObject, newNode: ApiObject, signal?: AbortSignal): Promise<StatusWriteResult> {
  const body = nodeStatusPatchBody(oldNode, newNode);
  if (body === undefined) return { outcome: 'unchanged', object: oldNode };
  const object = await nodes.patch(nameOf(oldNode), PATCH_STRATEGIC, body, { subresource: 'status', ...(signal === undefined ? {} : { signal }) });
  return { outcome: 'patched', object };
}

export interface UpdateNodeStatusOptions {
  readonly log: ClientLog;
  readonly signal?: AbortSignal;
  /** Default NODE_STATUS_UPDATE_RETRY. */
  readonly retries?: number;
  /** Called on the second and later failed try of one cycle (the kubelet closes idle connections then). */
  readonly onRepeatedFailure?: () => void;
}

/**
 * One node status cycle: GET the node, `desired(current)` gives the node to
 * report (undefined: nothing to report), PATCH the difference; tried again at
 * once on an API failure, up to `retries` times, then a NodeWriterError
 * with the last failure as cause. `desired` runs once per try and must not
 * throw; the signal's abort rejects with its reason.
 */
export async function updateNodeStatus(nodes: ResourceClient, nodeName: string, desired: (current: ApiObject) => ApiObject | undefined, opts: UpdateNodeStatusOptions): Promise<StatusWriteResult> {
  const retries = opts.retries ?? NODE_STATUS_UPDATE_RETRY;
  const signal = opts.signal;
  let last: unknown;
  for (let attempt = 0; attempt < retries; attempt++) {
    try {
      const current = await nodes.get(nodeName, { ...nodeStatusGetOptions(attempt), ...(signal === undefined ? {} : { signal }) });
      const next = desired(current);
      if (next === undefined) return { outcome: 'unchanged', object: current };
      return await patchNodeStatus(nodes, current, next, signal);
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason;
      last = err;
      if (attempt > 0) opts.onRepeatedFailure?.();
      opts.log.error('error updating node status, will retry', { node: nodeName, attempt: attempt + 1, error: err instanceof Error ? err.message : String(err) });
    }
  }
  throw new NodeWriterError('update node status', `nodes/${nodeName}`, retries, last);
}

/** What patchPodStatus sends: the pod, its uid, the server's status and the one to write. */
export interface PodStatusChange {
  readonly name: string;
  readonly uid: string;
  readonly oldStatus: ApiObject;
  readonly newStatus: ApiObject;
}

/**
 * PATCH pods/<name>/status (in the client's namespace) from `oldStatus` to
 * `newStatus` with the uid precondition; sends nothing when they are equal.
 * One attempt: rejects with the client's error.
 */
export async function patchPodStatus(pods: ResourceClient, change: PodStatusChange, signal?: AbortSignal): Promise<StatusWriteResult> {
  const body = podStatusPatchBody(change.uid, change.oldStatus, change.newStatus);
  if (body === undefined) return { outcome: 'unchanged', object: undefined };
  const object = await pods.patch(change.name, PATCH_STRATEGIC, body, { subresource: 'status', ...(signal === undefined ? {} : { signal }) });
  return { outcome: 'patched', object };
}

/**
 * The status manager's write of one pod: GET it (a consistent read), give up
 * quietly (`gone`) when it is not found or has another uid (deleted and
 * re-created: its status is not ours to write), else patch from the server's
 * status to `desired(current)` (undefined: nothing to write). One attempt;
 * the status manager retries on its next sync.
 */
export async function syncPodStatus(pods: ResourceClient, pod: { readonly name: string; readonly uid: string }, desired: (current: ApiObject) => ApiObject | undefined, signal?: AbortSignal): Promise<StatusWriteResult> {
  let current: ApiObject;
  try {
    current = await pods.get(pod.name, signal === undefined ? {} : { signal });
  } catch (err) {
    if (isNotFound(err)) return { outcome: 'gone', object: undefined };
    throw err;
  }
  if ((uidOf(current) ?? '') !== pod.uid) return { outcome: 'gone', object: undefined };
  const newStatus = desired(current);
  if (newStatus === undefined) return { outcome: 'unchanged', object: current };
  const status = current['status'];
  const oldStatus = typeof status === 'object' && status !== null && !Array.isArray(status) ? (status as ApiObject) : {};
  const res = await patchPodStatus(pods, { name: pod.name, uid: pod.uid, oldStatus, newStatus }, signal);
  return res.outcome === 'unchanged' ? { outcome: 'unchanged', object: current } : res;
}
