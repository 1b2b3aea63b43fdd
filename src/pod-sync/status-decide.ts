// The pod status sync's decisions, pure and table-tested
// (test/unit/pod-sync/): which API object a pod's status goes to, the status
// body the agent writes (merged with what others own on the server), the
// final status of a pod whose teardown ended (the kubelet's status manager
// TerminatePod), and whether an API pod may now be deleted (canBeDeleted).
import type { ApiObject } from '../client/types.js';
import type { ContainerStatus, Pod, PodStatus } from '../pod-model/pod-types.js';
import { ANNOTATION_HASH, ANNOTATION_MIRROR, ANNOTATION_SOURCE } from '../sources/static-pod.js';

/** Where a pod's status is written: the API pod itself, or the mirror pod of a static pod (matched by hash). */
export type StatusTarget = { readonly kind: 'api' } | { readonly kind: 'mirror'; readonly hash: string };

/** The condition types the agent owns on a pod; the others (PodScheduled, DisruptionTarget, readiness gates) are kept as the server has them. */
export const AGENT_CONDITIONS: ReadonlySet<string> = new Set(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady']);

/** The kubelet's status for a container it could not find when its pod ended (status manager TerminatePod). */
export const CONTAINER_STATUS_UNKNOWN = { reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', exitCode: 137 } as const;

/** undefined: a pod whose status has no place in the API (no source annotation: never the case for the agent's sources). */
export function statusTarget(pod: Pod): StatusTarget | undefined {
  const a = pod.metadata.annotations;
  const source = a[ANNOTATION_SOURCE];
  if (source === 'api') return { kind: 'api' };
  if ((source === 'file' || source === 'http') && a[ANNOTATION_HASH] !== undefined) return { kind: 'mirror', hash: a[ANNOTATION_HASH] };
  return undefined;
}

const rec = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** Whether `obj` is the mirror pod of the static pod with content hash `hash`. */
export const isMirrorOf = (obj: ApiObject, hash: string): boolean => rec(rec(obj['metadata'])['annotations'])[ANNOTATION_MIRROR] === hash;

/** The JSON form of a status: fields left undefined are absent (the patch must not carry them). */
export function apiStatusOf(status: PodStatus): ApiObject {
  return JSON.parse(JSON.stringify(status)) as ApiObject;
}

/**
 * The status to write over `server` (the API's current status): the agent's
 * status with the server's conditions of types the agent does not own kept
 * (a strategic-merge patch would otherwise delete them), as the kubelet's
 * mergePodStatus does.
 */
export function mergedStatus(ours: ApiObject, server: ApiObject): ApiObject {
  const mine = Array.isArray(ours['conditions']) ? (ours['conditions'] as unknown[]) : [];
  const owned = new Set(mine.map((c) => rec(c)['type']));
  const theirs = (Array.isArray(server['conditions']) ? (server['conditions'] as unknown[]) : []).filter((c) => {
    const t = rec(c)['type'];
    return typeof t === 'string' && !AGENT_CONDITIONS.has(t) && !owned.has(t);
  });
  return { ...ours, conditions: [...mine, ...theirs] };
}

function terminated(c: ContainerStatus): ContainerStatus {
  if (c.state.terminated !== undefined) return { ...c, ready: false, started: false };
  return { ...c, ready: false, started: false, state: { terminated: { ...CONTAINER_STATUS_UNKNOWN } } };
}

/**
 * The last status of a pod whose teardown ended, from the last status the
 * agent had for it (`last`, undefined when it never ran): every container
 * terminated (one still running or waiting gets the kubelet's
 * ContainerStatusUnknown, exit 137), the phase terminal (Succeeded stays,
 * everything else becomes Failed, as the kubelet's TerminatePod does for
 * API pods), Ready and ContainersReady False.
 */
export function finalStatus(last: PodStatus | undefined, server: ApiObject): ApiObject {
  if (last === undefined) {
    const phase = server['phase'] === 'Succeeded' ? 'Succeeded' : 'Failed';
    return { ...server, phase };
  }
  const containerStatuses = last.containerStatuses.map(terminated);
  const initContainerStatuses = last.initContainerStatuses?.map(terminated);
  const phase = last.phase === 'Succeeded' ? 'Succeeded' : 'Failed';
  const reason = phase === 'Succeeded' ? 'PodCompleted' : 'PodFailed';
  const conditions = last.conditions.map((c) => (c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: 'False' as const, reason, message: undefined } : c));
  return apiStatusOf({ ...last, phase, conditions, containerStatuses, ...(initContainerStatuses === undefined ? {} : { initContainerStatuses }) });
}

/** What the status sync does with one API pod after reading it. */
export type ApiPodAction = 'forget' | 'patch' | 'finish';

/**
 * The status sync's decision for an API pod: `forget` when it is gone (or
 * re-created under another uid), or its status was dropped without a
 * deletion (the pod is not ours to finish); `finish` (write the final status,
 * then delete with the uid precondition) when the API is deleting it and the
 * agent is done with it; `patch` otherwise.
 */
export function apiPodAction(current: ApiObject | undefined, uid: string, dropped: boolean): ApiPodAction {
  if (current === undefined || rec(current['metadata'])['uid'] !== uid) return 'forget';
  const deleting = typeof rec(current['metadata'])['deletionTimestamp'] === 'string';
  if (!dropped) return 'patch';
  return deleting ? 'finish' : 'forget';
}
