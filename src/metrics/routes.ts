// /metrics and /metrics/probes: Prometheus text exposition of the agent's
// registries, with prom-client's content type. Served on both ports (the
// kubelet's /metrics family is read-only-port safe); no debugging handlers needed.
import type { Registry } from 'prom-client';
import type { Route, RouteContext } from '../server/types.js';
import type { AgentMetrics } from './registry.js';

async function serve(reg: Registry, ctx: RouteContext): Promise<void> {
  const { req, res } = ctx;
  const body = await reg.metrics();
  if (ctx.signal.aborted || res.destroyed) return;
  res.writeHead(200, { 'Content-Type': reg.contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function route(path: string, reg: Registry): Route {
  return { path, readOnly: true, debugging: false, methods: ['GET'], handle: (ctx) => serve(reg, ctx) };
}

/**
 * `/metrics` matches that path only (whole segments, no trailing slash), so
 * the stats folder's /metrics/resource and /metrics/cadvisor routes and
 * /metrics/probes here do not collide with it.
 */
export function metricsRoutes(m: Pick<AgentMetrics, 'registry' | 'probesRegistry'>): Route[] {
  return [route('/metrics', m.registry), route('/metrics/probes', m.probesRegistry)];
}
