// The executor's failure paths against the in-memory runtime: each failing
// step becomes the waiting reason the kubelet reports, and nothing is lost.
import { describe, expect, it } from 'vitest';
import { CriError } from '../../../src/cri/errors.js';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { observePod } from '../../../src/runtime-view/observe.js';
import { IMAGE, staticPod as pod, syncDeps as deps, syncOnce as sync } from '../../helpers/sync-pod.js';

describe('sync failures become waiting reasons', () => {
  it('createContainer fails → CreateContainerError; the next sync starts it', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    runtime.failNext('createContainer', 'UNKNOWN');
    const p = pod({});
    const r1 = await sync(runtime, p);
    expect(r1.waiting.get('main')?.reason).toBe('CreateContainerError');
    expect(runtime.sandboxes()).toHaveLength(1);
    const r2 = await sync(runtime, p);
    expect(r2.waiting.size).toBe(0);
    expect(runtime.containers().filter((c) => c.state === 'RUNNING')).toHaveLength(1);
    expect(runtime.sandboxes()).toHaveLength(1);
  });
  it('an image removed while the last "present" answer stands: creation fails, and the next sync pulls it again', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE], registry: { [IMAGE]: {} } });
    const d = deps(runtime);
    expect((await sync(runtime, pod({}, 'a'), d)).waiting.size).toBe(0);
    await runtime.removeImage(IMAGE);
    const r1 = await sync(runtime, pod({}, 'b'), d);
    expect(r1.waiting.get('main')).toMatchObject({ reason: 'CreateContainerError', message: expect.stringContaining('not found') });
    const r2 = await sync(runtime, pod({}, 'b'), d);
    expect(r2.waiting.size).toBe(0);
    expect(runtime.callsOf('pullImage').map(([image]) => image)).toEqual([IMAGE]);
    expect(runtime.containers().filter((c) => c.state === 'RUNNING')).toHaveLength(2);
  });
  it('startContainer fails → RunContainerError', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE], onStart: () => ({ startError: 'exec: "nope": executable file not found' }) });
    const r = await sync(runtime, pod({ command: ['nope'] }));
    expect(r.waiting.get('main')).toMatchObject({ reason: 'RunContainerError' });
  });
  it('a failing pull → ErrImagePull, then ImagePullBackOff without another pull', async () => {
    const image = '127.0.0.1:5001/team/app:1';
    const runtime = new FakeRuntime({ registry: { [image]: { error: new CriError('UNKNOWN', 'failed to resolve reference') } } });
    const d = deps(runtime);
    const p = pod({ image });
    expect((await sync(runtime, p, d)).waiting.get('main')).toMatchObject({ reason: 'ErrImagePull' });
    const pulls = runtime.calls.filter((c) => c.method === 'pullImage').length;
    expect((await sync(runtime, p, d)).waiting.get('main')).toEqual({ reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` });
    expect(runtime.calls.filter((c) => c.method === 'pullImage').length).toBe(pulls);
  });
  it('a configMap env reference → CreateContainerConfigError, nothing created', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const r = await sync(runtime, pod({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }] }));
    expect(r.waiting.get('main')).toMatchObject({ reason: 'CreateContainerConfigError' });
    expect(runtime.containers()).toHaveLength(0);
  });
  it('a runtime that is down: the sync reports an error and the next one recovers', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const p = pod({});
    runtime.setDown(true);
    const ac = new AbortController();
    await expect(observePod(runtime, p.metadata.uid, ac.signal)).rejects.toThrow(/UNAVAILABLE/);
    runtime.failNext('runPodSandbox', 'UNAVAILABLE');
    runtime.setDown(false);
    expect((await sync(runtime, p)).error?.message).toMatch(/UNAVAILABLE/);
    expect((await sync(runtime, p)).error).toBeUndefined();
    expect(runtime.containers().filter((c) => c.state === 'RUNNING')).toHaveLength(1);
  });
});
