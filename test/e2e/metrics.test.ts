// The runtime operation metrics on a real containerd: the pod pipeline (pod
// manager, syncs, PLEG, image manager) runs in-process over the project's CRI
// client wrapped by instrumentRuntime, as the composition root will wire it,
// and the exposition counts the calls the runtime really answered. (The agent
// binary serves /metrics once the HTTP servers are wired; this test needs
// neither the servers nor the binary.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/cri/types.js';
import { ImageManager } from '../../src/images/manager.js';
import { countRunning, createAgentMetrics, instrumentRuntime, type AgentMetrics } from '../../src/metrics/index.js';
import { createPleg } from '../../src/pleg/index.js';
import { decodePod } from '../../src/pod-model/pod-decode.js';
import { createPodManager } from '../../src/pods/index.js';
import { PodConfigMerger } from '../../src/sources/merger.js';
import { applyStaticPodDefaults } from '../../src/sources/static-pod.js';
import { StatusStore } from '../../src/status/store.js';
import { KeyedBackoff } from '../../src/util/backoff.js';
import { BUSYBOX, cleanRuntime, SLEEP_FOREVER, waitFor } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';
import { testLogger } from '../helpers/test-logger.js';

const skip = skipWithoutRuntime('metrics');

/** Counts every call the pipeline makes through the wrapper, by CRI method: the ground truth the metrics must match. */
function counting<T extends object>(target: T, calls: Array<{ method: string }>): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      const v: unknown = Reflect.get(t, prop, receiver);
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return (...args: unknown[]) => {
        calls.push({ method: prop });
        return (v as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
}

async function sample(m: AgentMetrics, name: string, labels: Record<string, string>): Promise<number> {
  const fam = (await m.registry.getMetricsAsJSON()).find((f) => name.startsWith(f.name));
  const v = fam?.values.find((x) => ((x as { metricName?: string }).metricName ?? fam.name) === name && Object.entries(labels).every(([k, want]) => String(x.labels[k]) === want));
  return v?.value ?? 0;
}

describe.skipIf(skip)('runtime operation metrics on a real containerd', () => {
  const env = useRuntime();

  it('count the CRI calls of a pod start and teardown, by operation type', async () => {
    const m = createAgentMetrics({ processMetrics: false });
    const calls: Array<{ method: string }> = [];
    // Counted inside the wrapper: every call the metrics see, the list sees.
    const runtime: Runtime = instrumentRuntime(counting(env.cri as Runtime, calls), m);
    const logsDir = mkdtempSync(join(tmpdir(), 'metrics-e2e-'));
    const log = testLogger();
    const status = new StatusStore();
    const merger = new PodConfigMerger(['file']);
    let runningPods = 0;
    const metrics: AgentMetrics = { ...m, runtimeState: (s) => { m.runtimeState(s); runningPods = countRunning(s).pods; } };
    const images = new ImageManager({ images: runtime, maxParallel: 1, backoff: new KeyedBackoff({ initialMs: 100, maxMs: 400 }), credentials: async () => [], log, metrics });
    const manager = createPodManager({
      status,
      runtimeName: () => 'containerd',
      syncFrequencyMs: 60_000,
      maxPods: 110,
      allSourcesSeen: () => merger.allSourcesSeen(),
      requestRelist: () => pleg.kick(),
      sync: {
        runtime,
        images,
        crashBackoff: new KeyedBackoff({ initialMs: 100, maxMs: 400 }),
        nodeName: 'metrics-node',
        hostIP: '127.0.0.1',
        log,
        sandbox: { dns: { clusterDNS: [], clusterDomain: '', host: () => undefined, nodeIPs: ['127.0.0.1'] }, podLogsDir: logsDir, cgroupParent: '' },
        container: { cpuCFSQuota: true, cpuCFSQuotaPeriodMs: 100, memoryCapacity: 8 << 30, seccompDefault: false, rootDirectory: logsDir },
        metrics,
      },
    });
    const pleg = createPleg({ runtime, log, metrics, onRelist: (c, s, at) => manager.onRelist(c, s, at), periodMs: 200 });
    const ac = new AbortController();
    const runs = [manager.run(ac.signal), pleg.run(ac.signal)];
    try {
      const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'metered' }, spec: { hostNetwork: true, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: BUSYBOX, imagePullPolicy: 'IfNotPresent', command: SLEEP_FOREVER }] } });
      if (!d.ok) throw new Error(JSON.stringify(d.problems));
      const pod = applyStaticPodDefaults(d.pod, 'metrics-node', 'file', '/m/metered.yaml', new Date());
      manager.applyUpdates(merger.set('file', [pod]).updates);
      await waitFor('the pod running and counted by a relist', 60_000, () => status.get(pod.metadata.uid)?.status.phase === 'Running' && runningPods === 1);

      expect(await sample(m, 'agent_pod_start_duration_seconds_count', {})).toBe(1);
      expect(await sample(m, 'agent_started_containers_total', { container_type: 'container' })).toBe(1);
      expect(await sample(m, 'agent_running_containers', { container_state: 'running' })).toBeGreaterThanOrEqual(1);

      manager.applyUpdates(merger.set('file', []).updates);
      await waitFor('the pod torn down', 60_000, () => status.get(pod.metadata.uid) === undefined && runningPods === 0);
    } finally {
      ac.abort();
      await Promise.all(runs);
      await cleanRuntime(env.cri);
      rmSync(logsDir, { recursive: true, force: true });
    }

    // Every CRI call the pipeline made is in the exposition under its kubelet operation type, and nothing else is.
    const byOp = new Map<string, number>();
    for (const c of calls) {
      const op = c.method.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().replace(/pod_sandbox/g, 'podsandbox');
      byOp.set(op, (byOp.get(op) ?? 0) + 1);
    }
    for (const op of ['run_podsandbox', 'create_container', 'start_container', 'stop_container', 'stop_podsandbox', 'remove_podsandbox', 'list_podsandbox', 'list_containers']) {
      expect(byOp.get(op), op).toBeGreaterThan(0);
    }
    for (const [op, n] of byOp) {
      expect(await sample(m, 'agent_runtime_operations_duration_seconds_count', { operation_type: op }), op).toBe(n);
    }
    const text = await m.registry.metrics();
    expect(text).toContain('agent_runtime_operations_duration_seconds_bucket{le="0.005",operation_type="run_podsandbox"}');
  });
});
