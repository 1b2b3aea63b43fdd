// --runonce's verdict per pod (table), and the wait: it ends when every pod
// is settled, reports one line per pod (rejected ones included) and exits 0
// only when every pod runs or succeeded.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { ContainerStatus, Pod, PodStatus } from '../../../src/pod-model/pod-types.js';
import { awaitRunOnce, runOnceVerdict } from '../../../src/pods/run-once.js';
import { createStatusStore } from '../../../src/status/index.js';
import { testLogger } from '../../helpers/test-logger.js';

function pod(name: string, o: { readiness?: boolean } = {}): Pod {
  const d = decodePod({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { containers: [{ name: 'a', image: 'i:1', ...(o.readiness ? { readinessProbe: { exec: { command: ['true'] } } } : {}) }, { name: 'b', image: 'i:1' }] },
  });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}

const cs = (name: string, state: ContainerStatus['state'], ready = false): ContainerStatus => ({ name, state, lastState: {}, ready, restartCount: 0, image: 'i:1', imageID: '' });
const runningCs = (name: string, ready = true) => cs(name, { running: {} }, ready);
const status = (phase: PodStatus['phase'], containerStatuses: ContainerStatus[], extra: Partial<PodStatus> = {}): PodStatus => ({ phase, conditions: [], containerStatuses, ...extra });

describe('runOnceVerdict', () => {
  it.each<[string, Pod, PodStatus | undefined, { settled: boolean; ok: boolean; result: string; detail: string }]>([
    ['no status yet', pod('p'), undefined, { settled: false, ok: false, result: 'not-running', detail: 'no status yet' }],
    ['all running', pod('p'), status('Running', [runningCs('a'), runningCs('b')]), { settled: true, ok: true, result: 'running', detail: '2 running' }],
    ['running and ready where probed', pod('p', { readiness: true }), status('Running', [runningCs('a', true), runningCs('b', false)]), { settled: true, ok: true, result: 'running', detail: '2 running, ready' }],
    ['running, a probed container not ready', pod('p', { readiness: true }), status('Running', [runningCs('a', false), runningCs('b')]), { settled: false, ok: false, result: 'not-ready', detail: 'not ready: a' }],
    ['running phase, one container in back-off', pod('p'), status('Running', [runningCs('a'), cs('b', { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s' } })]), { settled: false, ok: false, result: 'not-running', detail: 'b: CrashLoopBackOff (back-off 10s)' }],
    ['pending on an init container', pod('p'), status('Pending', [cs('a', { waiting: { reason: 'PodInitializing' } })], { initContainerStatuses: [cs('setup', { waiting: { reason: 'CrashLoopBackOff' } })] }), { settled: false, ok: false, result: 'not-running', detail: 'init container setup: CrashLoopBackOff; a: PodInitializing' }],
    ['succeeded', pod('p'), status('Succeeded', [cs('a', { terminated: { exitCode: 0 } })]), { settled: true, ok: true, result: 'succeeded', detail: 'every container exited 0' }],
    ['failed', pod('p'), status('Failed', [cs('a', { terminated: { exitCode: 3 } }), cs('b', { terminated: { exitCode: 0 } })]), { settled: true, ok: false, result: 'failed', detail: 'a exited 3' }],
    ['failed on an init container', pod('p'), status('Failed', [cs('a', { waiting: { reason: 'PodInitializing' } })], { initContainerStatuses: [cs('setup', { terminated: { exitCode: 2 } })] }), { settled: true, ok: false, result: 'failed', detail: 'init container setup: exited 2; a: PodInitializing' }],
    ['rejected at admission', pod('p'), status('Failed', [], { reason: 'OutOfpods', message: 'no room' }), { settled: true, ok: false, result: 'rejected', detail: 'OutOfpods: no room' }],
  ])('%s', (_n, p, s, want) => {
    expect(runOnceVerdict(p, s)).toEqual(want);
  });
});

describe('awaitRunOnce', () => {
  it('waits for every pod to settle, reports each (the rejected one too) and exits 1 when one did not run', async () => {
    const store = createStatusStore();
    const [a, b, rejected] = [pod('a'), pod('b'), pod('r')];
    const log = testLogger();
    const { records } = log;
    let seen = false;
    const done = awaitRunOnce({ status: store, desired: () => [a, b], allSourcesSeen: () => seen, log, timeoutMs: 5_000 }, new AbortController().signal);
    store.set(rejected.metadata.uid, { pod: rejected, status: status('Failed', [], { reason: 'OutOfpods', message: 'no room' }) });
    store.set(a.metadata.uid, { pod: a, status: status('Running', [runningCs('a'), runningCs('b')]) });
    seen = true;
    store.set(b.metadata.uid, { pod: b, status: status('Succeeded', [cs('a', { terminated: { exitCode: 0 } })]) });
    expect(await done).toBe(1);
    const lines = records.filter((r) => r.msg === 'Run once pod result').map((r) => [r.fields['pod'], r.fields['result']]);
    expect(lines).toEqual([['default/a', 'running'], ['default/b', 'succeeded'], ['default/r', 'rejected']]);
    expect(records.at(-1)).toMatchObject({ msg: 'Run once finished: some pods did not run', fields: { pods: 3, failed: 1 } });
  });

  it('exits 0 when every pod runs, and at the timeout reports what is still not running', async () => {
    const store = createStatusStore();
    const a = pod('a');
    const log = testLogger();
    const { records } = log;
    store.set(a.metadata.uid, { pod: a, status: status('Running', [runningCs('a'), runningCs('b')]) });
    expect(await awaitRunOnce({ status: store, desired: () => [a], allSourcesSeen: () => true, log }, new AbortController().signal)).toBe(0);
    const b = pod('b');
    store.set(b.metadata.uid, { pod: b, status: status('Pending', [cs('a', { waiting: { reason: 'ErrImagePull', message: 'not found' } })]) });
    expect(await awaitRunOnce({ status: store, desired: () => [b], allSourcesSeen: () => true, log, timeoutMs: 300 }, new AbortController().signal)).toBe(1);
    expect(records.filter((r) => r.msg === 'Run once pod result' && r.fields['pod'] === 'default/b').at(-1)?.fields).toMatchObject({ result: 'not-running', detail: 'a: ErrImagePull (not found)' });
  });
});
