import { describe, expect, test } from 'vitest';
import { countRunning, createAgentMetrics, type AgentMetrics } from '../../../src/metrics/index.js';
import type { ObservedPod } from '../../../src/runtime-view/observed.js';

async function families(m: AgentMetrics): Promise<Map<string, { type: string; labels: Set<string> }>> {
  const out = new Map<string, { type: string; labels: Set<string> }>();
  for (const f of await m.registry.getMetricsAsJSON()) {
    const labels = new Set<string>();
    for (const v of f.values) for (const k of Object.keys(v.labels)) if (k !== 'le') labels.add(k);
    out.set(f.name, { type: String(f.type), labels });
  }
  return out;
}

function populate(m: AgentMetrics): void {
  m.runtimeOperation('list_podsandbox', 0.01, false);
  m.runtimeOperation('start_container', 0.2, true);
  m.podWorker('create', 1.5);
  m.podWorkerStart(0.001);
  m.plegRelist(0.02, 1.0);
  m.imagePull(3, 5 * 1024 * 1024);
  m.containerStart('container', undefined);
  m.containerStart('init_container', 'NotFound');
  m.httpRequest({ method: 'GET', path: 'pods', server_type: 'readwrite', long_running: 'false' }, 0.003);
  const pod = { uid: 'u1', namespace: 'ns', name: 'web' };
  m.podStartPhase(pod, 'seen', 0);
  m.podStartPhase(pod, 'admitted', 10);
  m.podStartPhase(pod, 'sandbox', 500);
  m.podStartPhase(pod, 'images', 2500);
  m.podStartPhase(pod, 'containers', 2700);
  m.podStartPhase(pod, 'running', 3700);
}

describe('createAgentMetrics', () => {
  test('the kubelet families under agent_, with their types and labels', async () => {
    const m = createAgentMetrics({ processMetrics: false });
    populate(m);
    m.runtimeState(new Map());
    const f = await families(m);
    const want: Array<[string, string, string[]]> = [
      ['agent_pod_start_duration_seconds', 'histogram', []],
      ['agent_pod_start_sli_duration_seconds', 'histogram', []],
      ['agent_pod_start_phase_duration_seconds', 'histogram', ['phase']],
      ['agent_pod_worker_duration_seconds', 'histogram', ['operation_type']],
      ['agent_pod_worker_start_duration_seconds', 'histogram', []],
      ['agent_pleg_relist_duration_seconds', 'histogram', []],
      ['agent_pleg_relist_interval_seconds', 'histogram', []],
      ['agent_runtime_operations_duration_seconds', 'histogram', ['operation_type']],
      ['agent_runtime_operations_errors_total', 'counter', ['operation_type']],
      ['agent_running_pods', 'gauge', []],
      ['agent_running_containers', 'gauge', []],
      ['agent_started_containers_total', 'counter', ['container_type']],
      ['agent_started_containers_errors_total', 'counter', ['code', 'container_type']],
      ['agent_image_pull_duration_seconds', 'histogram', ['image_size_in_bytes']],
      ['agent_http_requests_total', 'counter', ['method', 'path', 'server_type', 'long_running']],
      ['agent_http_requests_duration_seconds', 'histogram', ['method', 'path', 'server_type', 'long_running']],
    ];
    for (const [name, type, labels] of want) {
      expect(f.get(name), name).toBeDefined();
      expect(f.get(name)!.type, name).toBe(type);
      expect([...f.get(name)!.labels].sort(), name).toEqual([...labels].sort());
    }
  });

  test('process metrics come with the registry by default', async () => {
    const m = createAgentMetrics();
    const text = await m.registry.metrics();
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^process_resident_memory_bytes /m);
  });

  test('kubelet buckets: runtime operations are exponential from 5 ms, pod start from 0.5 s to an hour', async () => {
    const m = createAgentMetrics({ processMetrics: false });
    populate(m);
    const text = await m.registry.metrics();
    expect(text).toContain('agent_runtime_operations_duration_seconds_bucket{le="0.005",operation_type="list_podsandbox"} 0');
    expect(text).toContain('agent_runtime_operations_duration_seconds_bucket{le="0.0125",operation_type="list_podsandbox"} 1');
    expect(text).toContain('agent_pod_start_duration_seconds_bucket{le="0.5"} 0');
    expect(text).toContain('agent_pod_start_duration_seconds_bucket{le="3600"} 1');
    expect(text).toContain('agent_runtime_operations_errors_total{operation_type="start_container"} 1');
    expect(text).not.toMatch(/agent_runtime_operations_errors_total\{operation_type="list_podsandbox"\}/);
    expect(text).toContain('agent_image_pull_duration_seconds_count{image_size_in_bytes="0-10MB"} 1');
    expect(text).toContain('agent_started_containers_errors_total{code="NotFound",container_type="init_container"} 1');
  });

  test('a pod start observes the total, the SLI without pulling, every phase, and logs one line', async () => {
    const lines: Array<{ msg: string; fields: unknown }> = [];
    const log = { info: (msg: string, fields?: unknown) => lines.push({ msg, fields }) } as unknown as NonNullable<Parameters<typeof createAgentMetrics>[0]>['log'];
    const m = createAgentMetrics({ processMetrics: false, ...(log ? { log } : {}) });
    populate(m);
    const text = await m.registry.metrics();
    expect(text).toContain('agent_pod_start_duration_seconds_sum 3.7');
    expect(text).toContain('agent_pod_start_sli_duration_seconds_sum 1.7');
    for (const [phase, s] of [['admission', 0.01], ['sandbox', 0.49], ['images', 2], ['containers', 0.2], ['running', 1]] as const) {
      expect(text).toContain(`agent_pod_start_phase_duration_seconds_sum{phase="${phase}"} ${s}`);
    }
    expect(lines).toEqual([
      { msg: 'Observed pod startup duration', fields: { pod: 'ns/web', podUID: 'u1', podStartDurationSeconds: 3.7, podStartSLOduration: 1.7, phases: { admission: 0.01, sandbox: 0.49, images: 2, containers: 0.2, running: 1 } } },
    ]);
  });

  test('bad durations (negative, NaN) are dropped, never thrown', async () => {
    const m = createAgentMetrics({ processMetrics: false });
    expect(() => {
      m.runtimeOperation('version', -1, true);
      m.podWorker('sync', Number.NaN);
      m.plegRelist(Infinity, -2);
    }).not.toThrow();
    const text = await m.registry.metrics();
    expect(text).toContain('agent_runtime_operations_errors_total{operation_type="version"} 1');
    expect(text).not.toContain('agent_runtime_operations_duration_seconds_count{operation_type="version"}');
  });

  test('/metrics/probes reads the prober counters at scrape time', async () => {
    const m = createAgentMetrics({ processMetrics: false });
    let counts = [{ probeType: 'Liveness' as const, result: 'successful' as const, container: 'c', pod: 'web', namespace: 'ns', podUID: 'u1', count: 3 }];
    m.probeSource({ snapshot: () => counts });
    expect(await m.probesRegistry.metrics()).toContain('prober_probe_total{probe_type="Liveness",result="successful",container="c",pod="web",namespace="ns",pod_uid="u1"} 3');
    counts = [];
    expect(await m.probesRegistry.metrics()).not.toContain('pod_uid="u1"');
  });
});

describe('countRunning', () => {
  const pod = (uid: string, ready: boolean, states: string[]): [string, ObservedPod] => [
    uid,
    { uid, name: uid, namespace: 'ns', sandboxes: [{ ready } as ObservedPod['sandboxes'][number]], containers: states.map((state) => ({ state }) as ObservedPod['containers'][number]) },
  ];
  test.each([
    ['nothing', [], 0, {}],
    ['a ready pod with a running and an exited container', [pod('a', true, ['RUNNING', 'EXITED'])], 1, { running: 1, exited: 1 }],
    ['a pod whose sandbox is not ready is not running', [pod('a', false, ['EXITED']), pod('b', true, ['RUNNING', 'CREATED'])], 1, { exited: 1, running: 1, created: 1 }],
  ] as const)('%s', (_name, pods, wantPods, wantContainers) => {
    const r = countRunning(new Map(pods as ReadonlyArray<[string, ObservedPod]>));
    expect(r.pods).toBe(wantPods);
    expect(Object.fromEntries(r.containers)).toEqual(wantContainers);
  });
});
