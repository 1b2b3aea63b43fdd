// The pod sync with the volume layer, on the in-memory runtime and a real
// temporary --root-dir: a pod whose volume is not ready makes no sandbox and
// waits (ContainerCreating, the kubelet's MountVolume.SetUp message) until a
// later sync finds it ready; containers get the volumes' host paths; a
// subPathExpr that cannot be expanded is the container's
// CreateContainerConfigError; teardown removes the pod's directory.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { teardownPod } from '../../../src/pods/sync-pod.js';
import { observePod } from '../../../src/runtime-view/observe.js';
import { createVolumes } from '../../../src/volumes/index.js';
import { tempDir } from '../../helpers/agent-process.js';
import { IMAGE, staticPod, syncDeps, syncOnce } from '../../helpers/sync-pod.js';
import { testLogger } from '../../helpers/test-logger.js';

const tmp = tempDir('agent-volsync-');
afterAll(() => tmp.cleanup());

function deps(runtime: FakeRuntime) {
  const volumes = createVolumes({ rootDirectory: tmp.dir, node: { memoryBytes: 1 << 30, cpuMilli: 1000, ephemeralStorageBytes: 0 }, sizeMemoryBackedVolumes: true, log: testLogger() });
  const d = syncDeps(runtime, { volumes });
  return { ...d, container: { ...d.container, rootDirectory: tmp.dir } };
}

describe('a pod sync with volumes', () => {
  it('waits without a sandbox while a hostPath check fails, then starts with the volumes mounted', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const d = deps(runtime);
    const hostDir = `${tmp.dir}/host-data`;
    const p = staticPod({ volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'scratch', mountPath: '/s', subPathExpr: '$(SUB)' }], env: [{ name: 'SUB', value: 'part' }] });
    p.spec.volumes = [
      { name: 'data', hostPath: { path: hostDir, type: 'Directory' } },
      { name: 'scratch', emptyDir: {} },
    ];
    const first = await syncOnce(runtime, p, d);
    expect(first.waiting.get('main')).toEqual({ reason: 'ContainerCreating', message: `MountVolume.SetUp failed for volume "data" : hostPath type check failed: ${hostDir} is not a directory` });
    expect(first.error?.message).toBe(`hostPath type check failed: ${hostDir} is not a directory`);
    expect(runtime.sandboxes()).toEqual([]);

    mkdirSync(hostDir);
    const second = await syncOnce(runtime, p, d);
    expect(second.error).toBeUndefined();
    expect(second.waiting.size).toBe(0);
    const [c] = runtime.containers();
    const scratch = `${tmp.dir}/pods/${p.metadata.uid}/volumes/platform.io~empty-dir/scratch`;
    expect(c!.config.mounts).toEqual([
      { containerPath: '/data', hostPath: hostDir, readonly: false, propagation: 'PRIVATE' },
      { containerPath: '/s', hostPath: `${scratch}/part`, readonly: false, propagation: 'PRIVATE' },
    ]);
    expect(statSync(`${scratch}/part`).isDirectory()).toBe(true);

    const ac = new AbortController();
    await teardownPod(await observePod(runtime, p.metadata.uid, ac.signal), 0, d, ac.signal);
    expect(existsSync(`${tmp.dir}/pods/${p.metadata.uid}`)).toBe(false);
    expect(existsSync(hostDir)).toBe(true);
  });

  it('a configMap volume: every container that would start waits; another pod is not held up', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const d = deps(runtime);
    const waiting = staticPod({ volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }] }, 'waits');
    waiting.spec.volumes = [{ name: 'cfg', otherSources: ['configMap'] }];
    waiting.spec.containers.push({ ...waiting.spec.containers[0]!, name: 'second', volumeMounts: [] });
    const other = staticPod({}, 'runs');
    const [w, r] = await Promise.all([syncOnce(runtime, waiting, d), syncOnce(runtime, other, d)]);
    const msg = 'MountVolume.SetUp failed for volume "cfg" : configMap volumes cannot be served by a standalone agent: no API server';
    expect(Object.fromEntries(w.waiting)).toEqual({ main: { reason: 'ContainerCreating', message: msg }, second: { reason: 'ContainerCreating', message: msg } });
    expect(r.waiting.size).toBe(0);
    expect(runtime.containers().map((c) => c.config.metadata.name)).toEqual(['main']);
  });

  it('a subPathExpr naming a variable the container lacks: CreateContainerConfigError for that container', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const d = deps(runtime);
    const p = staticPod({ volumeMounts: [{ name: 'scratch', mountPath: '/s', subPathExpr: '$(NOPE)' }] }, 'expr');
    p.spec.volumes = [{ name: 'scratch', emptyDir: {} }];
    const out = await syncOnce(runtime, p, d);
    expect(out.waiting.get('main')).toEqual({ reason: 'CreateContainerConfigError', message: 'missing value for NOPE' });
  });
});
