// The kubelet's pod events fire where the kubelet records them, with its
// reasons, messages and container references: image pulls (pulled, present,
// failed, back-off, never), create and start (and their failures), kill,
// crash-loop back-off, sandbox failure, a failed mount, a failed probe, and
// an admission rejection. Against the in-memory runtime; a recorder that
// keeps what it is given.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import type { EventObjectRef, EventRecorder, EventType } from '../../../src/events/index.js';
import { ImageManager } from '../../../src/images/manager.js';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import { createProber } from '../../../src/probes/manager.js';
import type { ObservedPod } from '../../../src/runtime-view/observed.js';
import { KeyedBackoff } from '../../../src/util/backoff.js';
import { handle, initialState } from '../../../src/pods/sync-step.js';
import { teardownPod } from '../../../src/pods/sync-pod.js';
import { observePod } from '../../../src/runtime-view/observe.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import type { VolumeManager } from '../../../src/volumes/index.js';
import { IMAGE, staticPod, syncDeps, syncOnce } from '../../helpers/sync-pod.js';
import { testLogger } from '../../helpers/test-logger.js';

interface Recorded {
  ref: EventObjectRef;
  type: EventType;
  reason: string;
  message: string;
}

function recorder(): EventRecorder & { events: Recorded[]; seen: () => string[] } {
  const events: Recorded[] = [];
  return { events, event: (ref, type, reason, message) => void events.push({ ref, type, reason, message }), seen: () => events.map((e) => `${e.type} ${e.reason}: ${e.message}`) };
}

function setup(runtime: FakeRuntime) {
  const rec = recorder();
  const images = new ImageManager({ images: runtime, maxParallel: 1, backoff: new KeyedBackoff({ initialMs: 60_000, maxMs: 300_000 }), credentials: async () => [], log: testLogger(), events: rec });
  return { rec, deps: syncDeps(runtime, { images, events: rec }) };
}

describe('pod sync events', () => {
  it('pull, create and start: Pulling, Pulled in Go durations, Created, Started, on the container', async () => {
    const runtime = new FakeRuntime({ registry: { [IMAGE]: {} } });
    const { rec, deps } = setup(runtime);
    const pod = staticPod({ imagePullPolicy: 'Always' }, 'web');
    expect((await syncOnce(runtime, pod, deps)).waiting.size).toBe(0);
    expect(rec.seen()).toEqual([
      `Normal Pulling: Pulling image "${IMAGE}"`,
      expect.stringMatching(/^Normal Pulled: Successfully pulled image "localhost\/busybox:latest" in (\d+ms|0s|[\d.]+s) \((\d+ms|0s|[\d.]+s) including waiting\)$/),
      'Normal Created: Created container main',
      'Normal Started: Started container main',
    ]);
    expect(rec.events[0]!.ref).toEqual({ kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid, apiVersion: 'v1', fieldPath: 'spec.containers{main}' });
  });

  it('an image already present: Pulled "already present on machine"', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const { rec, deps } = setup(runtime);
    await syncOnce(runtime, staticPod({}), deps);
    expect(rec.seen()[0]).toBe(`Normal Pulled: Container image "${IMAGE}" already present on machine`);
  });

  it('a failed pull: Failed and Error: ErrImagePull, then BackOff and Error: ImagePullBackOff', async () => {
    const runtime = new FakeRuntime({});
    const { rec, deps } = setup(runtime);
    const pod = staticPod({});
    await syncOnce(runtime, pod, deps);
    expect(rec.seen()).toEqual([`Normal Pulling: Pulling image "${IMAGE}"`, expect.stringMatching(/^Warning Failed: Failed to pull image "localhost\/busybox:latest": .+/), 'Warning Failed: Error: ErrImagePull']);
    rec.events.length = 0;
    await syncOnce(runtime, pod, deps);
    expect(rec.seen()).toEqual([`Normal BackOff: Back-off pulling image "${IMAGE}"`, 'Warning Failed: Error: ImagePullBackOff']);
  });

  it('pull policy Never with the image absent: ErrImageNeverPull', async () => {
    const runtime = new FakeRuntime({});
    const { rec, deps } = setup(runtime);
    await syncOnce(runtime, staticPod({ imagePullPolicy: 'Never' }), deps);
    expect(rec.seen()).toEqual([`Warning ErrImageNeverPull: Container image "${IMAGE}" is not present with pull policy of Never`, 'Warning Failed: Error: ErrImageNeverPull']);
  });

  it.each([
    ['createContainer', ['Normal Pulled', 'Warning Failed']],
    ['startContainer', ['Normal Pulled', 'Normal Created', 'Warning Failed']],
  ] as const)('a %s failure: Failed with "Error: ..."', async (method, reasons) => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const { rec, deps } = setup(runtime);
    runtime.failNext(method, 'UNKNOWN');
    await syncOnce(runtime, staticPod({}), deps);
    expect(rec.events.map((e) => `${e.type} ${e.reason}`)).toEqual(reasons);
    expect(rec.events.at(-1)!.message).toMatch(/^Error: /);
  });

  it('a sandbox that cannot be created: FailedCreatePodSandBox on the pod', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const { rec, deps } = setup(runtime);
    runtime.failNext('runPodSandbox', 'UNKNOWN');
    await syncOnce(runtime, staticPod({}), deps);
    expect(rec.events).toHaveLength(1);
    expect(rec.events[0]).toMatchObject({ type: 'Warning', reason: 'FailedCreatePodSandBox', message: expect.stringMatching(/^Failed to create pod sandbox: /) });
    expect(rec.events[0]!.ref.fieldPath).toBeUndefined();
  });

  it('an edited container is killed: Killing with the reason\'s message; a removed pod\'s: "Stopping container"', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const { rec, deps } = setup(runtime);
    const pod = staticPod({ command: ['sleep', '1d'] });
    await syncOnce(runtime, pod, deps);
    rec.events.length = 0;
    const edited = { ...pod, spec: { ...pod.spec, containers: [{ ...pod.spec.containers[0]!, command: ['sleep', '2d'] }] } };
    await syncOnce(runtime, edited, deps);
    expect(rec.seen()[0]).toBe('Normal Killing: Container main definition changed, will be restarted');
    expect(rec.events[0]!.ref.fieldPath).toBe('spec.containers{main}');
    rec.events.length = 0;
    const ac = new AbortController();
    await teardownPod(await observePod(runtime, pod.metadata.uid, ac.signal), 30, deps, ac.signal);
    expect(rec.seen()).toEqual(['Normal Killing: Stopping container main']);
  });

  it('a container that keeps failing: BackOff "Back-off restarting failed container"', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const { rec, deps } = setup(runtime);
    const pod = staticPod({});
    await syncOnce(runtime, pod, deps);
    for (let i = 0; i < 2; i++) {
      for (const c of runtime.containers()) if (c.state === 'RUNNING') runtime.exitContainer(c.id, 1);
      await syncOnce(runtime, pod, deps);
    }
    const { name, namespace, uid } = pod.metadata;
    expect(rec.seen()).toContain(`Warning BackOff: Back-off restarting failed container main in pod ${name}_${namespace}(${uid})`);
  });

  it('volumes that cannot be set up: FailedMount with the MountVolume.SetUp message', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const { rec, deps } = setup(runtime);
    const message = 'MountVolume.SetUp failed for volume "data" : nope';
    const volumes = { setUp: async () => ({ ready: false, volume: 'data', kind: 'hostPath', message, error: new Error('nope') }) } as unknown as VolumeManager;
    await syncOnce(runtime, staticPod({}), { ...deps, volumes });
    expect(rec.seen()).toEqual([`Warning FailedMount: ${message}`]);
  });
});

describe('probe events', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a failed liveness probe: Unhealthy "Liveness probe failed: <output>" on the container', async () => {
    const rec = recorder();
    const prober = createProber({
      runtime: { execSync: async () => ({ stdout: Buffer.from('not alive'), stderr: Buffer.alloc(0), exitCode: 1 }) },
      hostIP: '127.0.0.1',
      log: testLogger(),
      onChange: () => undefined,
      clock: { now: () => Date.now(), wall: () => Date.now(), random: () => 0 },
      events: rec,
    });
    const ac = new AbortController();
    const done = prober.run(ac.signal);
    const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'uid-1' }, spec: { hostNetwork: true, containers: [{ name: 'main', image: 'busybox', livenessProbe: { exec: { command: ['alive'] }, periodSeconds: 1 } }] } });
    if (!d.ok) throw new Error(JSON.stringify(d.problems));
    const c = { id: 'c1', name: 'main', sandboxId: 's1', type: 'container' as const, state: 'RUNNING' as const, hash: '', restartCount: 0, createdAt: 1n, startedAt: BigInt(Date.now()) * 1_000_000n, finishedAt: 0n, exitCode: 0, reason: '', message: '', image: '', imageRef: '' };
    const observed: ObservedPod = { uid: 'uid-1', name: 'p', namespace: 'default', sandboxes: [{ id: 's1', ready: true, attempt: 0, createdAt: 1n, ip: '', additionalIps: [], hostNetwork: true, configHash: '' }], containers: [c] };
    prober.observe([d.pod], new Map([['uid-1', observed]]));
    await vi.advanceTimersByTimeAsync(1_500);
    ac.abort();
    await done;
    expect(rec.events.length).toBeGreaterThanOrEqual(1);
    expect(rec.events[0]).toEqual({ ref: { kind: 'Pod', namespace: 'default', name: 'p', uid: 'uid-1', apiVersion: 'v1', fieldPath: 'spec.containers{main}' }, type: 'Warning', reason: 'Unhealthy', message: 'Liveness probe failed: not alive' });
  });
});

describe('admission events', () => {
  it('a pod over the cap: the rejection is also a Warning event with the kubelet\'s reason', () => {
    const pod = (name: string): Pod => ({ metadata: { name, namespace: 'default', uid: name }, spec: { terminationGracePeriodSeconds: 30, containers: [] } }) as unknown as Pod;
    const state = initialState({ maxPods: 1, errorBackoffMs: 10_000 });
    const add = (name: string) => handle(state, { kind: 'source', updates: [{ op: 'ADD', pod: pod(name), source: 'file' }], allSourcesSeen: true, finished: new Set() });
    handle(state, { kind: 'start' });
    add('a');
    const rejected = add('b').flatMap((c) => (c.kind === 'log' && c.event ? [{ uid: c.event.pod.metadata.uid, reason: c.event.reason, message: c.event.message }] : []));
    expect(rejected).toEqual([{ uid: 'b', reason: 'OutOfpods', message: expect.stringContaining('') }]);
  });
});
