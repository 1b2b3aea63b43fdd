// Admission against the node's pod capacity (--max-pods, capped by
// --pods-per-core): the kubelet rejects a pod beyond it at admission, and a
// rejected pod never starts. Pure; the sync step (sync-step.ts) counts the
// active pods and publishes the rejection.
import type { PodStatus } from '../pod-model/pod-types.js';

/** The kubelet's reason for a pod rejected over the pod cap (lifecycle.PredicateAdmitHandler: OutOf<resource>). */
export const OUT_OF_PODS = 'OutOfpods';

export type Admission = { readonly admitted: true } | { readonly admitted: false; readonly reason: string; readonly message: string };

/**
 * Whether one more pod fits beside `activePods` (the desired pods that have
 * not finished: a Succeeded or Failed pod does not count, as with the
 * kubelet's active pods).
 */
export function admitPod(activePods: number, maxPods: number): Admission {
  if (activePods < maxPods) return { admitted: true };
  return { admitted: false, reason: OUT_OF_PODS, message: `Node didn't have enough resource: pods, requested: 1, used: ${activePods}, capacity: ${maxPods}` };
}

/** The status a rejected pod keeps while its source declares it. */
export function rejectedStatus(rejection: { reason: string; message: string }): PodStatus {
  return { phase: 'Failed', reason: rejection.reason, message: rejection.message, conditions: [], containerStatuses: [] };
}

/** Whether a pod in `phase` has finished (and no longer counts against the cap). */
export const isFinished = (phase: string | undefined): boolean => phase === 'Succeeded' || phase === 'Failed';

