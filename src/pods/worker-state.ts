// The life of one pod worker as an explicit state table (the kubelet's
// pod_workers.go: SyncPod → TerminatingPod → TerminatedPod). Pure: the sync
// step (sync-step.ts) asks for work here and applies the outcomes; nothing
// here runs work, keeps time or does I/O.
//
// Timeline of a pod:
//   (new) ── sync ──▶ syncing ── removed / rejected ──▶ terminating ── torn down ──▶ terminated
//   (new) ── an orphan (what the runtime holds and no source declares) ──▶ terminating
//   terminated ── the same UID declared again (a restored manifest) ──▶ syncing
// A removal while a sync runs cancels that sync; a teardown is never
// cancelled by a re-add: the pod is torn down first and then started again
// (the kubelet's restartRequested), so a half-stopped pod is never adopted.
// At most one piece of work runs per pod; a newer request replaces the
// pending one.
import { AgentError } from '../errors.js';

export type WorkerPhase = 'syncing' | 'terminating' | 'terminated';
export type Work = 'sync' | 'teardown';

/** The phases each phase may move to; `new` is a worker that has not run yet. */
export const TRANSITIONS: Readonly<Record<WorkerPhase | 'new', readonly WorkerPhase[]>> = {
  new: ['syncing', 'terminating'],
  syncing: ['syncing', 'terminating'],
  terminating: ['terminating', 'terminated'],
  terminated: ['syncing'],
};

/** A worker asked to move where its state table does not allow: a bug in the caller, never an operator error. */
export class IllegalTransitionError extends AgentError {
  override name = 'IllegalTransitionError';
  constructor(
    readonly podUID: string,
    readonly from: WorkerPhase | 'new',
    readonly to: WorkerPhase,
  ) {
    super('EINTERNAL', `pod worker ${podUID}: illegal transition of phase from ${from} to ${to}`, { field: 'phase' });
  }
}

export interface PodWorker {
  readonly uid: string;
  /** undefined until the worker first runs work. */
  phase: WorkerPhase | undefined;
  /** The work running now. */
  inFlight: Work | undefined;
  /** The work to run when the current one ends; a newer request replaces it. */
  pending: Work | undefined;
  /** Declared again while terminating: start it afresh once terminated. */
  restartRequested: boolean;
}

export const newWorker = (uid: string): PodWorker => ({ uid, phase: undefined, inFlight: undefined, pending: undefined, restartRequested: false });

/** Moves `w` to `to`; throws IllegalTransitionError when the table does not allow it. */
export function transition(w: PodWorker, to: WorkerPhase): void {
  const from = w.phase ?? 'new';
  if (!TRANSITIONS[from].includes(to)) throw new IllegalTransitionError(w.uid, from, to);
  w.phase = to;
}

/** What a request for work decided: run it now, cancel the running sync first, or nothing yet. */
export interface RequestDecision {
  /** Work to start now (nothing runs for this pod). */
  start?: Work;
  /** The sync in flight must be cancelled (a teardown was asked for). */
  cancel: boolean;
}

/**
 * Asks `w` for `work`. A teardown cancels a sync in flight and runs after it;
 * a sync asked while terminating becomes a restart after the teardown; any
 * other request while work runs replaces the pending one. With nothing in
 * flight the work starts (see begin()). Idempotent for the same request.
 */
export function request(w: PodWorker, work: Work): RequestDecision {
  if (work === 'sync' && w.phase === 'terminating') {
    w.restartRequested = true;
    // A teardown that failed or was held waits for its retry: go on with it now.
    if (w.inFlight === undefined) return { start: 'teardown', cancel: false };
    return { cancel: false };
  }
  if (work === 'teardown') {
    w.restartRequested = false;
    // Terminated is final for a teardown: the runtime holds nothing more of the pod.
    if (w.phase === 'terminated' && w.inFlight === undefined) return { cancel: false };
  }
  if (w.inFlight !== undefined) {
    w.pending = work;
    return { cancel: work === 'teardown' && w.inFlight === 'sync' };
  }
  return { start: work, cancel: false };
}

/** Marks `work` as started: the phase follows it (sync → syncing, teardown → terminating). */
export function begin(w: PodWorker, work: Work): void {
  transition(w, work === 'sync' ? 'syncing' : 'terminating');
  w.inFlight = work;
  w.pending = undefined;
}

/**
 * Marks the work in flight as ended. `tornDown`: a teardown finished (the
 * runtime holds nothing of the pod): the worker is terminated. Returns the
 * work to start next, if any.
 */
export function end(w: PodWorker, tornDown: boolean): Work | undefined {
  w.inFlight = undefined;
  if (tornDown) {
    transition(w, 'terminated');
    if (w.pending === 'teardown') w.pending = undefined;
    if (w.restartRequested) {
      w.restartRequested = false;
      w.pending = 'sync';
    }
  }
  const next = w.pending;
  w.pending = undefined;
  return next;
}
