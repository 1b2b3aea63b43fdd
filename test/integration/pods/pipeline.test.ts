// The pod pipeline (merger → pod manager → sync → PLEG → status) against the
// stateful in-memory runtime. Back-offs are shortened; everything else is
// the production code path.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { LABEL_POD_UID } from '../../../src/runtime-view/labels.js';
import { RELIST_WAIT_MS } from '../../../src/pods/index.js';
import { IMAGE, manifest, start, stopFirst } from './harness.js';

describe('pod pipeline on the in-memory runtime', () => {
  it('starts a pod; editing one container restarts only that one; removing the pod tears it down', async () => {
    const h = start();
    const v1 = manifest('web', {}, [
      { name: 'a', image: IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh'] },
      { name: 'b', image: IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh'] },
    ]);
    h.set([v1]);
    await h.until(() => h.phase(v1) === 'Running', 'Running');
    const running = () => h.runtime.containers().filter((c) => c.state === 'RUNNING');
    expect(running().map((c) => c.config.metadata.name).sort()).toEqual(['a', 'b']);
    const idOf = (n: string) => running().find((c) => c.config.metadata.name === n)!.id;
    const [a1, b1] = [idOf('a'), idOf('b')];

    const v2 = manifest('web', {}, [
      { name: 'a', image: IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh'] },
      { name: 'b', image: IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'changed'] },
    ]);
    expect(v2.metadata.uid).toBe(v1.metadata.uid);
    h.set([v2]);
    await h.until(() => running().length === 2 && idOf('b') !== b1, 'b restarted');
    expect(idOf('a')).toBe(a1);
    // The status follows at the next relist, as the kubelet's does.
    const restarts = (n: string) => h.status.get(v1.metadata.uid)!.status.containerStatuses.find((s) => s.name === n)!.restartCount;
    await h.until(() => restarts('b') === 1, 'restartCount of b is 1');
    expect(restarts('a')).toBe(0);
    expect(h.calls('runPodSandbox')).toBe(1);

    const logDir = `${h.logsDir}/default_${v1.metadata.name}_${v1.metadata.uid}`;
    expect(existsSync(logDir)).toBe(true);
    h.set([]);
    await h.until(() => h.runtime.sandboxes().length === 0 && h.runtime.containers().length === 0, 'teardown');
    await h.until(() => !existsSync(logDir), 'log directory removed');
    // The status goes when the teardown has finished, which is after the log directory (the data directory goes last).
    await h.until(() => h.status.get(v1.metadata.uid) === undefined, 'status dropped');
  });

  it('reports each time its workers go quiet, with the syncs since the last report that changed the runtime (the burst collector\'s cue)', async () => {
    const h = start({ syncFrequencyMs: 100 });
    expect(h.manager.busy()).toBe(false);
    const pods = Array.from({ length: 30 }, (_, i) => manifest(`burst-${i}`));
    h.set(pods);
    expect(h.manager.busy()).toBe(true);
    await h.until(() => pods.every((p) => h.phase(p) === 'Running'), 'all Running');
    await h.until(() => !h.manager.busy(), 'workers idle');
    const changes = () => h.settled.reduce((n, s) => n + s.changes, 0);
    expect(changes()).toBe(30); // one start per pod
    expect(h.settled.every((s) => !s.busy)).toBe(true);
    // Resyncs (every 100 ms here) that find nothing to do are reported as no change.
    const reports = h.settled.length;
    await h.until(() => h.settled.length > reports + 2, 'resyncs reported');
    expect(changes()).toBe(30);
    h.set([]);
    await h.until(() => h.runtime.sandboxes().length === 0 && !h.manager.busy(), 'teardown');
    expect(changes()).toBe(60); // and one teardown per pod
  });

  it.each([
    [45, 45],
    [1, 2],
    [0, 2],
  ])('stops containers with the grace period %i as a stop timeout of %i s (the kubelet gives at least 2 s)', async (grace, timeout) => {
    const h = start();
    const p = manifest(`grace-${grace}`, { terminationGracePeriodSeconds: grace });
    h.set([p]);
    await h.until(() => h.phase(p) === 'Running', 'Running');
    h.set([]);
    await h.until(() => h.runtime.containers().length === 0, 'teardown');
    expect(h.runtime.callsOf('stopContainer').map(([, t]) => t)).toEqual([timeout]);
  });

  it('resyncs read the relist snapshot instead of asking the runtime per pod', async () => {
    const h = start({ syncFrequencyMs: 30 });
    const p = manifest('quiet');
    h.set([p]);
    await h.until(() => h.phase(p) === 'Running', 'Running');
    const perPod = () => h.runtime.callsOf('listContainers').filter(([f]) => f?.labelSelector?.[LABEL_POD_UID] !== undefined).length;
    const relists = () => h.runtime.callsOf('listContainers').length - perPod();
    const [before, relistsBefore, resyncsBefore] = [perPod(), relists(), h.count('resync')];
    // A dozen resyncs, each after a sync of the pod (where the same lines once slept 400 ms: ~13 resyncs, ~20 relists).
    await h.until(() => h.count('resync') >= resyncsBefore + 12 && relists() - relistsBefore > 5, '12 resyncs');
    expect(relists() - relistsBefore).toBeGreaterThan(5);
    expect(perPod() - before).toBe(0); // a resync right after a sync waits for the next relist, as the kubelet's pod cache does
    expect(h.phase(p)).toBe('Running');
  });

  it('reads the runtime itself when no relist comes after a sync (a stuck PLEG), without starting a second copy', async () => {
    const h = start({ plegPeriodMs: 600_000, syncFrequencyMs: 100 });
    const p = manifest('stuck');
    h.set([p]);
    const t0 = performance.now();
    await h.until(() => h.phase(p) === 'Running', 'Running', 10_000);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(RELIST_WAIT_MS - 50);
    expect(h.calls('createContainer')).toBe(1);
    const perPod = () => h.runtime.callsOf('listContainers').filter(([f]) => f?.labelSelector?.[LABEL_POD_UID] === p.metadata.uid).length;
    expect(perPod()).toBeGreaterThan(0);

    // A source change does not wait for the (here very late) next relist: it asks the PLEG for one.
    const before = perPod();
    h.set([]);
    await h.until(() => h.runtime.containers().length === 0 && h.runtime.sandboxes().length === 0, 'teardown');
    expect(perPod()).toBe(before);
  });

  it('restarts a crashing container with growing back-off; restartCount rises; CrashLoopBackOff is reported', async () => {
    const startedAt: number[] = [];
    const h = start({
      onStart: () => {
        startedAt.push(performance.now());
        return { exitAfterMs: 0, exitCode: 1 };
      },
    });
    const pod = manifest('crash');
    h.set([pod]);
    const cs = () => h.status.get(pod.metadata.uid)?.status.containerStatuses[0];
    await h.until(() => (cs()?.restartCount ?? 0) >= 3, 'three restarts');
    await h.until(() => cs()?.state.waiting?.reason === 'CrashLoopBackOff', 'CrashLoopBackOff');
    expect(cs()!.lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(h.phase(pod)).toBe('Running');
    // First restart at once, then at least 100, 200 ms apart (back-off doubling; a lower bound cannot flake).
    const gaps = startedAt.slice(1).map((t, i) => t - startedAt[i]!);
    expect(gaps[1]).toBeGreaterThanOrEqual(95);
    expect(gaps[2]).toBeGreaterThanOrEqual(195);
  });

  it('restartPolicy Never leaves the exited container and the pod Failed or Succeeded', async () => {
    const h = start({ onStart: (cfg) => ({ exitAfterMs: 0, exitCode: cfg.metadata.name === 'bad' ? 3 : 0 }) });
    const failed = manifest('failing', { restartPolicy: 'Never' }, [{ name: 'bad', image: IMAGE, imagePullPolicy: 'IfNotPresent' }]);
    const ok = manifest('done', { restartPolicy: 'Never' }, [{ name: 'good', image: IMAGE, imagePullPolicy: 'IfNotPresent' }]);
    h.set([failed, ok]);
    await h.until(() => h.phase(failed) === 'Failed' && h.phase(ok) === 'Succeeded', 'terminal phases');
    expect(h.status.get(failed.metadata.uid)!.status.containerStatuses[0]!.state.terminated).toMatchObject({ exitCode: 3 });
    expect(h.calls('startContainer')).toBe(2);
    // The sandbox of a finished pod is stopped, its containers kept for their status.
    await h.until(() => h.runtime.sandboxes().every((s) => s.state === 'NOTREADY'), 'sandboxes stopped');
    expect(h.runtime.containers()).toHaveLength(2);
  });

  it('a restarted agent adopts what runs instead of recreating it, and tears down pods no source declares', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const first = start({ runtime });
    const keep = manifest('keep');
    const gone = manifest('gone');
    first.set([keep, gone]);
    await first.until(() => first.phase(keep) === 'Running' && first.phase(gone) === 'Running', 'both running');
    await stopFirst();
    const ids = runtime.containers().map((c) => c.id).sort();
    const created = runtime.calls.filter((c) => c.method === 'createContainer').length;

    const second = start({ runtime });
    second.set([keep]);
    await second.until(() => second.phase(keep) === 'Running', 'adopted');
    await second.until(() => runtime.containers().length === 1, 'orphan torn down');
    expect(runtime.calls.filter((c) => c.method === 'createContainer').length).toBe(created);
    expect(runtime.containers().map((c) => c.id)).toEqual(ids.filter((id) => runtime.containers().some((c) => c.id === id)));
    expect(runtime.containers()[0]!.config.labels['io.platform.pod.uid']).toBe(keep.metadata.uid);
  });

  it('a container whose creation keeps failing is retried after the error back-off, with nothing else to prompt a sync', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    // The first sync and the one the new sandbox's relist event brings both fail; then only the retry is left.
    runtime.failNext('createContainer', 'UNKNOWN', 2);
    const h = start({ runtime, errorBackoffMs: 100 });
    // Every waiting reason published (the failures show only until the retry succeeds: not polled for).
    const reasons = new Set<string>();
    h.status.subscribe((_, next) => next?.status.containerStatuses.forEach((c) => { if (c.state.waiting?.reason) reasons.add(c.state.waiting.reason); }));
    const pod = manifest('flaky');
    h.set([pod]);
    await h.until(() => h.phase(pod) === 'Running', 'running after the retry');
    expect(reasons).toContain('CreateContainerError');
    expect(h.calls('createContainer')).toBe(3);
    expect(h.calls('runPodSandbox')).toBe(1);
  });

  it('an image missing under pull policy Never waits with ErrImageNeverPull', async () => {
    const h = start();
    const pod = manifest('never', {}, [{ name: 'main', image: 'localhost/absent:1', imagePullPolicy: 'Never' }]);
    h.set([pod]);
    const w = await h.until(() => h.status.get(pod.metadata.uid)?.status.containerStatuses[0]?.state.waiting, 'waiting');
    expect(w).toEqual({ reason: 'ErrImageNeverPull', message: 'Container image "localhost/absent:1" is not present with pull policy of Never' });
    expect(h.phase(pod)).toBe('Pending');
  });

  it('pods beyond the pod cap are rejected and never start', async () => {
    const h = start({ maxPods: 1 });
    const a = manifest('a');
    const b = manifest('b');
    h.set([a, b]);
    await h.until(() => h.phase(a) === 'Running', 'a running');
    expect(h.status.get(b.metadata.uid)!.status).toMatchObject({ phase: 'Failed', reason: 'OutOfpods' });
    expect(h.runtime.sandboxes()).toHaveLength(1);
  });

  it('finished pods do not count against the pod cap', async () => {
    const h = start({ maxPods: 1, onStart: () => ({ exitAfterMs: 0, exitCode: 0 }) });
    const done = manifest('done', { restartPolicy: 'Never' });
    h.set([done]);
    await h.until(() => h.phase(done) === 'Succeeded', 'done Succeeded');
    const next = manifest('next', { restartPolicy: 'Never' });
    h.set([done, next]);
    await h.until(() => h.phase(next) === 'Succeeded', 'next admitted and run');
    expect(h.status.get(next.metadata.uid)!.status.reason).toBeUndefined();
  });
});
