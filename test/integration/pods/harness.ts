// The pod pipeline harness (merger → pod manager → sync → PLEG → status) on
// the stateful in-memory runtime, shared by the pipeline's integration tests.
// Back-offs are shortened; everything else is the production code path.
// Tests wait on events: until() checks its condition again after every event
// the sync loop handles (source updates, relists, resyncs, retries, worker
// completions) and every status change, never on a polling timer; its one
// timer only bounds the wait.
import { untilChecked } from '../../helpers/until.js';
import { afterEach } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { FakeRuntime, type FakeProgram } from '../../../src/cri/fake-runtime.js';
import { ImageManager } from '../../../src/images/manager.js';
import { createPleg } from '../../../src/pleg/generic.js';
import { createPodManager } from '../../../src/pods/index.js';
import type { SyncEvent } from '../../../src/pods/sync-step.js';
import { PodConfigMerger } from '../../../src/sources/merger.js';
import { applyStaticPodDefaults } from '../../../src/sources/static-pod.js';
import { StatusStore } from '../../../src/status/store.js';
import { KeyedBackoff } from '../../../src/util/backoff.js';
import { tempDir } from '../../helpers/agent-process.js';
import { testLogger } from '../../helpers/test-logger.js';

export const IMAGE = 'localhost/busybox:latest';

export function manifest(name: string, spec: Record<string, unknown> = {}, containers: Array<Record<string, unknown>> = [{ name: 'main', image: IMAGE, imagePullPolicy: 'IfNotPresent' }]): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { hostNetwork: true, terminationGracePeriodSeconds: 1, containers, ...spec } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return applyStaticPodDefaults(d.pod, 'node-a', 'file', `/m/${name}.yaml`, new Date());
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

export function start(opts: { runtime?: FakeRuntime; onStart?: FakeProgram; maxPods?: number; syncFrequencyMs?: number; plegPeriodMs?: number; errorBackoffMs?: number } = {}) {
  const runtime = opts.runtime ?? new FakeRuntime({ images: [IMAGE], ...(opts.onStart ? { onStart: opts.onStart } : {}) });
  const t = tempDir();
  const log = testLogger();
  const status = new StatusStore();
  const merger = new PodConfigMerger(['file']);
  const settled: Array<{ changes: number; busy: boolean }> = [];
  /** Checks of pending until() calls, run after every loop event and status change. */
  const checks = new Set<() => void>();
  const notify = (): void => {
    for (const check of [...checks]) check();
  };
  /** How many events of each kind the sync loop has handled. */
  const handled = new Map<SyncEvent['kind'], number>();
  status.subscribe(notify);
  const images = new ImageManager({ images: runtime, maxParallel: 1, backoff: new KeyedBackoff({ initialMs: 50, maxMs: 400 }), credentials: async () => [], log });
  const manager = createPodManager({
    status,
    runtimeName: () => 'fake',
    syncFrequencyMs: opts.syncFrequencyMs ?? 60_000,
    ...(opts.errorBackoffMs !== undefined ? { errorBackoffMs: opts.errorBackoffMs } : {}),
    maxPods: opts.maxPods ?? 110,
    allSourcesSeen: () => merger.allSourcesSeen(),
    requestRelist: () => pleg.kick(),
    onSettled: (changes) => settled.push({ changes, busy: manager.busy() }),
    onStep: (event) => {
      handled.set(event.kind, (handled.get(event.kind) ?? 0) + 1);
      notify();
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
  const pleg = createPleg({ runtime, log, onRelist: (c, s, t) => manager.onRelist(c, s, t), periodMs: opts.plegPeriodMs ?? 20 });
  const ac = new AbortController();
  const runs = [manager.run(ac.signal), pleg.run(ac.signal)];
  stops.push(async () => {
    ac.abort();
    await Promise.all(runs);
    t.cleanup();
  });
  const set = (pods: Pod[]) => manager.applyUpdates(merger.set('file', pods).updates);
  /** Resolves with fn()'s first truthy value, checked now and after each loop event or status change; rejects after `ms`. */
  const until = <T>(fn: () => T | undefined | false, what: string, ms = 5000): Promise<T> => untilChecked(checks, fn, what, ms);
  const count = (kind: SyncEvent['kind']): number => handled.get(kind) ?? 0;
  const phase = (p: Pod) => status.get(p.metadata.uid)?.status.phase;
  const calls = (method: string) => runtime.calls.filter((c) => c.method === method).length;
  return { runtime, status, log, set, until, count, phase, calls, logsDir: t.dir, manager, settled, signal: ac.signal };
}


/** Stops the first pipeline started in this test (an agent restart), leaving its runtime as it is. */
export async function stopFirst(): Promise<void> {
  await stops.shift()?.();
}
