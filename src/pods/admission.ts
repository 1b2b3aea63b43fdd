// Admission: the node's sysctl allowlist (sysctls.ts; --allowed-unsafe-sysctls)
// and its pod capacity (--max-pods, capped by --pods-per-core). The kubelet
// rejects a pod that fails either at admission, and a rejected pod never
// starts. Pure; the sync step (sync-step.ts) counts the active pods and
// publishes the rejection.
import type { Pod, PodStatus } from '../pod-model/pod-types.js';
import { podSysctlRefusal, SYSCTL_FORBIDDEN, type SysctlAllowlist } from './sysctls.js';

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

/** A pod's sysctls against the node's allowlist (the kubelet's sysctl admit handler); no allowlist: not checked. */
export function admitSysctls(pod: Pod, allowlist: SysctlAllowlist | undefined): Admission {
  const refusal = allowlist === undefined ? undefined : podSysctlRefusal(allowlist, pod);
  return refusal === undefined ? { admitted: true } : { admitted: false, reason: SYSCTL_FORBIDDEN, message: refusal };
}

/**
 * Every admission rule in the kubelet's order (the sysctl handler is
 * registered before the resource predicates): the first rejection wins.
 */
export function admitOnNode(pod: Pod, activePods: number, rules: { maxPods: number; sysctls?: SysctlAllowlist }): Admission {
  const sysctls = admitSysctls(pod, rules.sysctls);
  return sysctls.admitted ? admitPod(activePods, rules.maxPods) : sysctls;
}

/** The status a rejected pod keeps while its source declares it. */
export function rejectedStatus(rejection: { reason: string; message: string }): PodStatus {
  return { phase: 'Failed', reason: rejection.reason, message: rejection.message, conditions: [], containerStatuses: [] };
}

/** Whether a pod in `phase` has finished (and no longer counts against the cap). */
export const isFinished = (phase: string | undefined): boolean => phase === 'Succeeded' || phase === 'Failed';

