// A probe worker's decisions (the kubelet's prober/worker.go doProbe), pure:
// before each probe, whether to probe now (and which results the container's
// change implies); after it, whether the thresholds turn the result into a
// new verdict. The timer-driven worker (worker.ts) carries these out;
// table-tested in test/unit/probes/worker-state.test.ts.
import type { Probe } from '../pod-model/pod-types.js';
import type { ProbeKind, ProbeOutcome } from './view.js';

/** A probe with the API's defaults applied (the decoder leaves 0 or absent for "default"). */
export interface EffectiveProbe {
  readonly initialDelaySeconds: number;
  readonly timeoutSeconds: number;
  readonly periodSeconds: number;
  readonly successThreshold: number;
  readonly failureThreshold: number;
}

/** The API defaults: timeout 1 s, period 10 s, thresholds 1 and 3, no initial delay; 0 means the default, as the API defaults it. */
export function effectiveProbe(p: Probe): EffectiveProbe {
  const or = (v: number | undefined, d: number): number => (v === undefined || v <= 0 ? d : v);
  return {
    initialDelaySeconds: Math.max(0, p.initialDelaySeconds ?? 0),
    timeoutSeconds: or(p.timeoutSeconds, 1),
    periodSeconds: or(p.periodSeconds, 10),
    successThreshold: or(p.successThreshold, 1),
    failureThreshold: or(p.failureThreshold, 3),
  };
}

/** Each kind's result for a new container instance before any probe: the kubelet's initialValue (startup: unknown). */
export const INITIAL_OUTCOME: Readonly<Record<ProbeKind, ProbeOutcome | undefined>> = { liveness: 'success', readiness: 'failure', startup: undefined };

export interface WorkerState {
  /** The container instance probed; '' before one is seen. */
  containerId: string;
  lastResult: ProbeOutcome | undefined;
  /** How many probes in a row gave lastResult. */
  resultRun: number;
  /** After a liveness/startup failure: no probing until a new instance. */
  onHold: boolean;
}

export const newWorkerState = (): WorkerState => ({ containerId: '', lastResult: undefined, resultRun: 0, onHold: false });

/** The newest instance of the probed container as the relist last saw it. */
export interface ContainerView {
  readonly id: string;
  readonly running: boolean;
  /** It ran and stopped (not merely created and not started yet). */
  readonly exited: boolean;
  /** Wall-clock ms of its start; 0 when not started. */
  readonly startedAtMs: number;
  /** Exited and will not be started again (restartPolicy): the worker ends. */
  readonly final: boolean;
}

export interface Observation {
  /** undefined: not created yet (or gone): wait. */
  readonly container: ContainerView | undefined;
  /** Wall-clock ms now. */
  readonly nowMs: number;
  /** The container counts as started: its startup probe succeeded, or it has none. */
  readonly started: boolean;
}

/** A change to the published results. `outcome` undefined: unknown. */
export type ResultEffect = { readonly op: 'set'; readonly containerId: string; readonly outcome: ProbeOutcome | undefined } | { readonly op: 'remove'; readonly containerId: string };

export interface BeforeProbe {
  readonly next: 'probe' | 'skip' | 'stop';
  readonly effects: readonly ResultEffect[];
}

/** What to do at a tick; updates `s` (a new instance resets it). */
export function beforeProbe(s: WorkerState, kind: ProbeKind, spec: EffectiveProbe, o: Observation): BeforeProbe {
  const c = o.container;
  if (!c) return { next: 'skip', effects: [] };
  const effects: ResultEffect[] = [];
  if (c.id !== s.containerId) {
    if (s.containerId !== '') effects.push({ op: 'remove', containerId: s.containerId });
    s.containerId = c.id;
    s.lastResult = undefined;
    s.resultRun = 0;
    s.onHold = false;
    effects.push({ op: 'set', containerId: c.id, outcome: INITIAL_OUTCOME[kind] });
  }
  if (s.onHold) return { next: 'skip', effects };
  // Created, not started yet (the relist caught it between create and start): wait.
  if (!c.running && !c.exited) return { next: 'skip', effects };
  if (!c.running) {
    // The worker ends when the container will not run again (its result goes with it);
    // otherwise a container that is not running fails every probe until it restarts.
    if (c.final) return { next: 'stop', effects };
    effects.push({ op: 'set', containerId: c.id, outcome: 'failure' });
    return { next: 'skip', effects };
  }
  if (Math.trunc((o.nowMs - c.startedAtMs) / 1000) < spec.initialDelaySeconds) return { next: 'skip', effects };
  // Startup probes run until the container has started; the others only after.
  if (o.started !== (kind !== 'startup')) return { next: 'skip', effects };
  return { next: 'probe', effects };
}

/** Applies a probe's result (a warning counts as a success); the verdict changes once a threshold is reached. */
export function afterProbe(s: WorkerState, kind: ProbeKind, spec: EffectiveProbe, result: ProbeOutcome): ResultEffect[] {
  if (s.lastResult === result) s.resultRun++;
  else {
    s.lastResult = result;
    s.resultRun = 1;
  }
  const threshold = result === 'failure' ? spec.failureThreshold : spec.successThreshold;
  if (s.resultRun < threshold) return [];
  if (kind !== 'readiness' && result === 'failure') {
    // The container will be restarted: probing it again meanwhile only races with its stop.
    s.onHold = true;
    s.resultRun = 0;
  }
  return [{ op: 'set', containerId: s.containerId, outcome: result }];
}
