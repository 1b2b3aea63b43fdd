// The delete decision as a table: what a DELETE does to an object, by its
// finalizers, its deletion marks, the strategy's grace period and the request.
import { describe, expect, it } from 'vitest';
import { planDelete, validateDeleteOptions, type DeletePlan } from '../../../../src/apiserver/registry/delete-plan.js';
import { configmaps, pods } from '../../../../src/apiserver/registry/resources/index.js';
import type { ApiObject, DeleteOptions, ObjectMeta, Strategy } from '../../../../src/apiserver/registry/types.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const at = (s: number): string => new Date(NOW + s * 1000).toISOString().replace('.000Z', 'Z');
const obj = (meta: Partial<ObjectMeta>, spec: Record<string, unknown> = {}, phase = 'Running'): ApiObject => ({ metadata: { name: 'x', ...meta }, spec, status: { phase } });
const bound = { nodeName: 'n1', terminationGracePeriodSeconds: 30 };

describe('planDelete', () => {
  it.each<[string, Strategy, ApiObject, DeleteOptions, DeletePlan]>([
    ['no finalizers, not graceful: remove', configmaps, obj({}), {}, { kind: 'proceed', mark: undefined, remove: true }],
    ['finalizers: mark due now, keep', configmaps, obj({ finalizers: ['a.io/x'] }), {}, { kind: 'proceed', mark: { deletionTimestamp: at(0), deletionGracePeriodSeconds: 0 }, remove: false }],
    ['finalizers, already marked earlier: keep the earlier mark', configmaps, obj({ finalizers: ['a.io/x'], deletionTimestamp: at(-5), deletionGracePeriodSeconds: 0 }), {}, { kind: 'proceed', mark: { deletionTimestamp: at(-5), deletionGracePeriodSeconds: 0 }, remove: false }],
    ['bound pod: graceful with its own period', pods, obj({}, bound), {}, { kind: 'proceed', mark: { deletionTimestamp: at(30), deletionGracePeriodSeconds: 30 }, remove: false }],
    ['bound pod, requested period', pods, obj({}, bound), { gracePeriodSeconds: 5 }, { kind: 'proceed', mark: { deletionTimestamp: at(5), deletionGracePeriodSeconds: 5 }, remove: false }],
    ['bound pod, negative period counts as 1', pods, obj({}, bound), { gracePeriodSeconds: -3 }, { kind: 'proceed', mark: { deletionTimestamp: at(1), deletionGracePeriodSeconds: 1 }, remove: false }],
    ['bound pod, grace 0: mark and remove', pods, obj({}, bound), { gracePeriodSeconds: 0 }, { kind: 'proceed', mark: { deletionTimestamp: at(0), deletionGracePeriodSeconds: 0 }, remove: true }],
    ['unbound pod: at once', pods, obj({}, { terminationGracePeriodSeconds: 30 }), {}, { kind: 'proceed', mark: { deletionTimestamp: at(0), deletionGracePeriodSeconds: 0 }, remove: true }],
    ['terminal pod: at once', pods, obj({}, bound, 'Failed'), {}, { kind: 'proceed', mark: { deletionTimestamp: at(0), deletionGracePeriodSeconds: 0 }, remove: true }],
    ['pod being deleted, same or longer grace: pending', pods, obj({ deletionTimestamp: at(30), deletionGracePeriodSeconds: 30 }, bound), { gracePeriodSeconds: 30 }, { kind: 'pending' }],
    ['pod being deleted, no grace given: pending', pods, obj({ deletionTimestamp: at(30), deletionGracePeriodSeconds: 30 }, bound), {}, { kind: 'pending' }],
    ['pod being deleted, shorter grace: the deadline moves', pods, obj({ deletionTimestamp: at(30), deletionGracePeriodSeconds: 30 }, bound), { gracePeriodSeconds: 10 }, { kind: 'proceed', mark: { deletionTimestamp: at(10), deletionGracePeriodSeconds: 10 }, remove: false }],
    ['pod being deleted with finalizers, grace 0: marked, kept for the finalizers', pods, obj({ finalizers: ['a.io/x'], deletionTimestamp: at(30), deletionGracePeriodSeconds: 30 }, bound), { gracePeriodSeconds: 0 }, { kind: 'proceed', mark: { deletionTimestamp: at(0), deletionGracePeriodSeconds: 0 }, remove: false }],
    ['pod marked with grace 0 and no finalizers: remove', pods, obj({ deletionTimestamp: at(0), deletionGracePeriodSeconds: 0 }, bound), {}, { kind: 'proceed', mark: undefined, remove: true }],
  ])('%s', (_what, strategy, o, opts, want) => expect(planDelete(strategy, o, opts, NOW)).toEqual(want));
});

describe('validateDeleteOptions', () => {
  it.each<[DeleteOptions, string | undefined]>([
    [{}, undefined],
    [{ propagationPolicy: 'Background' }, undefined],
    [{ propagationPolicy: 'background' }, 'propagationPolicy: Unsupported value: "background"'],
    [{ propagationPolicy: 'Orphan', orphanDependents: false }, 'orphanDependents and deletionPropagation cannot be both set'],
  ])('%j', (opts, problem) => {
    if (problem === undefined) expect(() => validateDeleteOptions(opts)).not.toThrow();
    else expect(() => validateDeleteOptions(opts)).toThrow(problem);
  });
});
