// The node server's request metrics (http_requests_total and
// http_requests_duration_seconds with the kubelet's labels) fed from the HTTP
// core's per-request records.
import type { HttpObserver, HttpRequestRecord } from '../server/types.js';
import type { AgentMetrics } from './registry.js';

/** The kubelet's server_type label. */
const SERVER_TYPE: Readonly<Record<HttpRequestRecord['server'], string>> = { main: 'readwrite', readOnly: 'readonly' };

/**
 * The path label, as the kubelet's getURLRootPath: `metrics/<x>` for the
 * metrics family (`/metrics/probes` → `metrics/probes`), otherwise the route's
 * first segment (`/stats/` → `stats`, `/containerLogs/` → `containerLogs`);
 * `other` for unmatched paths. Bounded by the routes. Pure.
 */
export function pathClass(routePath: string): string {
  const parts = routePath.split('/').filter((s) => s !== '');
  const first = parts[0];
  if (first === undefined) return routePath === '/' ? '' : 'other';
  if (first === 'metrics' && parts[1] !== undefined) return `metrics/${parts[1]}`;
  return first;
}

/** The kubelet's long-running paths (exec, attach, portforward, debug); an upgraded request is long-running too. */
const LONG_RUNNING = new Set(['exec', 'attach', 'portforward', 'debug']);

export function isLongRunning(path: string, upgrade: string): boolean {
  return upgrade !== '' || LONG_RUNNING.has(path.toLowerCase());
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
        const path = pathClass(r.path);
        m.httpRequest({ method: methodClass(r.method), path, server_type: SERVER_TYPE[r.server] ?? r.server, long_running: String(isLongRunning(path, r.upgrade)) }, r.seconds);
      } catch {
        // The contract: never throw into the HTTP core. A label prom-client refuses is a bug here, not the request's.
      }
    },
  };
}
