// The resource limits of one node server (10250 or 10255). Defaults follow the
// kubelet's http.Server where it sets one (1 MiB of headers, 4 h for any
// connection), and Node's where the kubelet relies on Go's own (headers
// within 60 s); the kubelet has no connection cap: ours keeps a flood on one
// port from taking the process's file descriptors and event loop from the rest.

export interface ServerLimits {
  /** Request line plus headers; larger is 431 (Go's DefaultMaxHeaderBytes, the kubelet's MaxHeaderBytes). */
  maxHeaderBytes: number;
  /** A declared Content-Length above this is 413; a body without a length (chunked) is 411. */
  maxBodyBytes: number;
  /** Open connections on this port, TLS handshakes included; the next one is closed at accept. */
  maxConnections: number;
  /** Time to receive the request headers; then 408 and close (slow or half-open clients). */
  headersTimeoutMs: number;
  /** Time to receive the whole request (not the response, so following logs is unaffected). */
  requestTimeoutMs: number;
  /** Idle keep-alive connections close after this. */
  keepAliveTimeoutMs: number;
  /** No connection lives longer: it closes at its next idle point, after the response in flight, or (upgraded streams) at once. */
  maxConnectionAgeMs: number;
  /** How often connections are checked against the timeouts and the age cap. */
  checkIntervalMs: number;
}

export const DEFAULT_LIMITS: Readonly<ServerLimits> = Object.freeze({
  maxHeaderBytes: 1 << 20,
  maxBodyBytes: 4 << 20,
  maxConnections: 1000,
  headersTimeoutMs: 60_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 90_000,
  maxConnectionAgeMs: 4 * 60 * 60_000,
  checkIntervalMs: 30_000,
});

/** Fills the defaults and checks every value is a positive integer (a zero or negative limit is a wiring bug, not a way to disable). */
export function resolveLimits(given: Partial<ServerLimits> | undefined): ServerLimits {
  const l: ServerLimits = { ...DEFAULT_LIMITS, ...stripUndefined(given ?? {}) };
  for (const [k, v] of Object.entries(l)) {
    if (!Number.isSafeInteger(v) || v <= 0) throw new TypeError(`server limits: ${k} must be a positive integer, got ${String(v)}`);
  }
  // Node refuses a headers timeout above the request timeout.
  if (l.headersTimeoutMs > l.requestTimeoutMs) l.requestTimeoutMs = l.headersTimeoutMs;
  return l;
}

function stripUndefined(o: Partial<ServerLimits>): Partial<ServerLimits> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<ServerLimits>;
}
