import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createAgentMetrics, restClientMetrics } from '../../../src/metrics/index.js';
import { registeredRequestMetrics } from '../../../src/client/transport/index.js';

describe('rest_client_* metrics', () => {
  it("exposes client-go's names, labels and buckets, without the agent_ prefix", async () => {
    const reg = new Registry();
    const sink = restClientMetrics(reg);
    sink.result('200', 'GET', '127.0.0.1:6443');
    sink.result('200', 'GET', '127.0.0.1:6443');
    sink.result('<error>', 'PUT', '127.0.0.1:6443');
    sink.latency('GET', '127.0.0.1:6443', 0.02);
    sink.latency('GET', '127.0.0.1:6443', Number.NaN);
    sink.latency('GET', '127.0.0.1:6443', -1);
    const text = await reg.metrics();
    expect(text).toContain('rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 2');
    expect(text).toContain('rest_client_requests_total{code="<error>",host="127.0.0.1:6443",method="PUT"} 1');
    expect(text).toContain('rest_client_request_duration_seconds_bucket{le="0.025",verb="GET",host="127.0.0.1:6443"} 1');
    expect(text).toContain('rest_client_request_duration_seconds_count{verb="GET",host="127.0.0.1:6443"} 1');
    expect(text).toContain('rest_client_request_duration_seconds_bucket{le="60",verb="GET",host="127.0.0.1:6443"} 1');
  });

  it('the agent registers its sink process-wide unless asked not to, and serves the families on /metrics', async () => {
    const m = createAgentMetrics({ processMetrics: false });
    expect(registeredRequestMetrics()).toBe(m.restClient);
    const other = createAgentMetrics({ processMetrics: false, registerClientMetrics: false });
    expect(registeredRequestMetrics()).toBe(m.restClient);
    other.restClient.result('201', 'POST', 'h:1');
    expect(await other.registry.metrics()).toContain('rest_client_requests_total{code="201",host="h:1",method="POST"} 1');
    expect(await m.registry.metrics()).toContain('# TYPE rest_client_request_duration_seconds histogram');
  });
});
