// The stats routes over real HTTP on loopback, through a minimal harness
// (the HTTP core is built separately): path match, then route.handle.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import type { Route } from '../../../src/server/types.js';
import { createStatsProvider, statsRoutes, type StatsProvider } from '../../../src/stats/index.js';
import { testLogger } from '../../helpers/test-logger.js';
import { makeFixture, runningPod, type Fixture } from '../../unit/stats/fixtures.js';

let fx: Fixture;
let server: Server | undefined;
let stop: (() => Promise<void>) | undefined;

beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(async () => {
  await stop?.();
  stop = undefined;
  if (server !== undefined) await new Promise<void>((r) => server?.close(() => r()));
  server = undefined;
  await fx.cleanup();
});

async function serve(routes: Route[]): Promise<string> {
  const s = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://node');
    const route = routes.find((r) => r.path === url.pathname);
    if (route === undefined) {
      res.writeHead(404).end();
      return;
    }
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    void route.handle({ req, res, url, user: undefined, signal: ac.signal });
  });
  s.keepAliveTimeout = 1;
  server = s;
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

async function started(fake: FakeRuntime): Promise<StatsProvider> {
  let refreshed!: () => void;
  const first = new Promise<void>((r) => (refreshed = r));
  const p = createStatsProvider({
    runtime: fake, status: { all: () => [] }, rootDir: fx.rootDir, nodeName: 'node-a', log: testLogger(),
    podLogsDir: fx.logs, procRoot: fx.proc, cgroupMount: fx.cgroup, onTick: (w) => w === 'refreshed' && refreshed(),
  });
  const ac = new AbortController();
  const run = p.run(ac.signal);
  stop = async () => {
    ac.abort();
    await run;
  };
  await first;
  return p;
}

const get = async (url: string): Promise<{ status: number; type: string | null; body: string }> => {
  const r = await fetch(url, { headers: { connection: 'close' } });
  return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
};

describe('stats routes', () => {
  it('declares the kubelet\'s paths: read-only port too, not debugging, GET', () => {
    const fake = new FakeRuntime();
    const p = createStatsProvider({ runtime: fake, status: { all: () => [] }, rootDir: fx.rootDir, nodeName: 'n', log: testLogger() });
    expect(statsRoutes(p).map((r) => [r.path, r.readOnly, r.debugging, r.methods])).toEqual([
      ['/stats/summary', true, false, ['GET']],
      ['/metrics/resource', true, false, ['GET']],
      ['/metrics/cadvisor', true, false, ['GET']],
    ]);
  });

  it('answers 503 before the first refresh', async () => {
    const p = createStatsProvider({ runtime: new FakeRuntime(), status: { all: () => [] }, rootDir: fx.rootDir, nodeName: 'n', log: testLogger() });
    const base = await serve(statsRoutes(p));
    const r = await get(`${base}/stats/summary`);
    expect(r.status).toBe(503);
    expect(r.body).toContain('not yet available');
    expect((await get(`${base}/metrics/resource`)).body).toContain('scrape_error 1');
  });

  it('serves the summary, its cpu-and-memory view, and both metric texts', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    const { containerId } = await runningPod(fake);
    fake.stats.set(containerId, { cpuCoreNanoSeconds: 4_000_000_000, workingSetBytes: 1234 });
    const base = await serve(statsRoutes(await started(fake)));

    const full = await get(`${base}/stats/summary`);
    expect(full.status).toBe(200);
    expect(full.type).toBe('application/json');
    const s = JSON.parse(full.body) as { node: Record<string, unknown>; pods: Array<{ containers: Array<Record<string, unknown>> }> };
    expect(s.node.nodeName).toBe('node-a');
    expect(s.node).toHaveProperty('fs');
    expect(s.pods[0]?.containers[0]).toMatchObject({ name: 'app', memory: { workingSetBytes: 1234 } });

    for (const q of ['true', '1', 'T']) {
      const only = JSON.parse((await get(`${base}/stats/summary?only_cpu_and_memory=${q}`)).body) as { node: Record<string, unknown> };
      expect(only.node).not.toHaveProperty('fs');
      expect(only.node).toHaveProperty('cpu');
    }
    expect(JSON.parse((await get(`${base}/stats/summary?only_cpu_and_memory=false`)).body)).toHaveProperty('node.fs');

    const bad = await get(`${base}/stats/summary?only_cpu_and_memory=yes`);
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('only_cpu_and_memory');
    expect((await get(`${base}/stats/summary?only_cpu_and_memory=true&only_cpu_and_memory=false`)).status).toBe(400);

    const resource = await get(`${base}/metrics/resource`);
    expect(resource.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(resource.body).toMatch(/^container_cpu_usage_seconds_total\{container="app",namespace="default",pod="web-node1"\} 4 \d+$/m);
    expect(resource.body).toContain('scrape_error 0');
    const cadvisor = await get(`${base}/metrics/cadvisor`);
    expect(cadvisor.body).toContain(`name="${containerId}"`);
  });
});
