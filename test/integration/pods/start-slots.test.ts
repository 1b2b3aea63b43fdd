// Pod start slots (SyncDeps.startSlots): a pod keeps its slot from the sandbox
// through its containers' start, as pods started one after the other would;
// it gives the slot up for an image pull and when its sync ends, however it ends.
import { describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { Semaphore } from '../../../src/util/rate-limit.js';
import { IMAGE, staticPod, syncDeps, syncOnce } from '../../helpers/sync-pod.js';

/** The start steps in call order: "runPodSandbox p-a-n", "createContainer a", "startContainer". */
function startSteps(runtime: FakeRuntime): string[] {
  return runtime.calls.flatMap((c) => {
    if (c.method === 'runPodSandbox') return [`runPodSandbox ${(c.args[0] as { metadata: { name: string } }).metadata.name}`];
    if (c.method === 'createContainer') return [`createContainer ${(c.args[1] as { metadata: { name: string } }).metadata.name}`];
    if (c.method === 'startContainer' || c.method === 'pullImage') return [c.method];
    return [];
  });
}

describe('pod start slots', () => {
  it('one slot: a pod runs sandbox, create and start before the next pod begins', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const d = syncDeps(runtime, { startSlots: new Semaphore(1) });
    const results = await Promise.all([staticPod({ name: 'a' }, 'p-a'), staticPod({ name: 'b' }, 'p-b')].map((p) => syncOnce(runtime, p, d)));
    expect(results.map((r) => r.error)).toEqual([undefined, undefined]);
    // Either pod may go first; neither's steps interleave with the other's.
    const pod = (x: string) => [`runPodSandbox p-${x}-n`, `createContainer ${x}`, 'startContainer'];
    expect([[...pod('a'), ...pod('b')], [...pod('b'), ...pod('a')]]).toContainEqual(startSteps(runtime));
  });

  it('a pod pulling its image lets the next pod start meanwhile', async () => {
    const pulled = '127.0.0.1:5001/team/app:1';
    const runtime = new FakeRuntime({ images: [IMAGE], registry: { [pulled]: {} } });
    const pull = runtime.block('pullImage');
    const d = syncDeps(runtime, { startSlots: new Semaphore(1) });
    const a = syncOnce(runtime, staticPod({ name: 'a', image: pulled }, 'p-a'), d);
    await pull.arrived;
    const b = await syncOnce(runtime, staticPod({ name: 'b' }, 'p-b'), d);
    expect(b.waiting.size).toBe(0);
    pull.release();
    expect((await a).waiting.size).toBe(0);
    expect(startSteps(runtime)).toEqual(['runPodSandbox p-a-n', 'pullImage', 'runPodSandbox p-b-n', 'createContainer b', 'startContainer', 'createContainer a', 'startContainer']);
  });

  it('a sync that fails gives its slot back', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    runtime.failNext('createContainer', 'UNKNOWN');
    const d = syncDeps(runtime, { startSlots: new Semaphore(1) });
    expect((await syncOnce(runtime, staticPod({ name: 'a' }, 'p-a'), d)).waiting.get('a')?.reason).toBe('CreateContainerError');
    runtime.failNext('runPodSandbox', 'UNAVAILABLE');
    expect((await syncOnce(runtime, staticPod({ name: 'b' }, 'p-b'), d)).error?.message).toMatch(/UNAVAILABLE/);
    expect((await syncOnce(runtime, staticPod({ name: 'c' }, 'p-c'), d)).waiting.size).toBe(0);
    expect(runtime.containers().filter((c) => c.state === 'RUNNING').map((c) => c.config.metadata.name)).toEqual(['c']);
  });
});
