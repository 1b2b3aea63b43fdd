import { describe, expect, test } from 'vitest';
import { createAgentMetrics, httpObserver, isLongRunning, methodClass, pathClass } from '../../../src/metrics/index.js';

describe('http labels', () => {
  test.each([
    ['/pods', 'pods'],
    ['/stats/', 'stats'],
    ['/containerLogs/', 'containerLogs'],
    ['/metrics/probes', 'metrics/probes'],
    ['/metrics/cadvisor', 'metrics/cadvisor'],
    ['/metrics', 'metrics'],
    ['/healthz', 'healthz'],
    ['other', 'other'],
    ['/', ''],
  ])('path %s → %s', (p, want) => expect(pathClass(p)).toBe(want));
  test.each([
    ['exec', '', true],
    ['portForward', '', true],
    ['attach', 'websocket', true],
    ['containerLogs', '', false],
    ['pods', '', false],
  ])('long running: %s upgrade=%j → %s', (p, up, want) => expect(isLongRunning(p, up)).toBe(want));
  test.each([
    ['GET', 'GET'],
    ['get', 'GET'],
    ['PROPFIND', 'other'],
  ])('method %s → %s', (m, want) => expect(methodClass(m)).toBe(want));
});

describe('httpObserver', () => {
  test('counts and times a request under the kubelet labels', async () => {
    const m = createAgentMetrics({ processMetrics: false });
    const o = httpObserver(m);
    o.observe({ server: 'main', method: 'GET', path: '/stats/', code: 200, seconds: 0.01, upgrade: '' });
    o.observe({ server: 'readOnly', method: 'POST', path: '/exec/', code: 101, seconds: 3, upgrade: 'spdy' });
    const text = await m.registry.metrics();
    expect(text).toContain('agent_http_requests_total{method="GET",path="stats",server_type="readwrite",long_running="false"} 1');
    expect(text).toContain('agent_http_requests_total{method="POST",path="exec",server_type="readonly",long_running="true"} 1');
    expect(text).toContain('agent_http_requests_duration_seconds_count{method="GET",path="stats",server_type="readwrite",long_running="false"} 1');
  });

  test('never throws into the HTTP core', () => {
    const o = httpObserver({ httpRequest: () => { throw new Error('bad label'); } });
    expect(() => o.observe({ server: 'main', method: 'GET', path: '/pods', code: 200, seconds: 0, upgrade: '' })).not.toThrow();
  });
});
