// The client's transport (issue 17 items 1, 2, 4): createTransport turns a
// ConnectionConfig into the Transport that the rest client sends through;
// clientRateLimits turns the agent's four rate-limit options into the
// buckets' settings. The agent's composition root calls both once; the
// Transport is shared by every resource client and closed at stop.
import type { ConnectionConfig, Transport } from '../types.js';
import { HttpTransport, type TransportOptions } from './transport.js';

export type { TransportOptions } from './transport.js';
export { DEFAULT_TIMEOUT_MS } from './transport.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
export type { TokenFileIo } from './bearer-token.js';
export { defaultUserAgent } from './dispatcher.js';
export { NO_RESPONSE_CODE, registerRequestMetrics, registeredRequestMetrics, type RequestMetricsSink } from './request-metrics.js';

/** The spec's defaults for `--platform-api-qps/-burst` and `--event-qps/-burst` (given as 0). */
export const DEFAULT_RATE_LIMITS = { qps: 50, burst: 100, eventQps: 50, eventBurst: 100 } as const;

/**
 * The buckets' settings from the agent's options: each 0 becomes the spec's
 * default (50/100/50/100), any other value is taken as given. Pure.
 */
export function clientRateLimits(o: { platformApiQps: number; platformApiBurst: number; eventQps: number; eventBurst: number }): { qps: number; burst: number; eventQps: number; eventBurst: number } {
  const or = (v: number, d: number): number => (v === 0 ? d : v);
  return {
    qps: or(o.platformApiQps, DEFAULT_RATE_LIMITS.qps),
    burst: or(o.platformApiBurst, DEFAULT_RATE_LIMITS.burst),
    eventQps: or(o.eventQps, DEFAULT_RATE_LIMITS.eventQps),
    eventBurst: or(o.eventBurst, DEFAULT_RATE_LIMITS.eventBurst),
  };
}

/**
 * A Transport to `conn.server`. Opens no connection until the first request.
 * Throws a TypeError for a non-positive qps/eventQps or a burst below 1 (pass
 * the options through clientRateLimits first). Close it with close().
 */
export function createTransport(conn: ConnectionConfig, opts: TransportOptions): Transport {
  return new HttpTransport(conn, opts);
}
