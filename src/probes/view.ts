// The read side of the prober, as the pod decisions (actions.ts) and the
// status (status/compute.ts) see it: the latest result of each probe kind per
// container instance (CRI container ID). Kept separate from the prober's
// workers so that the pure decision functions depend on data, not on timers.

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

/** A probe's latest verdict after its thresholds (success/failureThreshold) are applied. */
export type ProbeOutcome = 'success' | 'failure';

export interface ProbeResultsView {
  /**
   * The latest outcome of `kind` for the container instance `containerId`;
   * undefined when none yet (the probe has not run, its container has no such
   * probe, or the instance is gone). Never blocks; cheap enough for every sync.
   */
  get(kind: ProbeKind, containerId: string): ProbeOutcome | undefined;
}

/** No prober (tests, --print-plan before the prober exists): every probe without a result. */
export const NO_PROBE_RESULTS: ProbeResultsView = { get: () => undefined };
