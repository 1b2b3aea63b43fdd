// client-go's request metrics (component-base's restclient adapters), under
// their own names — they are not the kubelet's families and carry no
// `agent_` prefix in the kubelet either: `rest_client_requests_total{code,
// host,method}` and `rest_client_request_duration_seconds{verb,host}`. The
// API client's transport records into the sink (src/client/transport/
// request-metrics.ts); createAgentMetrics builds one over its registry.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { RequestMetricsSink } from '../client/index.js';

/** client-go's requestLatency buckets (component-base/metrics/prometheus/restclient). */
export const REST_CLIENT_LATENCY_BUCKETS: readonly number[] = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** Registers both families in `registry` and returns the sink that feeds them. Recording is synchronous and never throws. */
export function restClientMetrics(registry: Registry): RequestMetricsSink {
  const total = new Counter({ name: 'rest_client_requests_total', help: 'Number of HTTP requests, partitioned by status code, method, and host.', labelNames: ['code', 'host', 'method'], registers: [registry] });
  const duration = new Histogram({ name: 'rest_client_request_duration_seconds', help: 'Request latency in seconds. Broken down by verb, and host.', labelNames: ['verb', 'host'], buckets: [...REST_CLIENT_LATENCY_BUCKETS], registers: [registry] });
  return {
    result(code, method, host) {
      total.inc({ code, host, method });
    },
    latency(verb, host, seconds) {
      if (Number.isFinite(seconds) && seconds >= 0) duration.observe({ verb, host }, seconds);
    },
  };
}
