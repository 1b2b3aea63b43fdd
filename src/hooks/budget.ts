// The time arithmetic of a preStop hook, pure: the hook and the stop share
// the termination grace period (the kubelet's killContainer): the hook may
// use all of it, the stop gets what is left in whole seconds, and never less
// than the minimum stop window.

/** The kubelet's minimumGracePeriodInSeconds (the same rule as src/pods/sync-pod.ts). */
export const MIN_STOP_SECONDS = 2;

/** The hook's budget in ms: the whole grace period; 0 means no hook runs (the kubelet runs it only with time left). */
export function preStopBudgetMs(gracePeriodSeconds: number): number {
  return gracePeriodSeconds > 0 ? gracePeriodSeconds * 1000 : 0;
}

/**
 * The grace period the stop call gets after a hook that took `elapsedMs`: the
 * grace period less the hook's whole seconds (the kubelet truncates), at
 * least MIN_STOP_SECONDS.
 */
export function stopSecondsAfterHook(gracePeriodSeconds: number, elapsedMs: number): number {
  const used = Math.floor(Math.max(0, elapsedMs) / 1000);
  return Math.max(MIN_STOP_SECONDS, gracePeriodSeconds - used);
}
