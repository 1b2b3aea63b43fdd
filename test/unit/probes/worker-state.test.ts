// The probe worker's decisions as tables: defaults, initial verdicts,
// thresholds, the hold after a liveness/startup failure, startup gating,
// the initial delay, and a new container instance resetting everything.
import { describe, expect, it } from 'vitest';
import { afterProbe, beforeProbe, effectiveProbe, INITIAL_OUTCOME, newWorkerState, type ContainerView, type Observation } from '../../../src/probes/worker-state.js';
import type { ProbeKind, ProbeOutcome } from '../../../src/probes/view.js';

const running = (id = 'c1', startedAtMs = 0): ContainerView => ({ id, running: true, exited: false, startedAtMs, final: false });
const obs = (container: ContainerView | undefined, extra: Partial<Observation> = {}): Observation => ({ container, nowMs: 60_000, started: true, ...extra });

describe('effectiveProbe', () => {
  it.each([
    ['nothing set: the API defaults', {}, { initialDelaySeconds: 0, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 }],
    ['zeros mean the defaults', { timeoutSeconds: 0, periodSeconds: 0, successThreshold: 0, failureThreshold: 0 }, { initialDelaySeconds: 0, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 }],
    ['values kept', { initialDelaySeconds: 5, timeoutSeconds: 2, periodSeconds: 3, successThreshold: 2, failureThreshold: 4 }, { initialDelaySeconds: 5, timeoutSeconds: 2, periodSeconds: 3, successThreshold: 2, failureThreshold: 4 }],
  ])('%s', (_, probe, want) => {
    expect(effectiveProbe({ exec: { command: ['true'] }, ...probe })).toEqual(want);
  });
});

describe('beforeProbe', () => {
  it.each<[string, ProbeKind, Observation, { initialDelaySeconds?: number }, 'probe' | 'skip' | 'stop']>([
    ['no container yet: wait', 'liveness', obs(undefined), {}, 'skip'],
    ['running liveness after start: probe', 'liveness', obs(running()), {}, 'probe'],
    ['liveness gated until started', 'liveness', obs(running(), { started: false }), {}, 'skip'],
    ['readiness gated until started', 'readiness', obs(running(), { started: false }), {}, 'skip'],
    ['startup probes while not started', 'startup', obs(running(), { started: false }), {}, 'probe'],
    ['startup stops probing once started', 'startup', obs(running(), { started: true }), {}, 'skip'],
    ['within the initial delay: wait', 'readiness', obs(running('c1', 55_000)), { initialDelaySeconds: 10 }, 'skip'],
    ['the initial delay counts from the start', 'readiness', obs(running('c1', 50_000)), { initialDelaySeconds: 10 }, 'probe'],
    ['exited, will restart: wait', 'liveness', obs({ id: 'c1', running: false, exited: true, startedAtMs: 0, final: false }), {}, 'skip'],
    ['created, not started yet: wait, no verdict', 'liveness', obs({ id: 'c1', running: false, exited: false, startedAtMs: 0, final: false }), {}, 'skip'],
    ['exited for good: the worker ends', 'readiness', obs({ id: 'c1', running: false, exited: true, startedAtMs: 0, final: true }), {}, 'stop'],
  ])('%s', (_, kind, o, probe, next) => {
    const s = newWorkerState();
    expect(beforeProbe(s, kind, effectiveProbe({ ...probe }), o).next).toBe(next);
  });

  it.each<[ProbeKind, ProbeOutcome | undefined]>([
    ['liveness', 'success'],
    ['readiness', 'failure'],
    ['startup', undefined],
  ])('a new instance starts %s at the kubelet initial value %s, and the old instance result goes', (kind, initial) => {
    expect(INITIAL_OUTCOME[kind]).toBe(initial);
    const s = newWorkerState();
    expect(beforeProbe(s, kind, effectiveProbe({}), obs(running('c1'))).effects).toEqual([{ op: 'set', containerId: 'c1', outcome: initial }]);
    expect(beforeProbe(s, kind, effectiveProbe({}), obs(running('c1'))).effects).toEqual([]);
    expect(beforeProbe(s, kind, effectiveProbe({}), obs(running('c2'))).effects).toEqual([
      { op: 'remove', containerId: 'c1' },
      { op: 'set', containerId: 'c2', outcome: initial },
    ]);
  });

  it('a container created but not started yet gets only its initial verdict', () => {
    const s = newWorkerState();
    expect(beforeProbe(s, 'liveness', effectiveProbe({}), obs({ id: 'c1', running: false, exited: false, startedAtMs: 0, final: false })).effects).toEqual([{ op: 'set', containerId: 'c1', outcome: 'success' }]);
  });

  it('a container that stopped fails every probe until it restarts', () => {
    const s = newWorkerState();
    beforeProbe(s, 'readiness', effectiveProbe({}), obs(running('c1')));
    expect(beforeProbe(s, 'readiness', effectiveProbe({}), obs({ id: 'c1', running: false, exited: true, startedAtMs: 0, final: false })).effects).toEqual([{ op: 'set', containerId: 'c1', outcome: 'failure' }]);
  });
});

/** Feeds results in order; returns the verdict published after each (undefined: unchanged). */
function run(kind: ProbeKind, probe: { successThreshold?: number; failureThreshold?: number }, results: ProbeOutcome[]): Array<ProbeOutcome | undefined> {
  const s = newWorkerState();
  const spec = effectiveProbe(probe);
  beforeProbe(s, kind, spec, obs(running()));
  return results.map((r) => {
    if (s.onHold) return 'hold' as never;
    const fx = afterProbe(s, kind, spec, r);
    return fx.length === 0 ? undefined : fx[0]!.op === 'set' ? fx[0]!.outcome : undefined;
  });
}

describe('thresholds and the hold', () => {
  it.each<[string, ProbeKind, { successThreshold?: number; failureThreshold?: number }, ProbeOutcome[], Array<ProbeOutcome | undefined | 'hold'>]>([
    ['liveness: 3 failures in a row fail it (default threshold), then it holds', 'liveness', {}, ['failure', 'failure', 'failure', 'failure'], [undefined, undefined, 'failure', 'hold']],
    ['liveness: a success in between restarts the count', 'liveness', {}, ['failure', 'failure', 'success', 'failure', 'failure', 'failure'], [undefined, undefined, 'success', undefined, undefined, 'failure']],
    ['readiness: success threshold 2', 'readiness', { successThreshold: 2 }, ['success', 'success', 'success'], [undefined, 'success', 'success']],
    ['readiness never holds: failure then back to success', 'readiness', { failureThreshold: 1 }, ['failure', 'failure', 'success'], ['failure', 'failure', 'success']],
    ['startup: failure threshold 1 fails at once and holds', 'startup', { failureThreshold: 1 }, ['failure', 'success'], ['failure', 'hold']],
    ['startup: success at once', 'startup', {}, ['failure', 'success'], [undefined, 'success']],
  ])('%s', (_, kind, probe, results, want) => {
    expect(run(kind, probe, results)).toEqual(want);
  });

  it('the hold ends with a new container instance', () => {
    const s = newWorkerState();
    const spec = effectiveProbe({ failureThreshold: 1 });
    beforeProbe(s, 'liveness', spec, obs(running('c1')));
    afterProbe(s, 'liveness', spec, 'failure');
    expect(s.onHold).toBe(true);
    expect(beforeProbe(s, 'liveness', spec, obs(running('c1'))).next).toBe('skip');
    expect(beforeProbe(s, 'liveness', spec, obs(running('c2'))).next).toBe('probe');
    expect(s.onHold).toBe(false);
  });
});
