// One step of the sync loop (the kubelet's syncLoopIteration), as a plain
// function: handle(state, event) updates the loop's state and returns the
// commands to carry out. No timers, no I/O, no clock: the loop around it
// (sync-loop.ts) owns those, feeds every input in as an event (source
// updates, relists, resync ticks, retries, worker completions; later probe
// results) and runs the commands. Table-tested in test/unit/pods/.
import type { Pod, PodStatus } from '../pod-model/pod-types.js';
import { podRef } from '../pod-model/pod-types.js';
import type { PodUpdate } from '../sources/merger.js';
import { admitOnNode, rejectedStatus } from './admission.js';
import type { SysctlAllowlist } from './sysctls.js';
import { begin, end, newWorker, request, type PodWorker, type Work } from './worker-state.js';

/** The kubelet's retry after a failed pod sync. */
export const POD_ERROR_BACKOFF_MS = 10_000;

export interface StepConfig {
  /** Effective pod capacity (--max-pods, capped by --pods-per-core). */
  readonly maxPods: number;
  /** The node's sysctl allowlist (safe set and --allowed-unsafe-sysctls); absent: sysctls are not checked. */
  readonly sysctls?: SysctlAllowlist;
  /** The retry after a failed sync. */
  readonly errorBackoffMs: number;
}

/** What a sync reported, as data: the step decides the retry from it. */
export interface SyncReport {
  error?: Error;
  waiting: ReadonlyMap<string, { reason: string }>;
  retryAfterMs?: number;
  /** The sync started, stopped or removed something. */
  changed: boolean;
}

export type WorkOutcome =
  | { readonly kind: 'synced'; readonly report: SyncReport }
  /** The teardown stopped and removed what the runtime held. */
  | { readonly kind: 'torn-down' }
  /** The runtime holds nothing of the pod: nothing to tear down. */
  | { readonly kind: 'gone' }
  /** Logged by the worker; retried after the error back-off. */
  | { readonly kind: 'failed' }
  /** Its signal aborted (the pod removed, or the agent stopping). */
  | { readonly kind: 'cancelled' };

export type SyncEvent =
  /** The loop starts: pending work may run. */
  | { readonly kind: 'start' }
  /** The loop stops: nothing new runs (work in flight is aborted by the loop's signal). */
  | { readonly kind: 'stop' }
  /** Source updates from the merger; `finished`: pods whose published phase is Succeeded or Failed. */
  | { readonly kind: 'source'; readonly updates: readonly PodUpdate[]; readonly allSourcesSeen: boolean; readonly finished: ReadonlySet<string> }
  /** A relist: the pods it found changed, what the runtime holds, and the pods whose syncs were waiting for it. */
  | { readonly kind: 'relist'; readonly changed: ReadonlySet<string>; readonly present: ReadonlyMap<string, unknown>; readonly waited: ReadonlySet<string>; readonly allSourcesSeen: boolean }
  /** The --sync-frequency tick. */
  | { readonly kind: 'resync' }
  /** A retry scheduled by a `retry` command came due. */
  | { readonly kind: 'retry'; readonly uid: string }
  /** A probe verdict of one of the pod's containers changed (src/probes/): its sync acts on it now. */
  | { readonly kind: 'probe'; readonly uid: string }
  /** A pod's work ended. */
  | { readonly kind: 'done'; readonly uid: string; readonly outcome: WorkOutcome };

export type TeardownReason = 'removed' | 'rejected' | 'orphan';

export type Command =
  | { readonly kind: 'sync'; readonly uid: string; readonly pod: Pod }
  /** `gracePeriod` undefined: the pod's spec is unknown here; the worker reads it from the containers' annotations. */
  | { readonly kind: 'teardown'; readonly uid: string; readonly why: TeardownReason; readonly gracePeriod: number | undefined }
  /** Abort the pod's work in flight (its pull, create or start). */
  | { readonly kind: 'cancel'; readonly uid: string }
  | { readonly kind: 'set-status'; readonly pod: Pod; readonly status: PodStatus }
  | { readonly kind: 'drop-status'; readonly uid: string }
  /** Post a `retry` event after `delayMs` (an earlier one already scheduled for the pod stands). */
  | { readonly kind: 'retry'; readonly uid: string; readonly delayMs: number }
  /** A source changed the pod: its sync must not wait out the relist period for a fresh view. */
  | { readonly kind: 'hurry-relist'; readonly uid: string }
  /** The pod's worker is gone: drop what the loop keeps for it. */
  | { readonly kind: 'forget'; readonly uid: string }
  /** The last running work ended: `changes` syncs since the previous report changed the runtime. */
  | { readonly kind: 'settled'; readonly changes: number }
  /** The resync's housekeeping: back-off entries and image answers age out. */
  | { readonly kind: 'housekeeping' }
  | { readonly kind: 'log'; readonly level: 'info' | 'warn'; readonly msg: string; readonly fields: Record<string, unknown>; /** Also a Warning event about the pod (an admission rejection). */ readonly event?: { readonly pod: Pod; readonly reason: string; readonly message: string } };

export interface PodRecord {
  /** The admitted spec a source declares. */
  desired: Pod | undefined;
  /** Removed from every source: its spec kept (for the grace period) until it is torn down. */
  removed: Pod | undefined;
  /** Rejected at admission: it never runs here; an edit is admitted afresh. */
  rejected: Pod | undefined;
  readonly worker: PodWorker;
}

export interface LoopState {
  readonly config: StepConfig;
  /** Between `start` and `stop`: work may run. */
  running: boolean;
  /** Every source has reported once: absence from them now means "tear down". */
  allSourcesSeen: boolean;
  /** The first relist after every source reported has been checked for orphans. */
  orphansChecked: boolean;
  /** Pods with work in flight. */
  busy: number;
  changesSinceSettled: number;
  readonly pods: Map<string, PodRecord>;
}

export const initialState = (config: StepConfig): LoopState => ({ config, running: false, allSourcesSeen: false, orphansChecked: false, busy: 0, changesSinceSettled: 0, pods: new Map() });

/**
 * When to sync the pod again without a change to prompt it. Like the kubelet's
 * pod worker, a sync that failed (an error, or a container left waiting on a
 * failure: image, create or start) is retried after the error back-off; a
 * crash-looping container at the end of its back-off (if sooner).
 */
export function retryDelay(result: { error?: Error; waiting: ReadonlyMap<string, { reason: string }>; retryAfterMs?: number }, errorBackoffMs: number): number | undefined {
  const failed = result.error !== undefined || [...result.waiting.values()].some((w) => w.reason !== 'CrashLoopBackOff');
  const backoffEnds = result.retryAfterMs === undefined ? undefined : result.retryAfterMs + 50;
  if (!failed) return backoffEnds;
  return Math.min(errorBackoffMs, backoffEnds ?? Infinity);
}

/** Handles one event: updates `state` and returns the commands to run, in order. */
export function handle(state: LoopState, event: SyncEvent): Command[] {
  const out: Command[] = [];
  switch (event.kind) {
    case 'start':
      state.running = true;
      for (const [uid, rec] of state.pods) if (rec.worker.pending !== undefined) want(state, uid, rec.worker.pending, out);
      break;
    case 'stop':
      state.running = false;
      break;
    case 'source':
      state.allSourcesSeen ||= event.allSourcesSeen;
      for (const u of event.updates) onUpdate(state, u, event.finished, out);
      break;
    case 'relist':
      onRelist(state, event, out);
      break;
    case 'resync':
      for (const [uid, rec] of state.pods) if (rec.desired) want(state, uid, 'sync', out);
      out.push({ kind: 'housekeeping' });
      break;
    case 'retry': {
      const rec = state.pods.get(event.uid);
      if (rec) want(state, event.uid, rec.desired ? 'sync' : 'teardown', out);
      break;
    }
    case 'done':
      onDone(state, event.uid, event.outcome, out);
      break;
    case 'probe':
      if (state.pods.get(event.uid)?.desired) want(state, event.uid, 'sync', out);
      break;
  }
  return out;
}

function record(state: LoopState, uid: string): PodRecord {
  let rec = state.pods.get(uid);
  if (!rec) {
    rec = { desired: undefined, removed: undefined, rejected: undefined, worker: newWorker(uid) };
    state.pods.set(uid, rec);
  }
  return rec;
}

/** Desired pods that have not finished: the ones admission counts, as the kubelet's active pods. */
function activePods(state: LoopState, finished: ReadonlySet<string>): number {
  let n = 0;
  for (const [uid, rec] of state.pods) if (rec.desired && !finished.has(uid)) n++;
  return n;
}

function onUpdate(state: LoopState, u: PodUpdate, finished: ReadonlySet<string>, out: Command[]): void {
  const uid = u.pod.metadata.uid;
  const fields = { pod: podRef(u.pod), podUID: uid, source: u.source };
  const rec = record(state, uid);
  if (u.op === 'REMOVE') {
    stopPod(state, { uid, rec, pod: u.pod, fields, announce: true, neverRan: 'Rejected pod removed from its source; it never ran', stopping: 'Pod removed from its source; stopping it' }, out);
    return;
  }
  if (deletedThroughApi(u.pod)) {
    onApiDeletion(state, uid, rec, u.pod, out);
    return;
  }
  // The kubelet gives an edited static pod a new UID and admits it as a new
  // pod; here the UID survives the edit (static-pod.ts), so an edit of a
  // rejected pod is admitted again, as is an ADD whatever came before.
  if (u.op === 'ADD' || rec.rejected) {
    const admission = admitOnNode(u.pod, activePods(state, finished), state.config);
    if (!admission.admitted) {
      rec.rejected = u.pod;
      out.push(
        { kind: 'log', level: 'warn', msg: 'Pod rejected at admission', fields: { pod: podRef(u.pod), podUID: uid, reason: admission.reason, message: admission.message }, event: { pod: u.pod, reason: admission.reason, message: admission.message } },
        { kind: 'set-status', pod: u.pod, status: rejectedStatus(admission) },
      );
      return;
    }
    // An earlier rejection's Failed status is stale now.
    if (rec.rejected) out.push({ kind: 'drop-status', uid });
    rec.rejected = undefined;
  }
  rec.desired = u.pod;
  rec.removed = undefined;
  out.push({ kind: 'log', level: 'info', msg: u.op === 'ADD' ? 'Pod added' : 'Pod changed', fields }, { kind: 'hurry-relist', uid });
  want(state, uid, 'sync', out);
}

/** A pod the API server is deleting (deletionTimestamp set): it runs no more, whatever else changed. */
export const deletedThroughApi = (pod: Pod): boolean => pod.metadata.deletionTimestamp !== undefined;

/**
 * A pod deleted through the API is stopped as a removed one is, with the
 * deletion's grace period (deletionGracePeriodSeconds, see run()), while its
 * source still lists it: the pod status sync (src/pod-sync) writes its final
 * status and deletes the object once its status is dropped here.
 */
function onApiDeletion(state: LoopState, uid: string, rec: PodRecord, pod: Pod, out: Command[]): void {
  const fields = { pod: podRef(pod), podUID: uid, gracePeriod: pod.metadata.deletionGracePeriodSeconds };
  // Each update of a pod being deleted comes here again: said once.
  const announce = rec.removed === undefined;
  stopPod(state, { uid, rec, pod, fields, announce, neverRan: 'Rejected pod deleted through the API; it never ran', stopping: 'Pod deleted through the API; stopping it' }, out);
}

interface Stop {
  readonly uid: string;
  readonly rec: PodRecord;
  readonly pod: Pod;
  readonly fields: Record<string, unknown>;
  /** Whether to log `stopping` (and hurry the relist). */
  readonly announce: boolean;
  readonly neverRan: string;
  readonly stopping: string;
}

/** A pod that should run no more (removed from its source, or deleted through the API): torn down, or forgotten if it never ran. */
function stopPod(state: LoopState, x: Stop, out: Command[]): void {
  const { uid, rec } = x;
  rec.desired = undefined;
  if (rec.rejected) {
    // It never ran here: nothing to stop. (What a previous agent left running
    // for it is torn down as an orphan, once every source has reported.)
    rec.rejected = undefined;
    out.push({ kind: 'drop-status', uid }, { kind: 'log', level: 'info', msg: x.neverRan, fields: x.fields });
    forgetIfIdle(state, uid, rec, out);
    return;
  }
  if (x.announce) out.push({ kind: 'log', level: 'info', msg: x.stopping, fields: x.fields }, { kind: 'hurry-relist', uid });
  rec.removed = x.pod;
  want(state, uid, 'teardown', out);
}

function onRelist(state: LoopState, event: Extract<SyncEvent, { kind: 'relist' }>, out: Command[]): void {
  state.allSourcesSeen ||= event.allSourcesSeen;
  for (const uid of event.changed) {
    // A sync waiting for this relist sees the change itself.
    if (event.waited.has(uid)) continue;
    const rec = state.pods.get(uid);
    if (rec?.desired) want(state, uid, 'sync', out);
    else if (state.allSourcesSeen && (rec !== undefined || event.present.has(uid))) want(state, uid, 'teardown', out);
  }
  if (!state.orphansChecked && state.allSourcesSeen) {
    state.orphansChecked = true;
    for (const uid of event.present.keys()) if (!state.pods.get(uid)?.desired) want(state, uid, 'teardown', out);
    // Removals held until every source reported.
    for (const [uid, rec] of state.pods) if (rec.removed && rec.worker.inFlight === undefined && !event.present.has(uid)) want(state, uid, 'teardown', out);
  }
}

/**
 * Asks the pod's worker for `work` and starts it when it may start now. A
 * teardown waits until every source has reported (a pod unknown to them may
 * still come back), and nothing starts before the loop runs.
 */
function want(state: LoopState, uid: string, work: Work, out: Command[]): void {
  const rec = record(state, uid);
  const w = rec.worker;
  const decision = request(w, work);
  if (decision.cancel) out.push({ kind: 'cancel', uid });
  if (decision.start === undefined) return;
  if (!state.running || (decision.start === 'teardown' && !state.allSourcesSeen)) {
    w.pending = decision.start;
    return;
  }
  run(state, uid, rec, decision.start, out);
}

function run(state: LoopState, uid: string, rec: PodRecord, work: Work, out: Command[]): void {
  if (work === 'sync') {
    if (!rec.desired) return;
    begin(rec.worker, 'sync');
    out.push({ kind: 'sync', uid, pod: rec.desired });
  } else {
    begin(rec.worker, 'teardown');
    const spec = rec.removed ?? rec.rejected;
    out.push({ kind: 'teardown', uid, why: rec.removed ? 'removed' : rec.rejected ? 'rejected' : 'orphan', gracePeriod: spec?.metadata.deletionGracePeriodSeconds ?? spec?.spec.terminationGracePeriodSeconds });
  }
  state.busy++;
}

function onDone(state: LoopState, uid: string, outcome: WorkOutcome, out: Command[]): void {
  const rec = state.pods.get(uid);
  if (!rec || rec.worker.inFlight === undefined) return;
  state.busy--;
  const tornDown = outcome.kind === 'torn-down' || outcome.kind === 'gone';
  if (outcome.kind === 'synced') {
    if (outcome.report.changed) state.changesSinceSettled++;
    const retry = retryDelay(outcome.report, state.config.errorBackoffMs);
    if (retry !== undefined) out.push({ kind: 'retry', uid, delayMs: retry });
  } else if (outcome.kind === 'torn-down') {
    state.changesSinceSettled++;
  } else if (outcome.kind === 'failed') {
    out.push({ kind: 'retry', uid, delayMs: state.config.errorBackoffMs });
  }
  if (tornDown) {
    rec.removed = undefined;
    // A rejected pod keeps its rejection as its status while its source declares it.
    if (!rec.desired && !rec.rejected) out.push({ kind: 'drop-status', uid });
  }
  const next = end(rec.worker, tornDown);
  if (next !== undefined) want(state, uid, next, out);
  forgetIfIdle(state, uid, rec, out);
  if (state.busy === 0) {
    out.push({ kind: 'settled', changes: state.changesSinceSettled });
    state.changesSinceSettled = 0;
  }
}

/** A pod no source declares, with nothing running or left to do, is forgotten. */
function forgetIfIdle(state: LoopState, uid: string, rec: PodRecord, out: Command[]): void {
  const w = rec.worker;
  if (rec.desired || rec.removed || rec.rejected || w.inFlight || w.pending || w.phase === 'terminating') return;
  state.pods.delete(uid);
  out.push({ kind: 'forget', uid });
}

/** The pods the sources declare and admission let in. */
export function desiredPods(state: LoopState): Pod[] {
  const out: Pod[] = [];
  for (const rec of state.pods.values()) if (rec.desired) out.push(rec.desired);
  return out;
}
