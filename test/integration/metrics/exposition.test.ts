// /metrics and /metrics/probes served over a real loopback HTTP server (a
// small harness standing in for the HTTP core), and promtool's verdict on a
// populated registry's exposition.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { createAgentMetrics, httpObserver, instrumentRuntime, metricsRoutes, type AgentMetrics } from '../../../src/metrics/index.js';
import type { Route } from '../../../src/server/types.js';

const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));

/** Serves `routes` on loopback, matching exact paths, as the HTTP core will. */
async function serve(routes: readonly Route[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = routes.find((r) => r.path === url.pathname);
    if (!route) return void res.writeHead(404).end();
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    route.handle({ req, res, url, user: undefined, signal: ac.signal }).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function populated(): Promise<AgentMetrics> {
  const m = createAgentMetrics();
  const rt = instrumentRuntime(new FakeRuntime(), m);
  await rt.version();
  await rt.listContainers();
  await rt.containerStatus('missing').catch(() => {});
  m.podWorker('create', 0.4);
  m.podWorker('kill', 2);
  m.podWorkerStart(0.002);
  m.plegRelist(0.01, 1);
  m.runtimeState(new Map());
  m.imagePull(4, undefined);
  m.containerStart('container', undefined);
  m.containerStart('container', 'Unknown');
  httpObserver(m).observe({ server: 'readOnly', method: 'GET', path: '/metrics', code: 200, seconds: 0.001, upgrade: '' });
  const pod = { uid: 'u1', namespace: 'ns', name: 'web' };
  for (const [phase, at] of [['seen', 0], ['admitted', 1], ['sandbox', 200], ['images', 900], ['containers', 950], ['running', 1900]] as const) m.podStartPhase(pod, phase, at);
  m.probeSource({ snapshot: () => [{ probeType: 'Readiness', result: 'failed', container: 'c', pod: 'web', namespace: 'ns', podUID: 'u1', count: 2 }] });
  return m;
}

function promtool(input: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = execFile(PROMTOOL!, ['check', 'metrics'], { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
    child.stdin!.end(input);
  });
}

describe('metrics routes', () => {
  let m: AgentMetrics;
  let srv: { server: Server; url: string };
  beforeAll(async () => {
    m = await populated();
    srv = await serve(metricsRoutes(m));
  });
  afterAll(async () => {
    srv.server.closeAllConnections();
    await new Promise((resolve) => srv.server.close(resolve));
  });

  test('the routes: read-only port too, no debugging handlers, GET', () => {
    expect(metricsRoutes(m).map((r) => ({ path: r.path, readOnly: r.readOnly, debugging: r.debugging, methods: r.methods }))).toEqual([
      { path: '/metrics', readOnly: true, debugging: false, methods: ['GET'] },
      { path: '/metrics/probes', readOnly: true, debugging: false, methods: ['GET'] },
    ]);
  });

  test('GET /metrics: text exposition with prom-client content type', async () => {
    const res = await fetch(`${srv.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(m.registry.contentType);
    const body = await res.text();
    expect(body).toContain('agent_runtime_operations_duration_seconds_count{operation_type="list_containers"} 1');
    expect(body).toContain('agent_runtime_operations_errors_total{operation_type="container_status"} 1');
    expect(body).toContain('# TYPE process_cpu_user_seconds_total counter');
  });

  test('HEAD /metrics: headers, no body', async () => {
    const res = await fetch(`${srv.url}/metrics`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await res.text()).toBe('');
  });

  test('GET /metrics/probes: prober_probe_total only', async () => {
    const body = await (await fetch(`${srv.url}/metrics/probes`)).text();
    expect(body).toContain('prober_probe_total{probe_type="Readiness",result="failed",container="c",pod="web",namespace="ns",pod_uid="u1"} 2');
    expect(body).not.toContain('agent_');
  });

  test('promtool check metrics: both expositions are clean', async () => {
    expect(PROMTOOL, 'promtool is missing: packaging/local-runtime/install-deps.sh installs it (Debian package prometheus)').toBeDefined();
    for (const path of ['/metrics', '/metrics/probes']) {
      const body = await (await fetch(`${srv.url}${path}`)).text();
      const r = await promtool(body);
      expect(r.out, path).toBe('');
      expect(r.code, path).toBe(0);
    }
  });
});
