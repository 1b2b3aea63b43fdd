// The agent's metrics: one prom-client Registry for /metrics (the kubelet's
// families under the `agent_` prefix, plus process metrics) and one for
// /metrics/probes (prober_probe_total, read from the prober's counters at
// scrape time). Recorders are synchronous, never throw and never block: the
// pod workers, the PLEG, the image manager, the runtime wrapper and the HTTP
// core call them on their hot paths.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AgentLogger } from '../log/index.js';
import type { ProbeCount } from '../probes/metrics.js';
import type { ObservedPod } from '../runtime-view/observed.js';
import { DEF_BUCKETS, IMAGE_PULL_BUCKETS, PHASE_BUCKETS, POD_START_BUCKETS, RUNTIME_BUCKETS, imageSizeClass } from './buckets.js';
import { PodStartTracker, type PodRef, type PodStartPhase } from './pod-start.js';
import { registerRequestMetrics, type RequestMetricsSink } from '../client/index.js';
import { restClientMetrics } from './rest-client.js';

export const PREFIX = 'agent_';

/** prom-client default collectors whose gauges end in _total. */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** The kubelet's container_type label of started_containers_*. */
export type ContainerType = 'container' | 'init_container' | 'ephemeral_container';

/** The kubelet's operation_type of pod_worker_duration_seconds. */
export type PodWorkerOperation = 'create' | 'update' | 'sync' | 'kill';

export interface ProbeCountSource {
  snapshot(): readonly ProbeCount[];
}

export interface AgentMetrics {
  /** /metrics. */
  readonly registry: Registry;
  /** /metrics/probes. */
  readonly probesRegistry: Registry;
  /** One CRI call ended (instrumentRuntime). */
  runtimeOperation(operationType: string, seconds: number, failed: boolean): void;
  /** One pod worker run ended. */
  podWorker(operation: PodWorkerOperation, seconds: number): void;
  /** From a pod first seen to its first worker starting. */
  podWorkerStart(seconds: number): void;
  /** One relist: its duration, and the time since the previous relist began (undefined for the first). */
  plegRelist(seconds: number, intervalSeconds: number | undefined): void;
  /** The runtime state the relist saw: running_pods (ready sandboxes) and running_containers by state. */
  runtimeState(snapshot: ReadonlyMap<string, ObservedPod>): void;
  /** One successful image pull; `sizeBytes` when the runtime said. */
  imagePull(seconds: number, sizeBytes: number | undefined): void;
  /** One container start attempt; `errorCode` is the waiting reason of a failed one. */
  containerStart(type: ContainerType, errorCode: string | undefined): void;
  /** A pod start phase reached (monotonic ms, performance.now() by default); `running` completes the pod's record. */
  podStartPhase(pod: PodRef, phase: PodStartPhase, atMs?: number): void;
  /** The pod left its sources: forget its start record. */
  podGone(uid: string): void;
  /** Where /metrics/probes reads prober_probe_total from (the prober's `counters`). Replaces any earlier source. */
  probeSource(source: ProbeCountSource): void;
  /** One HTTP request answered (httpObserver). */
  httpRequest(labels: { method: string; path: string; server_type: string; long_running: string }, seconds: number): void;
  /** The API client's rest_client_* records (the sink createApiClient's `metrics` option takes). */
  readonly restClient: RequestMetricsSink;
}

export interface AgentMetricsOptions {
  /** The per-pod start line goes here (a child logger of the caller's choosing); none: no line. */
  log?: Pick<AgentLogger, 'info'>;
  /** prom-client's default process and Node.js collectors; on by default. */
  processMetrics?: boolean;
  /**
   * Also make `restClient` the process-wide sink of the API client's
   * transports (registerRequestMetrics), as component-base registers
   * client-go's adapters: every client of the process counts without being
   * handed it. On by default; the last AgentMetrics built wins.
   */
  registerClientMetrics?: boolean;
}

function histogram(reg: Registry, name: string, help: string, buckets: readonly number[], labelNames: readonly string[] = []): Histogram {
  return new Histogram({ name: PREFIX + name, help, buckets: [...buckets], labelNames: [...labelNames], registers: [reg] });
}

function counter(reg: Registry, name: string, help: string, labelNames: readonly string[] = []): Counter {
  return new Counter({ name: PREFIX + name, help, labelNames: [...labelNames], registers: [reg] });
}

/** A finite, non-negative number of seconds, or undefined (a clock that went backwards, a NaN from a bad caller). */
const secs = (s: number): number | undefined => (Number.isFinite(s) && s >= 0 ? s : undefined);

/** Builds the registries; cheap; nothing runs until a scrape (the default collectors read at collect time). */
export function createAgentMetrics(opts: AgentMetricsOptions = {}): AgentMetrics {
  const registry = new Registry();
  const probesRegistry = new Registry();
  if (opts.processMetrics !== false) {
    collectDefaultMetrics({ register: registry });
    // Gauges named like counters: promtool's lint (and Prometheus' naming rules) reject
    // them; the per-type nodejs_active_handles / _requests / _resources say the same.
    for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  }

  const podStart = histogram(registry, 'pod_start_duration_seconds', 'Duration in seconds from the agent seeing a pod for the first time to the pod starting to run', POD_START_BUCKETS);
  const podStartSli = histogram(registry, 'pod_start_sli_duration_seconds', 'Duration in seconds to start a pod, excluding time to pull images', POD_START_BUCKETS);
  const podStartPhase = histogram(registry, 'pod_start_phase_duration_seconds', 'Duration in seconds of each phase of a pod start: admission, sandbox, images, containers, running (each from the end of the previous one)', PHASE_BUCKETS, ['phase']);
  const podWorker = histogram(registry, 'pod_worker_duration_seconds', 'Duration in seconds to sync a single pod, by operation type', DEF_BUCKETS, ['operation_type']);
  const podWorkerStart = histogram(registry, 'pod_worker_start_duration_seconds', 'Duration in seconds from the agent seeing a pod to starting a worker', DEF_BUCKETS);
  const relist = histogram(registry, 'pleg_relist_duration_seconds', 'Duration in seconds for relisting pods in the PLEG', DEF_BUCKETS);
  const relistInterval = histogram(registry, 'pleg_relist_interval_seconds', 'Interval in seconds between relisting in the PLEG', DEF_BUCKETS);
  const runtimeOps = histogram(registry, 'runtime_operations_duration_seconds', 'Duration in seconds of runtime operations, by operation type', RUNTIME_BUCKETS, ['operation_type']);
  const runtimeErrors = counter(registry, 'runtime_operations_errors_total', 'Cumulative number of runtime operation errors by operation type', ['operation_type']);
  const runningPods = new Gauge({ name: PREFIX + 'running_pods', help: 'Number of pods that have a running pod sandbox', registers: [registry] });
  const runningContainers = new Gauge({ name: PREFIX + 'running_containers', help: 'Number of containers currently running', labelNames: ['container_state'], registers: [registry] });
  const started = counter(registry, 'started_containers_total', 'Cumulative number of containers started', ['container_type']);
  const startErrors = counter(registry, 'started_containers_errors_total', 'Cumulative number of errors when starting containers', ['code', 'container_type']);
  const imagePull = histogram(registry, 'image_pull_duration_seconds', 'Duration in seconds to pull an image', IMAGE_PULL_BUCKETS, ['image_size_in_bytes']);
  const httpTotal = counter(registry, 'http_requests_total', 'Number of HTTP requests received since the server started', ['method', 'path', 'server_type', 'long_running']);
  const httpDuration = histogram(registry, 'http_requests_duration_seconds', 'Duration in seconds to serve HTTP requests', DEF_BUCKETS, ['method', 'path', 'server_type', 'long_running']);

  let probes: ProbeCountSource | undefined;
  new Counter({
    name: 'prober_probe_total',
    help: 'Cumulative number of a liveness, readiness or startup probe for a container by result',
    labelNames: ['probe_type', 'result', 'container', 'pod', 'namespace', 'pod_uid'],
    registers: [probesRegistry],
    collect() {
      // Read at scrape time: the prober owns the counts and drops a stopped worker's series.
      this.reset();
      for (const c of probes?.snapshot() ?? []) {
        this.inc({ probe_type: c.probeType, result: c.result, container: c.container, pod: c.pod, namespace: c.namespace, pod_uid: c.podUID }, c.count);
      }
    },
  });

  const restClient = restClientMetrics(registry);
  if (opts.registerClientMetrics !== false) registerRequestMetrics(restClient);

  const tracker = new PodStartTracker();
  const log = opts.log;

  return {
    registry,
    probesRegistry,
    restClient,
    runtimeOperation(op, seconds, failed) {
      const s = secs(seconds);
      if (s !== undefined) runtimeOps.observe({ operation_type: op }, s);
      if (failed) runtimeErrors.inc({ operation_type: op });
    },
    podWorker(operation, seconds) {
      const s = secs(seconds);
      if (s !== undefined) podWorker.observe({ operation_type: operation }, s);
    },
    podWorkerStart(seconds) {
      const s = secs(seconds);
      if (s !== undefined) podWorkerStart.observe(s);
    },
    plegRelist(seconds, intervalSeconds) {
      const s = secs(seconds);
      if (s !== undefined) relist.observe(s);
      const i = intervalSeconds === undefined ? undefined : secs(intervalSeconds);
      if (i !== undefined) relistInterval.observe(i);
    },
    runtimeState(snapshot) {
      const { pods, containers } = countRunning(snapshot);
      runningPods.set(pods);
      runningContainers.reset();
      for (const [state, n] of containers) runningContainers.set({ container_state: state }, n);
    },
    imagePull(seconds, sizeBytes) {
      const s = secs(seconds);
      if (s !== undefined) imagePull.observe({ image_size_in_bytes: imageSizeClass(sizeBytes) }, s);
    },
    containerStart(type, errorCode) {
      started.inc({ container_type: type });
      if (errorCode !== undefined) startErrors.inc({ code: errorCode, container_type: type });
    },
    podStartPhase(pod, phase, atMs) {
      const rec = tracker.mark(pod, phase, atMs ?? performance.now());
      if (rec === undefined) return;
      podStart.observe(rec.totalSeconds);
      podStartSli.observe(rec.sliSeconds);
      for (const [step, s] of Object.entries(rec.steps)) podStartPhase.observe({ phase: step }, s);
      log?.info('Observed pod startup duration', { pod: `${pod.namespace}/${pod.name}`, podUID: pod.uid, podStartDurationSeconds: rec.totalSeconds, podStartSLOduration: rec.sliSeconds, phases: rec.steps });
    },
    podGone(uid) {
      tracker.forget(uid);
    },
    probeSource(source) {
      probes = source;
    },
    httpRequest(labels, seconds) {
      httpTotal.inc(labels);
      const s = secs(seconds);
      if (s !== undefined) httpDuration.observe(labels, s);
    },
  };
}

/** running_pods counts pods with a ready sandbox; running_containers counts containers by their CRI state, lower case. Pure. */
export function countRunning(snapshot: ReadonlyMap<string, ObservedPod>): { pods: number; containers: Map<string, number> } {
  let pods = 0;
  const containers = new Map<string, number>();
  for (const pod of snapshot.values()) {
    if (pod.sandboxes.some((s) => s.ready)) pods++;
    for (const c of pod.containers) {
      const state = String(c.state).toLowerCase();
      containers.set(state, (containers.get(state) ?? 0) + 1);
    }
  }
  return { pods, containers };
}
