// Sidecars on the in-memory runtime (SidecarContainers on): started one after
// the other before the app containers, and stopped after them, last-to-first,
// when the pod is torn down or stops on its own (restartPolicy Never).
import { describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod, RestartPolicy } from '../../../src/pod-model/pod-types.js';
import { stopOrder, teardownPod } from '../../../src/pods/sync-pod.js';
import { observePod } from '../../../src/runtime-view/observe.js';
import type { ObservedContainer } from '../../../src/runtime-view/observed.js';
import { applyStaticPodDefaults } from '../../../src/sources/static-pod.js';
import { IMAGE, syncDeps, syncOnce } from '../../helpers/sync-pod.js';

function sidecarPod(restartPolicy: RestartPolicy = 'Always'): Pod {
  const c = (name: string, more: Record<string, unknown> = {}) => ({ name, image: IMAGE, imagePullPolicy: 'IfNotPresent', ...more });
  const d = decodePod({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'sc' },
    spec: { hostNetwork: true, restartPolicy, terminationGracePeriodSeconds: 10, initContainers: [c('s1', { restartPolicy: 'Always' }), c('s2', { restartPolicy: 'Always' })], containers: [c('a'), c('b')] },
  });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return applyStaticPodDefaults(d.pod, 'n', 'file', '/m/sc.yaml', new Date());
}

/** Names of the containers the runtime was asked to stop, in order. */
function stopped(runtime: FakeRuntime, names = containerNames(runtime)): string[] {
  return runtime.calls.filter((c) => c.method === 'stopContainer').map((c) => names.get(c.args[0] as string) ?? '?');
}
const containerNames = (runtime: FakeRuntime): Map<string, string> => new Map(runtime.containers().map((c) => [c.id, c.config.metadata.name]));
const created = (runtime: FakeRuntime): string[] => runtime.calls.filter((c) => c.method === 'createContainer').map((c) => (c.args[1] as { metadata: { name: string } }).metadata.name);

async function runUp(runtime: FakeRuntime, pod: Pod): Promise<void> {
  const deps = syncDeps(runtime, { sidecars: true });
  // Bounded: one sync per init container, one for the app containers.
  for (let i = 0; i < 3; i++) await syncOnce(runtime, pod, deps);
}

describe('sidecars on the in-memory runtime', () => {
  it('start in order, one per sync, before the app containers', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const pod = sidecarPod();
    const deps = syncDeps(runtime, { sidecars: true });
    await syncOnce(runtime, pod, deps);
    expect(created(runtime)).toEqual(['s1']);
    await syncOnce(runtime, pod, deps);
    expect(created(runtime)).toEqual(['s1', 's2']);
    await syncOnce(runtime, pod, deps);
    expect(created(runtime)).toEqual(['s1', 's2', 'a', 'b']);
    expect(runtime.containers().every((c) => c.state === 'RUNNING')).toBe(true);
  });

  it('a teardown stops the app containers first, then the sidecars last-to-first', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const pod = sidecarPod();
    await runUp(runtime, pod);
    const ac = new AbortController();
    const names = containerNames(runtime);
    await teardownPod(await observePod(runtime, pod.metadata.uid, ac.signal), 10, syncDeps(runtime, { sidecars: true }), ac.signal);
    const order = stopped(runtime, names);
    expect(order.slice(0, 2).sort()).toEqual(['a', 'b']);
    expect(order.slice(2)).toEqual(['s2', 's1']);
  });

  it('a Never pod whose app containers are done stops its sidecars last-to-first', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const pod = sidecarPod('Never');
    await runUp(runtime, pod);
    for (const c of runtime.containers()) if (c.config.metadata.name === 'a' || c.config.metadata.name === 'b') runtime.exitContainer(c.id, 0);
    const result = await syncOnce(runtime, pod, syncDeps(runtime, { sidecars: true }));
    expect(result.actions.killPod).toBe(true);
    expect(result.actions.containersToStart).toEqual([]);
    expect(stopped(runtime)).toEqual(['s2', 's1']);
  });

  it('a sidecar restarted later still stops by its place in the spec', () => {
    const c = (name: string, o: Partial<ObservedContainer>): ObservedContainer => ({ id: name, name, sandboxId: 's', type: 'init', state: 'RUNNING', hash: '', restartCount: 0, createdAt: 0n, startedAt: 0n, finishedAt: 0n, exitCode: 0, reason: '', message: '', image: '', imageRef: '', ...o });
    // Newest first, as observed: s1 was restarted after s2 started.
    const order = stopOrder({ uid: 'u', name: 'p', namespace: 'd', sandboxes: [], containers: [c('s1', { specIndex: 0, createdAt: 3n }), c('a', { type: 'container', createdAt: 2n }), c('s2', { specIndex: 1, createdAt: 1n }), c('old', { state: 'EXITED' })] });
    expect(order.first.map((x) => x.name)).toEqual(['a']);
    expect(order.thenInOrder.map((x) => x.name)).toEqual(['s2', 's1']);
  });
});
