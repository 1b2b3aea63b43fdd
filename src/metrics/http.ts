// The node server's request metrics (http_requests_total and
// http_requests_duration_seconds with the kubelet's labels) fed from the HTTP
// core's per-request records.
import type { HttpObserver, HttpRequestRecord } from '../server/types.js';
import type { AgentMetrics } from './registry.js';

/** The kubelet's server_type label. */
const SERVER_TYPE: Readonly<Record<HttpRequestRecord['server'], string>> = { main: 'readwrite', readOnly: 'readonly' };

/**
 * The path label: the route's first segment (`/stats/summary` → `stats`,
 * `/containerLogs/` → `containerLogs`), as the kubelet buckets by root path;
 * `other` for unmatched paths. Keeps the label's cardinality to the routes. Pure.
 */
export function pathClass(routePath: string): string {
  const first = routePath.split('/').find((s) => s !== '');
  return first === undefined || first === 'other' ? (routePath === '/' ? '' : 'other') : first;
}

/** The method label: the standard HTTP methods, upper case as the kubelet writes them, anything else `other` (bounded cardinality). Pure. */
export function methodClass(method: string): string {
  const m = method.toUpperCase();
  return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT'].includes(m) ? m : 'other';
}

export function httpObserver(m: Pick<AgentMetrics, 'httpRequest'>): HttpObserver {
  return {
    observe(r) {
      try {
        m.httpRequest({ method: methodClass(r.method), path: pathClass(r.path), server_type: SERVER_TYPE[r.server] ?? r.server, long_running: r.upgrade !== '' ? 'true' : 'false' }, r.seconds);
      } catch {
        // The contract: never throw into the HTTP core. A label prom-client refuses is a bug here, not the request's.
      }
    },
  };
}
