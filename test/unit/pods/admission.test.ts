// Admission against the pod cap (--max-pods): the decision and the status a
// rejected pod keeps.
import { describe, expect, it } from 'vitest';
import { admitPod, isFinished, OUT_OF_PODS, rejectedStatus } from '../../../src/pods/admission.js';

describe('admission', () => {
  it.each([
    [0, 110, true],
    [109, 110, true],
    [110, 110, false],
    [0, 0, false],
    [1, 1, false],
  ])('%i active pods, capacity %i: admitted %s', (active, max, admitted) => {
    expect(admitPod(active, max).admitted).toBe(admitted);
  });

  it('a rejection says what the kubelet says, and becomes a Failed status', () => {
    const r = admitPod(1, 1);
    expect(r).toEqual({ admitted: false, reason: OUT_OF_PODS, message: "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1" });
    if (r.admitted) throw new Error('unreachable');
    expect(rejectedStatus(r)).toEqual({ phase: 'Failed', reason: 'OutOfpods', message: r.message, conditions: [], containerStatuses: [] });
  });

  it.each([
    ['Succeeded', true],
    ['Failed', true],
    ['Running', false],
    ['Pending', false],
    [undefined, false],
  ])('a pod in phase %s has finished: %s', (phase, finished) => {
    expect(isFinished(phase)).toBe(finished);
  });
});
