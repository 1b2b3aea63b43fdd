// The pod worker's state table: which phases follow which, what a request
// for work decides in each situation, and what ending a piece of work leaves.
import { describe, expect, it } from 'vitest';
import { begin, end, IllegalTransitionError, newWorker, request, transition, TRANSITIONS, type PodWorker, type WorkerPhase } from '../../../src/pods/worker-state.js';

const worker = (over: Partial<PodWorker> = {}): PodWorker => ({ ...newWorker('u1'), ...over });
const PHASES: Array<WorkerPhase | undefined> = [undefined, 'syncing', 'terminating', 'terminated'];

describe('pod worker state table', () => {
  const legal: Array<[WorkerPhase | 'new', WorkerPhase]> = [
    ['new', 'syncing'],
    ['new', 'terminating'],
    ['syncing', 'syncing'],
    ['syncing', 'terminating'],
    ['terminating', 'terminating'],
    ['terminating', 'terminated'],
    ['terminated', 'syncing'],
  ];
  it.each(PHASES.flatMap((from) => (['syncing', 'terminating', 'terminated'] as const).map((to) => [from ?? 'new', to] as const)))('%s → %s', (from, to) => {
    const w = worker({ phase: from === 'new' ? undefined : from });
    const allowed = legal.some(([f, t]) => f === from && t === to);
    expect(TRANSITIONS[from].includes(to)).toBe(allowed);
    if (allowed) {
      transition(w, to);
      expect(w.phase).toBe(to);
    } else {
      const err = (() => {
        try {
          transition(w, to);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err).toBeInstanceOf(IllegalTransitionError);
      expect(err).toMatchObject({ code: 'EINTERNAL', field: 'phase', podUID: 'u1', from, to });
      expect(w.phase).toBe(from === 'new' ? undefined : from);
    }
  });

  it.each([
    ['idle new worker, sync', {}, 'sync', { start: 'sync', cancel: false }, {}],
    ['idle syncing worker, teardown', { phase: 'syncing' }, 'teardown', { start: 'teardown', cancel: false }, {}],
    ['sync in flight, sync: runs again after it', { phase: 'syncing', inFlight: 'sync' }, 'sync', { cancel: false }, { pending: 'sync' }],
    ['sync in flight, teardown: the sync is cancelled, the teardown follows', { phase: 'syncing', inFlight: 'sync' }, 'teardown', { cancel: true }, { pending: 'teardown' }],
    ['teardown pending, sync (re-added before the teardown began): replaces it', { phase: 'syncing', inFlight: 'sync', pending: 'teardown' }, 'sync', { cancel: false }, { pending: 'sync' }],
    ['teardown in flight, sync (re-added): restart after it', { phase: 'terminating', inFlight: 'teardown' }, 'sync', { cancel: false }, { restartRequested: true, pending: undefined }],
    ['terminating and idle (a failed teardown), sync: the teardown goes on now', { phase: 'terminating' }, 'sync', { start: 'teardown', cancel: false }, { restartRequested: true }],
    ['teardown in flight, teardown: once more after it', { phase: 'terminating', inFlight: 'teardown' }, 'teardown', { cancel: false }, { pending: 'teardown' }],
    ['terminated and idle, teardown: nothing (terminated is final)', { phase: 'terminated' }, 'teardown', { cancel: false }, { phase: 'terminated' }],
    ['terminated, sync (re-added): starts', { phase: 'terminated' }, 'sync', { start: 'sync', cancel: false }, {}],
  ] as const)('request: %s', (_, from, work, decision, after) => {
    const w = worker(from as Partial<PodWorker>);
    expect(request(w, work)).toEqual(decision);
    expect(w).toMatchObject(after);
  });

  it('begin follows the work; end of a teardown terminates and brings a requested restart', () => {
    const w = worker();
    begin(w, 'sync');
    expect(w).toMatchObject({ phase: 'syncing', inFlight: 'sync' });
    request(w, 'teardown');
    expect(end(w, false)).toBe('teardown');
    begin(w, 'teardown');
    expect(w).toMatchObject({ phase: 'terminating', inFlight: 'teardown', pending: undefined });
    request(w, 'sync');
    request(w, 'teardown'); // a relist reporting the pod again: dropped once terminated
    request(w, 'sync');
    expect(end(w, true)).toBe('sync');
    expect(w).toMatchObject({ phase: 'terminated', inFlight: undefined, restartRequested: false });
    begin(w, 'sync');
    expect(w.phase).toBe('syncing');
  });

  it('a sync cannot begin while terminating', () => {
    const w = worker({ phase: 'terminating' });
    expect(() => begin(w, 'sync')).toThrow(IllegalTransitionError);
  });
});
