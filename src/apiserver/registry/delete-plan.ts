// What a delete does to one object (upstream's rest.BeforeDelete plus the
// store's updateForGracefulDeletionAndFinalizers), decided without I/O:
// answer "already being deleted", mark the object (deletionTimestamp,
// deletionGracePeriodSeconds) and keep it (finalizers, a grace period), or
// remove it. Also the DeleteOptions checks (422 naming the field).
import { apiErrors, type FieldError } from '../../api/errors.js';
import { timestamp } from './object.js';
import type { ApiObject, DeleteOptions, Strategy } from './types.js';

export type DeletePlan =
  /** Graceful deletion already runs and was not shortened: answer the object as it is. */
  | { kind: 'pending' }
  /** Write `mark` into metadata (if given), then remove the object when `remove`. */
  | { kind: 'proceed'; mark: { deletionTimestamp: string; deletionGracePeriodSeconds: number } | undefined; remove: boolean };

const POLICIES: readonly string[] = ['Foreground', 'Background', 'Orphan'];

/** upstream's ValidateDeleteOptions (DeleteOptions.meta.platform.io). */
export function validateDeleteOptions(opts: DeleteOptions): void {
  const errs: FieldError[] = [];
  if (opts.orphanDependents !== undefined && opts.propagationPolicy !== undefined) {
    errs.push({ type: 'FieldValueInvalid', field: 'propagationPolicy', value: opts.propagationPolicy, detail: 'orphanDependents and deletionPropagation cannot be both set' });
  }
  if (opts.propagationPolicy !== undefined && !POLICIES.includes(opts.propagationPolicy)) {
    errs.push({ type: 'FieldValueNotSupported', field: 'propagationPolicy', value: opts.propagationPolicy, supported: [...POLICIES, 'nil'] });
  }
  if (errs.length > 0) throw apiErrors.invalid({ group: 'meta.platform.io', kind: 'DeleteOptions' }, '', errs);
}

/** 409 when a precondition does not hold, with upstream's wording. */
export function checkPreconditions(obj: ApiObject, opts: DeleteOptions, strategy: Strategy): void {
  const p = opts.preconditions;
  if (p === undefined) return;
  const gr = { group: strategy.info.group, resource: strategy.info.kind };
  const name = obj.metadata.name ?? '';
  if (p.uid !== undefined && p.uid !== obj.metadata.uid) {
    throw apiErrors.conflict(gr, name, `the UID in the precondition (${p.uid}) does not match the UID in record (${obj.metadata.uid ?? ''}). The object might have been deleted and then recreated`);
  }
  if (p.resourceVersion !== undefined && p.resourceVersion !== obj.metadata.resourceVersion) {
    throw apiErrors.conflict(gr, name, `the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${obj.metadata.resourceVersion ?? ''}). The object might have been modified`);
  }
}

const secondsOf = (ts: string): number => Date.parse(ts);

/** The plan for deleting `obj` (as stored now) at `now` (ms). */
export function planDelete(strategy: Strategy, obj: ApiObject, opts: DeleteOptions, now: number): DeletePlan {
  const meta = obj.metadata;
  const requested = opts.gracePeriodSeconds !== undefined && opts.gracePeriodSeconds < 0 ? 1 : opts.gracePeriodSeconds;
  const hasFinalizers = (meta.finalizers ?? []).length > 0;
  let graceful: { deletionTimestamp: string; deletionGracePeriodSeconds: number } | undefined;
  if (strategy.gracePeriod !== undefined) {
    if (meta.deletionTimestamp !== undefined) {
      const current = meta.deletionGracePeriodSeconds;
      if (current !== undefined && current !== 0) {
        // Only a shorter grace period may be asked for; the deadline moves by the difference.
        if (requested === undefined || requested >= current) return { kind: 'pending' };
        const at = secondsOf(meta.deletionTimestamp) - current * 1000 + requested * 1000;
        graceful = { deletionTimestamp: timestamp(at), deletionGracePeriodSeconds: requested };
      }
    } else {
      const period = strategy.gracePeriod(obj, requested);
      if (period !== undefined) graceful = { deletionTimestamp: timestamp(now + period * 1000), deletionGracePeriodSeconds: period };
    }
  }
  if (graceful !== undefined) return { kind: 'proceed', mark: graceful, remove: !hasFinalizers && graceful.deletionGracePeriodSeconds === 0 };
  if (hasFinalizers) {
    // markAsDeleting: the deletion is due now; the last finalizer's removal removes the object.
    const due = meta.deletionTimestamp !== undefined && secondsOf(meta.deletionTimestamp) <= now ? meta.deletionTimestamp : timestamp(now);
    return { kind: 'proceed', mark: { deletionTimestamp: due, deletionGracePeriodSeconds: 0 }, remove: false };
  }
  return { kind: 'proceed', mark: undefined, remove: true };
}
