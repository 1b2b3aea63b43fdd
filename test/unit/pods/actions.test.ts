// computePodActions, table-driven: desired pod × observed runtime state → actions.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod, RestartPolicy } from '../../../src/pod-model/pod-types.js';
import { computePodActions, sandboxChange, terminationActions, type PodActions } from '../../../src/pods/actions.js';
import { containerHash, sandboxHash } from '../../../src/runtime-view/labels.js';
import type { ObservedContainer, ObservedPod, ObservedSandbox } from '../../../src/runtime-view/observed.js';

function pod(opts: { restart?: RestartPolicy; containers?: string[]; init?: string[]; hostNetwork?: boolean; image?: string; ports?: number[] } = {}): Pod {
  const mk = (name: string) => ({ name, image: opts.image ?? 'i:1', ...(opts.ports ? { ports: opts.ports.map((p) => ({ containerPort: p, hostPort: p })) } : {}) });
  const d = decodePod({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', uid: 'u1' },
    spec: { restartPolicy: opts.restart ?? 'Always', hostNetwork: opts.hostNetwork ?? true, containers: (opts.containers ?? ['a', 'b']).map(mk), ...(opts.init ? { initContainers: opts.init.map(mk) } : {}) },
  });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}

const DESIRED = pod();
const hashOf = (p: Pod, name: string) => containerHash([...(p.spec.initContainers ?? []), ...p.spec.containers].find((c) => c.name === name)!);

let t = 100n;
function sb(o: Partial<ObservedSandbox> = {}): ObservedSandbox {
  return { id: `s${t}`, ready: true, attempt: 0, createdAt: t++, ip: '', additionalIps: [], hostNetwork: true, configHash: sandboxHash(DESIRED), ...o };
}
function ct(name: string, o: Partial<ObservedContainer> & { for?: Pod } = {}): ObservedContainer {
  const { for: p = DESIRED, ...rest } = o;
  return { id: `c-${name}-${t}`, name, sandboxId: 's', type: 'container', state: 'RUNNING', hash: hashOf(p, name), restartCount: 0, createdAt: t++, startedAt: 1n, finishedAt: 0n, exitCode: 0, reason: '', message: '', image: 'i:1', imageRef: 'sha256:1', ...rest };
}
const observed = (sandboxes: ObservedSandbox[], containers: ObservedContainer[] = []): ObservedPod => ({
  uid: 'u1',
  name: 'p',
  namespace: 'default',
  sandboxes: [...sandboxes].sort((x, y) => Number(y.createdAt - x.createdAt)),
  containers: [...containers].sort((x, y) => Number(y.createdAt - x.createdAt)),
});

/** A compact rendering of the actions, for readable tables. */
function show(a: PodActions): string {
  const parts: string[] = [];
  if (a.killPod) parts.push('killPod');
  if (a.createSandbox) parts.push(`createSandbox#${a.sandboxAttempt}`);
  for (const k of a.containersToKill) parts.push(`kill:${k.name}(${k.reason})`);
  for (const s of a.containersToStart) parts.push(`start:${s.type === 'init' ? 'init/' : ''}${s.name}#${s.restartCount}`);
  return parts.join(' ') || 'nothing';
}

const changed = pod({ image: 'i:2' });

describe('computePodActions', () => {
  it.each<[string, Pod, ObservedPod, string]>([
    ['new pod: sandbox and every container', DESIRED, observed([]), 'killPod createSandbox#0 start:a#0 start:b#0'],
    ['all running, unchanged', DESIRED, observed([sb()], [ct('a'), ct('b')]), 'nothing'],
    ['sandbox not ready: recreate, restart counts continue', DESIRED, observed([sb({ ready: false })], [ct('a', { state: 'EXITED', restartCount: 2 }), ct('b', { state: 'EXITED' })]), 'killPod createSandbox#1 start:a#3 start:b#1'],
    ['two ready sandboxes: recreate', DESIRED, observed([sb(), sb({ attempt: 1 })], [ct('a'), ct('b')]), 'killPod createSandbox#2 start:a#1 start:b#1'],
    ['host network changed: recreate', pod({ hostNetwork: false }), observed([sb({ ip: '10.0.0.5' })], [ct('a'), ct('b')]), 'killPod createSandbox#1 start:a#1 start:b#1'],
    ['pod network without an IP: recreate', pod({ hostNetwork: false }), observed([sb({ hostNetwork: false, ip: '', configHash: sandboxHash(pod({ hostNetwork: false })) })], [ct('a'), ct('b')]), 'killPod createSandbox#1 start:a#1 start:b#1'],
    ['pod network with an IP: keep', pod({ hostNetwork: false }), observed([sb({ hostNetwork: false, ip: '10.0.0.5', configHash: sandboxHash(pod({ hostNetwork: false })) })], [ct('a'), ct('b')]), 'nothing'],
    ['sandbox settings changed (host ports): recreate', pod({ ports: [8080] }), observed([sb()], [ct('a', { for: pod({ ports: [8080] }) }), ct('b', { for: pod({ ports: [8080] }) })]), 'killPod createSandbox#1 start:a#1 start:b#1'],
    ['unknown sandbox settings (no annotation): keep', DESIRED, observed([sb({ configHash: '' })], [ct('a'), ct('b')]), 'nothing'],
    ['spec of one container changed: restart that one only', pod({ containers: ['a', 'b'] }), observed([sb()], [ct('a'), ct('b', { hash: 'old' })]), 'kill:b(Changed) start:b#1'],
    ['every container changed', changed, observed([sb()], [ct('a'), ct('b')]), 'kill:a(Changed) kill:b(Changed) start:a#1 start:b#1'],
    ['exited under Always: restart', DESIRED, observed([sb()], [ct('a', { state: 'EXITED', exitCode: 0, restartCount: 4 }), ct('b')]), 'start:a#5'],
    ['exited 0 under OnFailure: done', pod({ restart: 'OnFailure' }), observed([sb()], [ct('a', { state: 'EXITED', exitCode: 0 }), ct('b')]), 'nothing'],
    ['exited 1 under OnFailure: restart', pod({ restart: 'OnFailure' }), observed([sb()], [ct('a', { state: 'EXITED', exitCode: 1 }), ct('b')]), 'start:a#1'],
    ['exited under Never: leave it', pod({ restart: 'Never' }), observed([sb()], [ct('a', { state: 'EXITED', exitCode: 1 }), ct('b')]), 'nothing'],
    ['all exited under Never: stop the pod', pod({ restart: 'Never' }), observed([sb()], [ct('a', { state: 'EXITED', exitCode: 1 }), ct('b', { state: 'EXITED' })]), 'killPod'],
    ['all succeeded under OnFailure: stop the pod', pod({ restart: 'OnFailure' }), observed([sb()], [ct('a', { state: 'EXITED' }), ct('b', { state: 'EXITED' })]), 'killPod'],
    ['unknown state: kill and start', DESIRED, observed([sb()], [ct('a', { state: 'UNKNOWN' }), ct('b')]), 'kill:a(Unknown) start:a#1'],
    ['created but never started: kill and start', DESIRED, observed([sb()], [ct('a', { state: 'CREATED' }), ct('b')]), 'kill:a(NotStarted) start:a#1'],
    ['a container new in the spec: start it', pod({ containers: ['a', 'b', 'c'] }), observed([sb()], [ct('a'), ct('b')]), 'start:c#0'],
    ['only the newest instance counts', DESIRED, observed([sb()], [ct('a', { state: 'EXITED', restartCount: 0 }), ct('a', { restartCount: 1 }), ct('b')]), 'nothing'],
    ['sandbox gone under Never after running: no new sandbox', pod({ restart: 'Never' }), observed([sb({ ready: false })], [ct('a', { state: 'EXITED' })]), 'killPod'],
    ['sandbox gone under OnFailure: restart only what failed', pod({ restart: 'OnFailure' }), observed([sb({ ready: false })], [ct('a', { state: 'EXITED', exitCode: 0 }), ct('b', { state: 'EXITED', exitCode: 2 })]), 'killPod createSandbox#1 start:b#1'],
    ['sandbox gone under OnFailure, all succeeded: nothing to create', pod({ restart: 'OnFailure' }), observed([sb({ ready: false })], [ct('a', { state: 'EXITED' }), ct('b', { state: 'EXITED' })]), 'killPod'],
  ])('%s', (_name, desired, obs, want) => {
    expect(show(computePodActions(desired, obs))).toBe(want);
  });
});

describe('init containers', () => {
  const withInit = (restart: RestartPolicy = 'Always') => pod({ init: ['i1', 'i2'], restart });
  const init = (name: string, o: Partial<ObservedContainer> = {}) => ct(name, { type: 'init', for: withInit(), ...o });
  it.each<[string, Pod, ObservedPod, string]>([
    ['new pod: the first init container only', withInit(), observed([]), 'killPod createSandbox#0 start:init/i1#0'],
    ['first running: wait', withInit(), observed([sb({ configHash: sandboxHash(withInit()) })], [init('i1')]), 'nothing'],
    ['first succeeded: the second', withInit(), observed([sb({ configHash: sandboxHash(withInit()) })], [init('i1', { state: 'EXITED' })]), 'start:init/i2#0'],
    ['all succeeded: the app containers', withInit(), observed([sb({ configHash: sandboxHash(withInit()) })], [init('i1', { state: 'EXITED' }), init('i2', { state: 'EXITED' })]), 'start:a#0 start:b#0'],
    ['failed under Always: run it again', withInit(), observed([sb({ configHash: sandboxHash(withInit()) })], [init('i1', { state: 'EXITED', exitCode: 3 })]), 'start:init/i1#1'],
    ['failed under Never: the pod fails', withInit('Never'), observed([sb({ configHash: sandboxHash(withInit()) })], [init('i1', { state: 'EXITED', exitCode: 3 })]), 'killPod'],
    ['unknown: kill and rerun', withInit(), observed([sb({ configHash: sandboxHash(withInit()) })], [init('i1', { state: 'UNKNOWN' })]), 'kill:i1(Unknown) start:init/i1#1'],
  ])('%s', (_name, desired, obs, want) => {
    expect(show(computePodActions(desired, obs))).toBe(want);
  });
});

describe('sandboxChange and termination', () => {
  it('reuses the newest ready sandbox', () => {
    const s = sb({ attempt: 3 });
    expect(sandboxChange(DESIRED, observed([sb({ ready: false, createdAt: 1n }), s]))).toEqual({ create: false, attempt: 3, sandboxId: s.id });
  });
  it('termination stops everything', () => {
    expect(show(terminationActions())).toBe('killPod');
  });
});
