import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod, RestartPolicy } from '../../../src/pod-model/pod-types.js';
import type { ObservedContainer, ObservedPod } from '../../../src/runtime-view/observed.js';
import { computePodStatus } from '../../../src/status/compute.js';

function pod(restart: RestartPolicy = 'Always', containers = ['a'], init: string[] = []): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { restartPolicy: restart, hostNetwork: true, containers: containers.map((name) => ({ name, image: 'i:1' })), initContainers: init.map((name) => ({ name, image: 'i:1' })) } });
  if (!d.ok) throw new Error('fixture');
  return d.pod;
}
let t = 10n;
const c = (name: string, o: Partial<ObservedContainer> = {}): ObservedContainer => ({ id: `id-${name}-${t}`, name, sandboxId: 's', type: 'container', state: 'RUNNING', hash: '', restartCount: 0, createdAt: t++, startedAt: 1_700_000_000_000_000_000n, finishedAt: 0n, exitCode: 0, reason: '', message: '', image: 'i:1', imageRef: 'sha256:abc', ...o });
const obs = (containers: ObservedContainer[]): ObservedPod => ({ uid: 'u', name: 'p', namespace: 'default', sandboxes: [{ id: 's', ready: true, attempt: 0, createdAt: 1n, ip: '', additionalIps: [], hostNetwork: true, configHash: '' }], containers: [...containers].sort((x, y) => Number(y.createdAt - x.createdAt)) });
const now = new Date('2026-11-22T00:00:00Z');
const status = (p: Pod, containers: ObservedContainer[], waiting: Record<string, { reason: string; message: string }> = {}) =>
  computePodStatus({ pod: p, observed: obs(containers), waiting: new Map(Object.entries(waiting)), runtimeName: 'containerd', hostIP: '127.0.0.1', now });

describe('pod phase', () => {
  it.each<[string, Pod, ObservedContainer[], Record<string, { reason: string; message: string }>, string]>([
    ['nothing yet', pod(), [], {}, 'Pending'],
    ['image pull failing', pod(), [], { a: { reason: 'ErrImagePull', message: 'x' } }, 'Pending'],
    ['running', pod(), [c('a')], {}, 'Running'],
    ['crash loop under Always', pod(), [c('a', { state: 'EXITED', exitCode: 1 })], { a: { reason: 'CrashLoopBackOff', message: 'back-off' } }, 'Running'],
    ['exited 0 under Never', pod('Never'), [c('a', { state: 'EXITED' })], {}, 'Succeeded'],
    ['exited 1 under Never', pod('Never'), [c('a', { state: 'EXITED', exitCode: 1 })], {}, 'Failed'],
    ['one failed one ok under Never', pod('Never', ['a', 'b']), [c('a', { state: 'EXITED', exitCode: 1 }), c('b', { state: 'EXITED' })], {}, 'Failed'],
    ['exited 1 under OnFailure', pod('OnFailure'), [c('a', { state: 'EXITED', exitCode: 1 })], {}, 'Running'],
    ['exited 0 under OnFailure', pod('OnFailure'), [c('a', { state: 'EXITED' })], {}, 'Succeeded'],
    ['init running', pod('Always', ['a'], ['i']), [c('i', { type: 'init' })], {}, 'Pending'],
    ['init failed under Never', pod('Never', ['a'], ['i']), [c('i', { type: 'init', state: 'EXITED', exitCode: 1 })], {}, 'Failed'],
    ['init done, app running', pod('Always', ['a'], ['i']), [c('i', { type: 'init', state: 'EXITED' }), c('a')], {}, 'Running'],
  ])('%s → %s', (_n, p, cs, w, phase) => {
    expect(status(p, cs, w).phase).toBe(phase);
  });
});

describe('container statuses', () => {
  it('a crash-looping container: waiting now, its exit as the last state, restarts counted', () => {
    const s = status(pod(), [c('a', { state: 'EXITED', exitCode: 2, restartCount: 3, finishedAt: 1_700_000_001_000_000_000n })], { a: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } });
    expect(s.containerStatuses[0]).toMatchObject({
      name: 'a',
      restartCount: 3,
      ready: false,
      state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } },
      lastState: { terminated: { exitCode: 2, reason: 'Error', finishedAt: '2023-11-14T22:13:21Z' } },
    });
  });
  it('running with a previous exit', () => {
    const s = status(pod(), [c('a', { state: 'EXITED', exitCode: 137, reason: 'OOMKilled' }), c('a', { restartCount: 1 })]);
    expect(s.containerStatuses[0]).toMatchObject({ ready: true, started: true, restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } }, imageID: 'sha256:abc' });
    expect(s.containerStatuses[0]!.containerID).toMatch(/^containerd:\/\/id-a-/);
  });
  it('conditions and IPs', () => {
    const s = status(pod(), [c('a')]);
    expect(s.conditions.map((x) => `${x.type}=${x.status}`)).toEqual(['Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True']);
    expect(s).toMatchObject({ podIP: '127.0.0.1', hostIP: '127.0.0.1', qosClass: 'BestEffort' });
    const done = status(pod('Never'), [c('a', { state: 'EXITED' })]);
    expect(done.conditions.find((x) => x.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    // A Failed pod says so (the kubelet's PodFailed), in both readiness conditions.
    const failed = status(pod('Never'), [c('a', { state: 'EXITED', exitCode: 1 })]);
    expect(failed.phase).toBe('Failed');
    for (const type of ['Ready', 'ContainersReady']) expect(failed.conditions.find((x) => x.type === type)).toMatchObject({ status: 'False', reason: 'PodFailed' });
  });
  it('keeps transition times of unchanged conditions', () => {
    const first = status(pod(), [c('a')]);
    const later = computePodStatus({ pod: pod(), observed: obs([c('a')]), waiting: new Map(), previous: { ...first, conditions: first.conditions.map((x) => ({ ...x, lastTransitionTime: '2020-01-01T00:00:00Z' })) }, runtimeName: 'containerd', hostIP: '127.0.0.1', now });
    expect(later.conditions.every((x) => x.lastTransitionTime === '2020-01-01T00:00:00Z')).toBe(true);
  });
});
