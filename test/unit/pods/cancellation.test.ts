// Per-pod cancellation: a pod's work runs under its own AbortController, so
// removing the pod (or stopping the agent) aborts its pull, create or start
// in flight instead of waiting for it. The fake runtime's pullImage is held
// until released; nothing here releases it.
import { afterEach, describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { ImageManager } from '../../../src/images/manager.js';
import { createPleg } from '../../../src/pleg/index.js';
import { createPodManager, type PodManager } from '../../../src/pods/index.js';
import type { Command, SyncEvent } from '../../../src/pods/sync-step.js';
import { PodConfigMerger } from '../../../src/sources/merger.js';
import { applyStaticPodDefaults } from '../../../src/sources/static-pod.js';
import { StatusStore } from '../../../src/status/store.js';
import { KeyedBackoff } from '../../../src/util/backoff.js';
import { tempDir } from '../../helpers/agent-process.js';
import { testLogger } from '../../helpers/test-logger.js';

const PULLED = '127.0.0.1:5001/team/app:1';

function pod(name: string): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { hostNetwork: true, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: PULLED, imagePullPolicy: 'IfNotPresent' }] } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return applyStaticPodDefaults(d.pod, 'node-a', 'file', `/m/${name}.yaml`, new Date());
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

/** The pod manager and a PLEG on the fake runtime; `commands` are the step's commands so far, in order. */
function start(runtime: FakeRuntime, onStep?: (e: SyncEvent) => void) {
  const t = tempDir();
  const log = testLogger();
  const merger = new PodConfigMerger(['file']);
  const commands: Command[] = [];
  const listeners = new Set<() => void>();
  const images = new ImageManager({ images: runtime, maxParallel: 1, backoff: new KeyedBackoff({ initialMs: 50, maxMs: 400 }), credentials: async () => [], log });
  const manager: PodManager = createPodManager({
    status: new StatusStore(),
    runtimeName: () => 'fake',
    syncFrequencyMs: 60_000,
    maxPods: 110,
    allSourcesSeen: () => merger.allSourcesSeen(),
    requestRelist: () => pleg.kick(),
    onStep: (e: SyncEvent, cs) => {
      onStep?.(e);
      commands.push(...cs);
      for (const l of [...listeners]) l();
    },
    sync: {
      runtime,
      images,
      crashBackoff: new KeyedBackoff({ initialMs: 100, maxMs: 400 }),
      nodeName: 'node-a',
      hostIP: '127.0.0.1',
      log,
      sandbox: { dns: { clusterDNS: [], clusterDomain: '', host: () => undefined, nodeIPs: ['127.0.0.1'] }, podLogsDir: t.dir, cgroupParent: '' },
      container: { cpuCFSQuota: true, cpuCFSQuotaPeriodMs: 100, memoryCapacity: 8 << 30, seccompDefault: false, rootDirectory: t.dir },
    },
  });
  const pleg = createPleg({ runtime, log, onRelist: (c, s, at) => manager.onRelist(c, s, at), periodMs: 20 });
  const ac = new AbortController();
  const runs = [manager.run(ac.signal), pleg.run(ac.signal)];
  stops.push(async () => {
    ac.abort();
    await Promise.all(runs);
    t.cleanup();
  });
  /** Resolves once the step has given a command matching `pred` (one already given counts). */
  const command = (pred: (c: Command) => boolean): Promise<Command> =>
    new Promise((resolve) => {
      const check = (): void => {
        const c = commands.find(pred);
        if (c === undefined) return;
        listeners.delete(check);
        resolve(c);
      };
      listeners.add(check);
      check();
    });
  const set = (pods: Pod[]) => manager.applyUpdates(merger.set('file', pods).updates);
  return { manager, set, command, stop: () => ac.abort(), runs, removeTemp: () => t.cleanup() };
}

/** Lets every callback already due run (promise jobs and immediates), but no timer of any length. */
const settle = () => new Promise((r) => setImmediate(r));

describe('per-pod cancellation', () => {
  it('removing a pod whose image pull is blocked aborts that pull at once, and its teardown starts and runs', async () => {
    const runtime = new FakeRuntime({ registry: { [PULLED]: {} } });
    const pull = runtime.block('pullImage');
    const h = start(runtime);
    const p = pod('pulling');
    h.set([p]);
    await pull.arrived;
    expect(runtime.sandboxes()).toHaveLength(1);

    let aborted = false;
    void pull.cancelled.then(() => (aborted = true));
    h.set([]);
    // Without a timer running in between: the removal itself aborts the pull's signal.
    await settle();
    expect(aborted).toBe(true);
    const teardown = await h.command((c) => c.kind === 'teardown' && c.uid === p.metadata.uid);
    expect(teardown).toMatchObject({ why: 'removed', gracePeriod: 1 });
    await h.command((c) => c.kind === 'forget' && c.uid === p.metadata.uid);
    expect(runtime.sandboxes()).toHaveLength(0);
    expect(runtime.containers()).toHaveLength(0);
    expect(runtime.callsOf('createContainer')).toHaveLength(0);
  });

  it('stopping the agent aborts a pull in flight; the manager stops without waiting for it', async () => {
    const runtime = new FakeRuntime({ registry: { [PULLED]: {} } });
    const pull = runtime.block('pullImage');
    const h = start(runtime);
    h.set([pod('pulling')]);
    await pull.arrived;
    h.stop();
    await pull.cancelled;
    await stops.splice(0).reduce((p, s) => p.then(s), Promise.resolve());
    expect(runtime.callsOf('createContainer')).toHaveLength(0);
  });

  it('removing one pod leaves the other pods\' work alone', async () => {
    const runtime = new FakeRuntime({ registry: { [PULLED]: {} } });
    const first = runtime.block('pullImage');
    const h = start(runtime);
    const [a, b] = [pod('a'), pod('b')];
    h.set([a, b]);
    await first.arrived;
    const pulling = runtime.sandboxes()[0]!.config.metadata.uid;
    const other = pulling === a.metadata.uid ? b : a;
    h.set([other]);
    await first.cancelled;
    await h.command((c) => c.kind === 'forget' && c.uid === pulling);
    // The other pod's sync went on: it pulls (the lane is free again) and starts.
    await h.command((c) => c.kind === 'settled' && runtime.containers().some((x) => x.state === 'RUNNING'));
    expect(runtime.containers().map((c) => c.config.labels['io.platform.pod.uid'])).toEqual([other.metadata.uid]);
  });

  it('a step that throws fails the pod manager (its state is no longer trusted) and stops the work in flight', async () => {
    const runtime = new FakeRuntime({ registry: { [PULLED]: {} } });
    const pull = runtime.block('pullImage');
    const bug = new Error('a bug in a step');
    const h = start(runtime, (e) => {
      if (e.kind === 'source' && e.updates.some((u) => u.op === 'REMOVE')) throw bug;
    });
    h.set([pod('pulling')]);
    await pull.arrived;
    h.set([]); // the poster is not thrown at
    await expect(h.runs[0]).rejects.toBe(bug);
    await pull.cancelled;
    // The manager's run has settled (rejected, as checked): stop the PLEG alone.
    stops.splice(0);
    h.stop();
    await h.runs[1];
    h.removeTemp();
  });
});
