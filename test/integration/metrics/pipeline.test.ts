// The metrics hooks on the real pod pipeline (merger → pod manager → syncs →
// PLEG → status) over the in-memory runtime: a pod's start fills the pod
// start, phase, worker, PLEG, image pull, container start and runtime
// operation families. Waits on status changes and metric values, never sleeps.
import { afterEach, describe, expect, test } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { ImageManager } from '../../../src/images/manager.js';
import { countRunning, createAgentMetrics, instrumentRuntime, type AgentMetrics } from '../../../src/metrics/index.js';
import { createPleg } from '../../../src/pleg/index.js';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { createPodManager } from '../../../src/pods/index.js';
import { PodConfigMerger } from '../../../src/sources/merger.js';
import { applyStaticPodDefaults } from '../../../src/sources/static-pod.js';
import { StatusStore } from '../../../src/status/store.js';
import { KeyedBackoff } from '../../../src/util/backoff.js';
import { tempDir } from '../../helpers/agent-process.js';
import { testLogger } from '../../helpers/test-logger.js';

const PRESENT = 'localhost/busybox:latest';
const PULLED = 'localhost/pulled:1';

function manifest(name: string, images: string[]): Pod {
  const containers = images.map((image, i) => ({ name: `c${i}`, image, imagePullPolicy: 'IfNotPresent' }));
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { hostNetwork: true, terminationGracePeriodSeconds: 1, containers } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return applyStaticPodDefaults(d.pod, 'node-a', 'file', `/m/${name}.yaml`, new Date());
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

function pipeline(m: AgentMetrics) {
  const fake = new FakeRuntime({ images: [PRESENT], registry: { [PULLED]: { delayMs: 5, image: { size: 42 * 1024 * 1024 } } } });
  const runtime = instrumentRuntime(fake, m);
  const t = tempDir();
  const log = testLogger();
  const status = new StatusStore();
  const merger = new PodConfigMerger(['file']);
  const checks = new Set<() => void>();
  const notify = (): void => {
    for (const c of [...checks]) c();
  };
  status.subscribe(notify);
  const images = new ImageManager({ images: runtime, maxParallel: 1, backoff: new KeyedBackoff({ initialMs: 50, maxMs: 400 }), credentials: async () => [], log, metrics: m });
  const manager = createPodManager({
    status,
    runtimeName: () => 'fake',
    syncFrequencyMs: 60_000,
    maxPods: 110,
    allSourcesSeen: () => merger.allSourcesSeen(),
    requestRelist: () => pleg.kick(),
    onStep: notify,
    sync: {
      runtime,
      images,
      crashBackoff: new KeyedBackoff({ initialMs: 100, maxMs: 400 }),
      nodeName: 'node-a',
      hostIP: '127.0.0.1',
      log,
      sandbox: { dns: { clusterDNS: [], clusterDomain: '', host: () => undefined, nodeIPs: ['127.0.0.1'] }, podLogsDir: t.dir, cgroupParent: '' },
      container: { cpuCFSQuota: true, cpuCFSQuotaPeriodMs: 100, memoryCapacity: 8 << 30, seccompDefault: false, rootDirectory: t.dir },
      metrics: m,
    },
  });
  const pleg = createPleg({ runtime, log, metrics: m, onRelist: (c, s, at) => { manager.onRelist(c, s, at); notify(); }, periodMs: 20 });
  const ac = new AbortController();
  const runs = [manager.run(ac.signal), pleg.run(ac.signal)];
  stops.push(async () => {
    ac.abort();
    await Promise.all(runs);
    t.cleanup();
  });
  const until = (fn: () => boolean, what: string, ms = 5000): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        checks.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, ms);
      const check = (): void => {
        if (!fn()) return;
        clearTimeout(timer);
        checks.delete(check);
        resolve();
      };
      checks.add(check);
      check();
    });
  return { set: (pods: Pod[]) => manager.applyUpdates(merger.set('file', pods).updates), until, status };
}

async function value(m: AgentMetrics, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const f = (await m.registry.getMetricsAsJSON()).find((x) => x.name === name.replace(/_(count|sum)$/, '') || x.name === name);
  const v = f?.values.find((x) => ((x as { metricName?: string }).metricName ?? f.name) === name && Object.entries(labels).every(([k, want]) => String(x.labels[k]) === want));
  return v?.value;
}

describe('metrics hooks on the pod pipeline', () => {
  test('a pod start fills the kubelet families and the per-phase breakdown', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const base = createAgentMetrics({ processMetrics: false, log: { info: (msg, f) => lines.push({ msg, ...f }) } });
    let runningPods = 0;
    // The same recorders, with the relist's running pod count kept for the wait below.
    const m: AgentMetrics = { ...base, runtimeState: (s) => { base.runtimeState(s); runningPods = countRunning(s).pods; } };
    const p = pipeline(m);
    const pod = manifest('web', [PRESENT, PULLED]);
    p.set([pod]);
    await p.until(() => p.status.get(pod.metadata.uid)?.status.phase === 'Running', 'the pod running');
    await p.until(() => lines.length > 0, 'the pod start line');

    expect(await value(m, 'agent_pod_start_duration_seconds_count')).toBe(1);
    expect(await value(m, 'agent_pod_start_sli_duration_seconds_count')).toBe(1);
    for (const phase of ['admission', 'sandbox', 'images', 'containers', 'running']) expect(await value(m, 'agent_pod_start_phase_duration_seconds_count', { phase }), phase).toBe(1);
    expect(await value(m, 'agent_pod_worker_duration_seconds_count', { operation_type: 'create' })).toBe(1);
    expect(await value(m, 'agent_pod_worker_start_duration_seconds_count')).toBe(1);
    expect(await value(m, 'agent_pleg_relist_duration_seconds_count')).toBeGreaterThan(0);
    expect(await value(m, 'agent_image_pull_duration_seconds_count', { image_size_in_bytes: '10MB-100MB' })).toBe(1);
    expect(await value(m, 'agent_started_containers_total', { container_type: 'container' })).toBe(2);
    expect(await value(m, 'agent_runtime_operations_duration_seconds_count', { operation_type: 'run_podsandbox' })).toBe(1);
    expect(await value(m, 'agent_runtime_operations_duration_seconds_count', { operation_type: 'start_container' })).toBe(2);
    expect(await value(m, 'agent_runtime_operations_duration_seconds_count', { operation_type: 'pull_image' })).toBe(1);
    expect(lines[0]).toMatchObject({ msg: 'Observed pod startup duration', pod: 'default/web-node-a', podUID: pod.metadata.uid });
    expect(Object.keys(lines[0]!['phases'] as object)).toEqual(['admission', 'sandbox', 'images', 'containers', 'running']);

    // A relist sees the running pod: running_pods and running_containers follow the runtime.
    await p.until(() => runningPods === 1, 'a relist counting the pod');
    expect(await value(m, 'agent_running_pods')).toBe(1);
    expect(await value(m, 'agent_running_containers', { container_state: 'running' })).toBe(2);

    // Removed: a teardown is a kill, and the pod is forgotten by the start tracker.
    p.set([]);
    await p.until(() => p.status.get(pod.metadata.uid) === undefined && runningPods === 0, 'the pod gone');
    expect(await value(m, 'agent_pod_worker_duration_seconds_count', { operation_type: 'kill' })).toBe(1);
  });
});
