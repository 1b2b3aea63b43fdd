// Public surface of the metrics folder: the registries and recorders
// (createAgentMetrics), the CRI wrapper, the HTTP observer and the routes.
// The composition root builds one AgentMetrics and hands its recorders to the
// PLEG, the pod manager, the image manager and the HTTP core.
export { createAgentMetrics, countRunning, PREFIX, type AgentMetrics, type AgentMetricsOptions, type ContainerType, type PodWorkerOperation, type ProbeCountSource } from './registry.js';
export { instrumentRuntime, operationType } from './runtime.js';
export { httpObserver, isLongRunning, methodClass, pathClass } from './http.js';
export { metricsRoutes } from './routes.js';
export { PodStartTracker, POD_START_PHASES, type PodRef, type PodStartPhase, type PodStartRecord } from './pod-start.js';
export { imageSizeClass } from './buckets.js';
export { restClientMetrics, REST_CLIENT_LATENCY_BUCKETS } from './rest-client.js';
