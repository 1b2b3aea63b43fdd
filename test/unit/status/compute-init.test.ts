// computePodStatus for init containers, sidecars and probe results: the
// Initialized condition, started/ready per probes, the phase with sidecars.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod, PodStatus, RestartPolicy } from '../../../src/pod-model/pod-types.js';
import type { ProbeKind, ProbeOutcome, ProbeResultsView } from '../../../src/probes/view.js';
import type { ObservedContainer, ObservedPod } from '../../../src/runtime-view/observed.js';
import { computePodStatus } from '../../../src/status/compute.js';

interface Spec {
  restart?: RestartPolicy;
  init?: string[];
  sidecars?: string[];
  containers?: string[];
  startup?: string[];
  readiness?: string[];
}
function pod(s: Spec): Pod {
  const probe = { exec: { command: ['true'] } };
  const mk = (name: string) => ({
    name,
    image: 'i:1',
    ...((s.sidecars ?? []).includes(name) ? { restartPolicy: 'Always' } : {}),
    ...((s.startup ?? []).includes(name) ? { startupProbe: probe } : {}),
    ...((s.readiness ?? []).includes(name) ? { readinessProbe: probe } : {}),
  });
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { restartPolicy: s.restart ?? 'Always', hostNetwork: true, containers: (s.containers ?? ['a']).map(mk), initContainers: (s.init ?? []).map(mk) } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}
let t = 10n;
const c = (name: string, o: Partial<ObservedContainer> = {}): ObservedContainer => ({ id: `id-${name}`, name, sandboxId: 's', type: 'container', state: 'RUNNING', hash: '', restartCount: 0, createdAt: t++, startedAt: 1_700_000_000_000_000_000n, finishedAt: 0n, exitCode: 0, reason: '', message: '', image: 'i:1', imageRef: 'sha256:abc', ...o });
const ex = (name: string, exitCode = 0) => c(name, { state: 'EXITED', exitCode });
const obs = (containers: ObservedContainer[]): ObservedPod => ({ uid: 'u', name: 'p', namespace: 'default', sandboxes: [{ id: 's', ready: true, attempt: 0, createdAt: 1n, ip: '', additionalIps: [], hostNetwork: true, configHash: '' }], containers: [...containers].sort((x, y) => Number(y.createdAt - x.createdAt)) });
const view = (r: Record<string, Partial<Record<ProbeKind, ProbeOutcome>>>): ProbeResultsView => ({ get: (kind, id) => r[id.replace(/^id-/, '')]?.[kind] });
const now = new Date('2026-11-22T00:00:00Z');

interface Opts {
  sidecars?: boolean;
  probes?: Record<string, Partial<Record<ProbeKind, ProbeOutcome>>>;
  waiting?: Record<string, { reason: string; message: string }>;
  previous?: PodStatus;
}
const status = (p: Pod, containers: ObservedContainer[], o: Opts = {}) =>
  computePodStatus({ pod: p, observed: obs(containers), waiting: new Map(Object.entries(o.waiting ?? {})), runtimeName: 'containerd', hostIP: '127.0.0.1', now, probes: view(o.probes ?? {}), sidecars: o.sidecars ?? false, ...(o.previous ? { previous: o.previous } : {}) });
const cond = (s: PodStatus, type: string) => {
  const x = s.conditions.find((k) => k.type === type)!;
  return [x.status, x.reason ?? '', x.message ?? ''].filter((v) => v !== '').join(' ');
};

const I = pod({ init: ['i1', 'i2'] });
const S = pod({ init: ['s1', 'i2'], sidecars: ['s1'], startup: ['s1'], readiness: ['s1'] });
const SNever = pod({ init: ['s1'], sidecars: ['s1'], restart: 'Never' });
const crash = { reason: 'CrashLoopBackOff', message: 'back-off' };

describe('phase and Initialized', () => {
  it.each<[string, Pod, ObservedContainer[], Opts, string, string]>([
    ['nothing yet', I, [], {}, 'Pending', 'False ContainersNotInitialized containers with incomplete status: [i1 i2]'],
    ['first init running', I, [c('i1', { type: 'init' })], {}, 'Pending', 'False ContainersNotInitialized containers with incomplete status: [i1 i2]'],
    ['first done, second running', I, [ex('i1'), c('i2')], {}, 'Pending', 'False ContainersNotInitialized containers with incomplete status: [i2]'],
    ['init failing under Always (back-off)', I, [ex('i1', 1)], { waiting: { i1: crash } }, 'Pending', 'False ContainersNotInitialized containers with incomplete status: [i1 i2]'],
    ['init failed under Never', pod({ init: ['i1'], restart: 'Never' }), [ex('i1', 1)], {}, 'Failed', 'False ContainersNotInitialized containers with incomplete status: [i1]'],
    ['init done, app running', I, [ex('i1'), ex('i2'), c('a')], {}, 'Running', 'True'],
    ['init instances gone, app running', I, [c('a')], {}, 'Running', 'True'],
    ['init done, app succeeded under Never', pod({ init: ['i1'], restart: 'Never' }), [ex('i1'), ex('a')], {}, 'Succeeded', 'True PodCompleted'],
    ['sidecar running, startup probe pending', S, [c('s1')], { sidecars: true }, 'Pending', 'False ContainersNotInitialized containers with incomplete status: [s1 i2]'],
    ['sidecar started, next init running', S, [c('s1'), c('i2')], { sidecars: true, probes: { s1: { startup: 'success' } } }, 'Pending', 'False ContainersNotInitialized containers with incomplete status: [i2]'],
    ['sidecar started, init done, app running', S, [c('s1'), ex('i2'), c('a')], { sidecars: true, probes: { s1: { startup: 'success' } } }, 'Running', 'True'],
    ['sidecar restarting after init: still Running and Initialized', S, [ex('s1', 137), ex('i2'), c('a')], { sidecars: true, waiting: { s1: crash } }, 'Running', 'True'],
    ['sidecar running while the app succeeded under Never: Running until stopped', SNever, [c('s1'), ex('a')], { sidecars: true }, 'Running', 'True'],
    ['sidecar stopped, the app succeeded under Never: Succeeded', SNever, [ex('s1', 143), ex('a')], { sidecars: true }, 'Succeeded', 'True PodCompleted'],
    ['sidecar stopped, the app failed under Never: Failed', SNever, [ex('s1', 143), ex('a', 1)], { sidecars: true }, 'Failed', 'True'],
    ['gate off: restartPolicy Always is a plain init container', SNever, [c('s1')], { sidecars: false }, 'Pending', 'False ContainersNotInitialized containers with incomplete status: [s1]'],
  ])('%s → %s', (_n, p, cs, o, phase, initialized) => {
    const s = status(p, cs, o);
    expect(s.phase).toBe(phase);
    expect(cond(s, 'Initialized')).toBe(initialized);
  });
});

describe('started, ready and the Ready conditions', () => {
  const R = pod({ readiness: ['a'], startup: ['a'] });
  it.each<[string, Pod, ObservedContainer[], Opts, { started: boolean; ready: boolean }, string]>([
    ['no probes: started and ready once running', pod({}), [c('a')], {}, { started: true, ready: true }, 'True'],
    ['startup probe without result: neither', R, [c('a')], {}, { started: false, ready: false }, 'False ContainersNotReady containers with unready status: [a]'],
    ['startup failed: neither', R, [c('a')], { probes: { a: { startup: 'failure', readiness: 'success' } } }, { started: false, ready: false }, 'False ContainersNotReady containers with unready status: [a]'],
    ['started, readiness pending: not ready', R, [c('a')], { probes: { a: { startup: 'success' } } }, { started: true, ready: false }, 'False ContainersNotReady containers with unready status: [a]'],
    ['started and readiness passed: ready', R, [c('a')], { probes: { a: { startup: 'success', readiness: 'success' } } }, { started: true, ready: true }, 'True'],
    ['readiness failing again: not ready', R, [c('a')], { probes: { a: { startup: 'success', readiness: 'failure' } } }, { started: true, ready: false }, 'False ContainersNotReady containers with unready status: [a]'],
    ['exited: neither', pod({}), [ex('a', 1)], { waiting: { a: crash } }, { started: false, ready: false }, 'False ContainersNotReady containers with unready status: [a]'],
  ])('%s', (_n, p, cs, o, want, ready) => {
    const s = status(p, cs, o);
    expect({ started: s.containerStatuses[0]!.started, ready: s.containerStatuses[0]!.ready }).toEqual(want);
    expect(cond(s, 'ContainersReady')).toBe(ready);
    expect(cond(s, 'Ready')).toBe(ready);
  });

  it('the pod is Ready only when its sidecars are ready too', () => {
    const running = [c('s1'), ex('i2'), c('a')];
    const notReady = status(S, running, { sidecars: true, probes: { s1: { startup: 'success' } } });
    expect(notReady.initContainerStatuses![0]).toMatchObject({ name: 's1', started: true, ready: false });
    expect(cond(notReady, 'Ready')).toBe('False ContainersNotReady containers with unready status: [s1]');
    const ready = status(S, running, { sidecars: true, probes: { s1: { startup: 'success', readiness: 'success' } } });
    expect(ready.initContainerStatuses![0]).toMatchObject({ started: true, ready: true });
    expect(cond(ready, 'Ready')).toBe('True');
  });

  it('a completed init container is ready; one running is started but not ready; waiting ones say PodInitializing', () => {
    const s = status(I, [ex('i1'), c('i2')]);
    expect(s.initContainerStatuses!.map((x) => [x.name, x.ready, x.started])).toEqual([['i1', true, false], ['i2', false, true]]);
    expect(s.containerStatuses[0]!.state).toEqual({ waiting: { reason: 'PodInitializing' } });
  });

  it('an init container whose instance is gone keeps its reported termination', () => {
    const first = status(I, [ex('i1'), ex('i2'), c('a')]);
    const later = status(I, [c('a')], { previous: first });
    expect(later.initContainerStatuses!.map((x) => x.state.terminated?.reason)).toEqual(['Completed', 'Completed']);
    expect(cond(later, 'Initialized')).toBe('True');
  });
});
