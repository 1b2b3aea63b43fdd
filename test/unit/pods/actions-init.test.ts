// computePodActions for init containers, sidecars (SidecarContainers gate)
// and probe results, table-driven: desired pod × observed runtime state ×
// probe results → actions.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod, RestartPolicy } from '../../../src/pod-model/pod-types.js';
import { computePodActions, type PodActions } from '../../../src/pods/actions.js';
import type { ProbeKind, ProbeOutcome, ProbeResultsView } from '../../../src/probes/view.js';
import { containerHash, sandboxHash } from '../../../src/runtime-view/labels.js';
import type { ObservedContainer, ObservedPod, ObservedSandbox } from '../../../src/runtime-view/observed.js';

interface Spec {
  restart?: RestartPolicy;
  init?: string[];
  /** Init containers with restartPolicy Always. */
  sidecars?: string[];
  /** Init or app containers with a startup / liveness probe. */
  startup?: string[];
  liveness?: string[];
  livenessGrace?: number;
  containers?: string[];
  image?: string;
}

function pod(s: Spec = {}): Pod {
  const probe = (grace?: number) => ({ exec: { command: ['true'] }, ...(grace !== undefined ? { terminationGracePeriodSeconds: grace } : {}) });
  const mk = (name: string) => ({
    name,
    image: s.image ?? 'i:1',
    ...((s.sidecars ?? []).includes(name) ? { restartPolicy: 'Always' } : {}),
    ...((s.startup ?? []).includes(name) ? { startupProbe: probe() } : {}),
    ...((s.liveness ?? []).includes(name) ? { livenessProbe: probe(s.livenessGrace) } : {}),
  });
  const d = decodePod({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', uid: 'u1' },
    spec: { restartPolicy: s.restart ?? 'Always', hostNetwork: true, containers: (s.containers ?? ['a']).map(mk), ...(s.init ? { initContainers: s.init.map(mk) } : {}) },
  });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}

let t = 100n;
/** An observed container of `p` (its hash matches p's spec unless given); init containers are typed by the spec. */
function ct(p: Pod, name: string, o: Partial<ObservedContainer> = {}): ObservedContainer {
  const init = (p.spec.initContainers ?? []).find((c) => c.name === name);
  const spec = init ?? p.spec.containers.find((c) => c.name === name)!;
  return { id: `c-${name}-${t}`, name, sandboxId: 's', type: init ? 'init' : 'container', state: 'RUNNING', hash: containerHash(spec), restartCount: 0, createdAt: t++, startedAt: 1n, finishedAt: 0n, exitCode: 0, reason: '', message: '', image: 'i:1', imageRef: 'sha256:1', ...o };
}
const sb = (p: Pod, o: Partial<ObservedSandbox> = {}): ObservedSandbox => ({ id: `s${t}`, ready: true, attempt: 0, createdAt: t++, ip: '', additionalIps: [], hostNetwork: true, configHash: sandboxHash(p), ...o });
const observed = (p: Pod, containers: ObservedContainer[], sandboxes: ObservedSandbox[] = [sb(p)]): ObservedPod => ({
  uid: 'u1',
  name: 'p',
  namespace: 'default',
  sandboxes,
  containers: [...containers].sort((x, y) => Number(y.createdAt - x.createdAt)),
});

/** Probe results by container name (the view is keyed by container ID, resolved against `obs`). */
function probes(obs: ObservedPod, results: Record<string, Partial<Record<ProbeKind, ProbeOutcome>>>): ProbeResultsView {
  return { get: (kind, id) => results[obs.containers.find((c) => c.id === id)?.name ?? '']?.[kind] };
}

function show(a: PodActions): string {
  const parts: string[] = [];
  if (a.killPod) parts.push('killPod');
  if (a.createSandbox) parts.push(`createSandbox#${a.sandboxAttempt}`);
  for (const k of a.containersToKill) parts.push(`kill:${k.name}(${k.reason}${k.gracePeriodSeconds !== undefined ? `,${k.gracePeriodSeconds}s` : ''})`);
  for (const s of a.containersToStart) parts.push(`start:${s.type === 'init' ? 'init/' : ''}${s.name}#${s.restartCount}`);
  return parts.join(' ') || 'nothing';
}

type Row = [name: string, p: Pod, containers: (p: Pod) => ObservedContainer[], want: string];

const I = pod({ init: ['i1', 'i2'] });
const INever = pod({ init: ['i1', 'i2'], restart: 'Never' });
const IOnFailure = pod({ init: ['i1', 'i2'], restart: 'OnFailure' });
const IEdited = pod({ init: ['i1', 'i2'], image: 'i:2' });

// The same rows hold with the gate off and on: plain init containers behave alike.
const initRows: Row[] = [
  ['nothing ran: the first init container', I, () => [], 'start:init/i1#0'],
  ['first running: wait for it', I, (p) => [ct(p, 'i1')], 'nothing'],
  ['first succeeded: the second, only', I, (p) => [ct(p, 'i1', { state: 'EXITED' })], 'start:init/i2#0'],
  ['second running: the app containers wait', I, (p) => [ct(p, 'i1', { state: 'EXITED' }), ct(p, 'i2')], 'nothing'],
  ['all succeeded: the app containers', I, (p) => [ct(p, 'i1', { state: 'EXITED' }), ct(p, 'i2', { state: 'EXITED' })], 'start:a#0'],
  ['first failed under Always: it runs again, the second waits', I, (p) => [ct(p, 'i1', { state: 'EXITED', exitCode: 1, restartCount: 2 })], 'start:init/i1#3'],
  ['second failed under OnFailure: it runs again', IOnFailure, (p) => [ct(p, 'i1', { state: 'EXITED' }), ct(p, 'i2', { state: 'EXITED', exitCode: 7 })], 'start:init/i2#1'],
  ['OOM-killed counts as failed even with exit 0', I, (p) => [ct(p, 'i1', { state: 'EXITED', reason: 'OOMKilled' })], 'start:init/i1#1'],
  ['first failed under Never: the pod fails, nothing starts', INever, (p) => [ct(p, 'i1', { state: 'EXITED', exitCode: 1 })], 'killPod'],
  ['unknown under Never: the pod fails', INever, (p) => [ct(p, 'i1', { state: 'UNKNOWN' })], 'killPod'],
  ['unknown under Always: kill and run again', I, (p) => [ct(p, 'i1', { state: 'UNKNOWN' })], 'kill:i1(Unknown) start:init/i1#1'],
  ['created, never started: kill and run again', I, (p) => [ct(p, 'i1', { state: 'CREATED' })], 'kill:i1(NotStarted) start:init/i1#1'],
  ['init spec edited after init completed: not re-run', IEdited, (p) => [ct(p, 'i1', { state: 'EXITED', hash: 'old' }), ct(p, 'i2', { state: 'EXITED', hash: 'old' }), ct(p, 'a', { hash: containerHash(I.spec.containers[0]!) })], 'kill:a(Changed) start:a#1'],
  ['init instances removed while the app runs: init is done', I, (p) => [ct(p, 'a')], 'nothing'],
  ['init instances removed, app exited under Always: the app restarts', I, (p) => [ct(p, 'i2', { state: 'EXITED' }), ct(p, 'a', { state: 'EXITED', exitCode: 1 })], 'start:a#1'],
  ['only the last init instance kept: init is done', I, (p) => [ct(p, 'i2', { state: 'EXITED' })], 'start:a#0'],
  ['app done under Never after init: the pod stops', INever, (p) => [ct(p, 'i1', { state: 'EXITED' }), ct(p, 'i2', { state: 'EXITED' }), ct(p, 'a', { state: 'EXITED' })], 'killPod'],
];

describe.each([false, true])('init containers (SidecarContainers=%s)', (gate) => {
  it.each(initRows)('%s', (_n, p, containers, want) => {
    expect(show(computePodActions(p, observed(p, containers(p)), { sidecars: gate }))).toBe(want);
  });
  it('a new sandbox starts from the first init container', () => {
    const p = pod({ init: ['i1', 'i2'] });
    expect(show(computePodActions(p, observed(p, [ct(p, 'i1', { state: 'EXITED' }), ct(p, 'i2', { state: 'EXITED' })], [sb(p, { ready: false })]), { sidecars: gate }))).toBe('killPod createSandbox#1 start:init/i1#1');
  });
});

const S = pod({ init: ['s1', 'i2'], sidecars: ['s1'] });
const SS = pod({ init: ['s1', 's2'], sidecars: ['s1', 's2'] });
const SP = pod({ init: ['s1', 'i2'], sidecars: ['s1'], startup: ['s1'], liveness: ['s1'] });
const SNever = pod({ init: ['s1', 'i2'], sidecars: ['s1'], restart: 'Never' });
const SOnFailure = pod({ init: ['s1'], sidecars: ['s1'], restart: 'OnFailure' });

type ProbeRow = [name: string, p: Pod, containers: (p: Pod) => ObservedContainer[], results: Record<string, Partial<Record<ProbeKind, ProbeOutcome>>>, want: string];

describe('sidecars (SidecarContainers on)', () => {
  it.each<ProbeRow>([
    ['nothing ran: the sidecar first', S, () => [], {}, 'start:init/s1#0'],
    ['sidecar running without a startup probe: the next init container', S, (p) => [ct(p, 's1')], {}, 'start:init/i2#0'],
    ['two sidecars: the second after the first', SS, (p) => [ct(p, 's1')], {}, 'start:init/s2#0'],
    ['two sidecars running: the app', SS, (p) => [ct(p, 's1'), ct(p, 's2')], {}, 'start:a#0'],
    ['startup probe without a result: wait', SP, (p) => [ct(p, 's1')], {}, 'nothing'],
    ['startup probe passed: the next init container', SP, (p) => [ct(p, 's1')], { s1: { startup: 'success' } }, 'start:init/i2#0'],
    ['startup probe failed: kill and start it again', SP, (p) => [ct(p, 's1')], { s1: { startup: 'failure' } }, 'kill:s1(StartupProbe) start:init/s1#1'],
    ['liveness failed before init done: restarted, the next init container still starts', SP, (p) => [ct(p, 's1')], { s1: { startup: 'success', liveness: 'failure' } }, 'kill:s1(LivenessProbe) start:init/s1#1 start:init/i2#0'],
    ['init done, all running: nothing', S, (p) => [ct(p, 's1'), ct(p, 'i2', { state: 'EXITED' }), ct(p, 'a')], {}, 'nothing'],
    ['sidecar exited after init: restarted, the app keeps running', S, (p) => [ct(p, 's1', { state: 'EXITED', exitCode: 0, restartCount: 1 }), ct(p, 'i2', { state: 'EXITED' }), ct(p, 'a')], {}, 'start:init/s1#2'],
    ['sidecar exited under Never: restarted too', SNever, (p) => [ct(p, 's1', { state: 'EXITED', exitCode: 2 }), ct(p, 'i2', { state: 'EXITED' }), ct(p, 'a')], {}, 'start:init/s1#1'],
    ['sidecar instance gone after init: started again', S, (p) => [ct(p, 'i2', { state: 'EXITED' }), ct(p, 'a')], {}, 'start:init/s1#0'],
    ['liveness failed after init: restarted', SP, (p) => [ct(p, 's1'), ct(p, 'i2', { state: 'EXITED' }), ct(p, 'a')], { s1: { startup: 'success', liveness: 'failure' } }, 'kill:s1(LivenessProbe) start:init/s1#1'],
    ['app done under Never, sidecar running: the pod stops, the sidecar is not restarted', SNever, (p) => [ct(p, 's1'), ct(p, 'i2', { state: 'EXITED' }), ct(p, 'a', { state: 'EXITED', exitCode: 0 })], {}, 'killPod'],
    ['app failed under Never, sidecar exited: the pod stops', SNever, (p) => [ct(p, 's1', { state: 'EXITED', exitCode: 143 }), ct(p, 'i2', { state: 'EXITED' }), ct(p, 'a', { state: 'EXITED', exitCode: 1 })], {}, 'killPod'],
    ['app succeeded under OnFailure, sidecar running: the pod stops', SOnFailure, (p) => [ct(p, 's1'), ct(p, 'a', { state: 'EXITED' })], {}, 'killPod'],
    ['regular init failed after the sidecar under Never: the pod fails', SNever, (p) => [ct(p, 's1'), ct(p, 'i2', { state: 'EXITED', exitCode: 1 })], {}, 'killPod'],
    ['sidecar in an unknown state: kill and start', S, (p) => [ct(p, 's1', { state: 'UNKNOWN' }), ct(p, 'i2', { state: 'EXITED' }), ct(p, 'a')], {}, 'kill:s1(Unknown) start:init/s1#1'],
  ])('%s', (_n, p, containers, results, want) => {
    const obs = observed(p, containers(p));
    expect(show(computePodActions(p, obs, { sidecars: true, probes: probes(obs, results) }))).toBe(want);
  });

  it('with the gate off, restartPolicy Always is a plain init container: it blocks until it exits', () => {
    const obs = observed(S, [ct(S, 's1')]);
    expect(show(computePodActions(S, obs, { sidecars: false }))).toBe('nothing');
    expect(show(computePodActions(S, obs, { sidecars: true }))).toBe('start:init/i2#0');
  });
});

describe('probe failures of app containers', () => {
  const L = pod({ liveness: ['a'] });
  const LGrace = pod({ liveness: ['a'], livenessGrace: 5 });
  const U = pod({ startup: ['a'] });
  it.each<ProbeRow>([
    ['liveness success: keep', L, (p) => [ct(p, 'a')], { a: { liveness: 'success' } }, 'nothing'],
    ['no result yet: keep', L, (p) => [ct(p, 'a')], {}, 'nothing'],
    ['liveness failed under Always: kill and restart', L, (p) => [ct(p, 'a', { restartCount: 3 })], { a: { liveness: 'failure' } }, 'kill:a(LivenessProbe) start:a#4'],
    ['liveness failed under OnFailure: kill and restart', pod({ liveness: ['a'], restart: 'OnFailure' }), (p) => [ct(p, 'a')], { a: { liveness: 'failure' } }, 'kill:a(LivenessProbe) start:a#1'],
    ['liveness failed under Never: killed, not restarted (then the pod stops)', pod({ liveness: ['a'], restart: 'Never' }), (p) => [ct(p, 'a')], { a: { liveness: 'failure' } }, 'killPod kill:a(LivenessProbe)'],
    ['liveness failed under Never beside a running container: killed only', pod({ liveness: ['a'], restart: 'Never', containers: ['a', 'b'] }), (p) => [ct(p, 'a'), ct(p, 'b')], { a: { liveness: 'failure' } }, 'kill:a(LivenessProbe)'],
    ['the probe grace period is the kill grace period', LGrace, (p) => [ct(p, 'a')], { a: { liveness: 'failure' } }, 'kill:a(LivenessProbe,5s) start:a#1'],
    ['startup failed: kill and restart', U, (p) => [ct(p, 'a')], { a: { startup: 'failure' } }, 'kill:a(StartupProbe) start:a#1'],
    ['a changed spec wins over a probe failure', L, (p) => [ct(p, 'a', { hash: 'old' })], { a: { liveness: 'failure' } }, 'kill:a(Changed) start:a#1'],
    ['readiness failure does not kill', L, (p) => [ct(p, 'a')], { a: { readiness: 'failure' } }, 'nothing'],
  ])('%s', (_n, p, containers, results, want) => {
    const obs = observed(p, containers(p));
    expect(show(computePodActions(p, obs, { probes: probes(obs, results) }))).toBe(want);
  });

  it('the kill says why, as the kubelet\'s Killing event', () => {
    const p = pod({ liveness: ['a'] });
    const obs = observed(p, [ct(p, 'a')]);
    expect(computePodActions(p, obs, { probes: probes(obs, { a: { liveness: 'failure' } }) }).containersToKill[0]!.message).toBe('Container a failed liveness probe, will be restarted');
    const never = pod({ liveness: ['a'], restart: 'Never', containers: ['a', 'b'] });
    const obs2 = observed(never, [ct(never, 'a'), ct(never, 'b')]);
    expect(computePodActions(never, obs2, { probes: probes(obs2, { a: { liveness: 'failure' } }) }).containersToKill[0]!.message).toBe('Container a failed liveness probe');
  });
});
