// The client's request metrics hook: client-go's `rest_client_requests_total`
// (one per attempt, by status code, method and host) and
// `rest_client_request_duration_seconds` (one per call, retries and waits
// included, by verb and host). The transport records into a sink; the
// metrics folder supplies one backed by its registry. As in client-go (whose
// adapters component-base registers once per process), a process-wide sink
// may be registered, so every client of the process — the bootstrap client
// included — is counted without being handed the sink; a sink given in the
// transport's options takes precedence.

/** client-go's code label for an attempt that got no HTTP response (connection refused, reset, timeout). */
export const NO_RESPONSE_CODE = '<error>';

/**
 * Receives the transport's records. Called on the request path: must be
 * synchronous, cheap and never throw (the transport drops what one throws).
 */
export interface RequestMetricsSink {
  /** One attempt ended: `code` is the HTTP status (a watch counts when its headers arrive) or NO_RESPONSE_CODE. */
  result(code: string, method: string, host: string): void;
  /** One non-watch call ended, successful or not, after `seconds` (rate-limit waits and retries included). */
  latency(verb: string, host: string, seconds: number): void;
}

let registered: RequestMetricsSink | undefined;

/**
 * Makes `sink` the process-wide sink of every transport given none in its
 * options, read at each record (a transport built earlier starts counting
 * too). Returns the undo, which restores the previous sink if `sink` is still
 * the registered one. Synchronous; the last registration wins.
 */
export function registerRequestMetrics(sink: RequestMetricsSink): () => void {
  const previous = registered;
  registered = sink;
  return () => {
    if (registered === sink) registered = previous;
  };
}

/** The process-wide sink, if one was registered. */
export function registeredRequestMetrics(): RequestMetricsSink | undefined {
  return registered;
}

/**
 * The transport's side: records into the options' sink or else the
 * registered one, swallowing a sink's exception so a metrics bug never fails
 * a request.
 */
export class RequestRecorder {
  constructor(
    private readonly host: string,
    private readonly own: RequestMetricsSink | undefined,
  ) {}

  result(code: number | typeof NO_RESPONSE_CODE, method: string): void {
    const sink = this.own ?? registered;
    if (sink === undefined) return;
    try {
      sink.result(String(code), method, this.host);
    } catch {
      /* a metrics bug must not fail the request */
    }
  }

  latency(verb: string, seconds: number): void {
    const sink = this.own ?? registered;
    if (sink === undefined || !Number.isFinite(seconds) || seconds < 0) return;
    try {
      sink.latency(verb, this.host, seconds);
    } catch {
      /* as above */
    }
  }
}

/** client-go's host label: the server URL's host[:port]. Pure. */
export function hostLabel(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}
