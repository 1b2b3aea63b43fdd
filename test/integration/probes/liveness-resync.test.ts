// The prober wired into the pod pipeline (merger → pod manager → sync → PLEG
// → prober) on the in-memory runtime, as src/agent.ts wires it: a liveness
// probe that fails becomes a verdict for the container instance, and the
// sync loop gets a `probe` event for the pod and syncs it again at once.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { ImageManager } from '../../../src/images/manager.js';
import { createPleg } from '../../../src/pleg/generic.js';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { createPodManager } from '../../../src/pods/index.js';
import type { Command, SyncEvent } from '../../../src/pods/sync-step.js';
import { createProber } from '../../../src/probes/index.js';
import { PodConfigMerger } from '../../../src/sources/merger.js';
import { applyStaticPodDefaults } from '../../../src/sources/static-pod.js';
import { StatusStore } from '../../../src/status/store.js';
import { KeyedBackoff } from '../../../src/util/backoff.js';
import { tempDir } from '../../helpers/agent-process.js';
import { testLogger } from '../../helpers/test-logger.js';

const IMAGE = 'localhost/busybox:latest';
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

function manifest(container: Record<string, unknown>): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probed' }, spec: { hostNetwork: true, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: IMAGE, imagePullPolicy: 'IfNotPresent', ...container }] } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return applyStaticPodDefaults(d.pod, 'node-a', 'file', '/m/probed.yaml', new Date());
}

function pipeline(runtime: FakeRuntime) {
  const t = tempDir();
  const log = testLogger();
  const status = new StatusStore();
  const merger = new PodConfigMerger(['file']);
  const steps: Array<{ event: SyncEvent; commands: readonly Command[] }> = [];
  const waiters = new Set<() => void>();
  const notify = (): void => {
    for (const w of [...waiters]) w();
  };
  const prober = createProber({ runtime, hostIP: '127.0.0.1', log, onChange: (uid) => manager.probeChanged(uid) });
  const manager = createPodManager({
    status,
    runtimeName: () => 'fake',
    syncFrequencyMs: 60_000,
    maxPods: 110,
    allSourcesSeen: () => merger.allSourcesSeen(),
    requestRelist: () => pleg.kick(),
    onStep: (event, commands) => {
      steps.push({ event, commands });
      notify();
    },
    sync: {
      runtime,
      images: new ImageManager({ images: runtime, maxParallel: 1, backoff: new KeyedBackoff({ initialMs: 50, maxMs: 400 }), credentials: async () => [], log }),
      crashBackoff: new KeyedBackoff({ initialMs: 100, maxMs: 400 }),
      nodeName: 'node-a',
      hostIP: '127.0.0.1',
      log,
      probes: prober,
      sandbox: { dns: { clusterDNS: [], clusterDomain: '', host: () => undefined, nodeIPs: ['127.0.0.1'] }, podLogsDir: t.dir, cgroupParent: '' },
      container: { cpuCFSQuota: true, cpuCFSQuotaPeriodMs: 100, memoryCapacity: 8 << 30, seccompDefault: false, rootDirectory: t.dir },
    },
  });
  const pleg = createPleg({
    runtime,
    log,
    periodMs: 20,
    onRelist: (c, s, at) => {
      manager.onRelist(c, s, at);
      prober.observe(manager.desiredPods(), s);
      notify();
    },
  });
  const ac = new AbortController();
  const runs = [manager.run(ac.signal), pleg.run(ac.signal), prober.run(ac.signal)];
  stops.push(async () => {
    ac.abort();
    await Promise.all(runs);
    t.cleanup();
  });
  const until = <T>(fn: () => T | undefined | false, what: string, ms = 8000): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const check = (): void => {
        const v = fn();
        if (!v) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(v);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, ms);
      waiters.add(check);
      check();
    });
  return { set: (pods: Pod[]) => manager.applyUpdates(merger.set('file', pods).updates), prober, steps, until, status };
}

describe('prober in the pod pipeline', () => {
  it('a failing liveness probe becomes the verdict of that container instance and re-syncs the pod', async () => {
    let healthy = true;
    const runtime = new FakeRuntime({ images: [IMAGE], onExec: () => ({ exitCode: healthy ? 0 : 1 }) });
    const h = pipeline(runtime);
    const pod = manifest({ livenessProbe: { exec: { command: ['check'] }, periodSeconds: 1, failureThreshold: 1 } });
    h.set([pod]);
    const id = await h.until(() => runtime.containers().find((c) => c.state === 'RUNNING')?.id, 'the container running');
    await h.until(() => runtime.callsOf('execSync').some((a) => a[0] === id), 'a first probe');
    expect(h.prober.get('liveness', id)).toBe('success');
    const before = h.steps.length;
    healthy = false;
    await h.until(() => h.prober.get('liveness', id) === 'failure', 'the liveness verdict failure');
    const resync = await h.until(() => h.steps.slice(before).find((s) => s.event.kind === 'probe'), 'a probe event');
    expect(resync.event).toEqual({ kind: 'probe', uid: pod.metadata.uid });
    // The pod's sync runs for it (at once, or as soon as the sync in flight ends).
    await h.until(() => h.steps.slice(before).some((s) => s.commands.some((c) => c.kind === 'sync' && c.uid === pod.metadata.uid)), 'a sync of the pod');
    expect(h.prober.counters.snapshot()).toEqual(expect.arrayContaining([expect.objectContaining({ probeType: 'Liveness', result: 'failed', container: 'main' })]));
  });

  it('a readiness change re-syncs the pod too', async () => {
    let ready = false;
    const runtime = new FakeRuntime({ images: [IMAGE], onExec: () => ({ exitCode: ready ? 0 : 1 }) });
    const h = pipeline(runtime);
    const pod = manifest({ readinessProbe: { exec: { command: ['ready'] }, periodSeconds: 1 } });
    h.set([pod]);
    const id = await h.until(() => runtime.containers().find((c) => c.state === 'RUNNING')?.id, 'the container running');
    await h.until(() => runtime.callsOf('execSync').some((a) => a[0] === id), 'a first probe');
    expect(h.prober.get('readiness', id)).toBe('failure');
    const before = h.steps.length;
    ready = true;
    await h.until(() => h.prober.get('readiness', id) === 'success', 'ready');
    await h.until(() => h.steps.slice(before).some((s) => s.event.kind === 'probe'), 'a probe event');
  });
});
