// The agent's API client in one call: a platformconfig file and the agent's
// connection options → one Transport, the codec and a RestClient over them.
// The agent's composition root calls createApiClient once in API-server mode
// and close() at stop; everything else (informers, the node writers) takes
// the RestClient or a ResourceClient from it and never sees HTTP.
import { loadApiCodec } from '../api/codec/index.js';
import { loadPlatformConfig } from './config/index.js';
import { createRestClient, type RestClient } from './rest/index.js';
import { clientRateLimits, createTransport, type RequestMetricsSink } from './transport/index.js';
import type { ClientLog, ConnectionConfig, Transport } from './types.js';

export type ApiContentType = 'application/json' | 'application/vnd.platform.protobuf';

/** The agent's options that shape the connection (`--platformconfig`, `--platform-api-*`, `--event-*`). */
export interface ApiClientOptions {
  readonly platformconfig: string;
  /** `--platform-api-qps`/`-burst`, `--event-qps`/`-burst`: 0 means the spec's default. */
  readonly platformApiQps: number;
  readonly platformApiBurst: number;
  readonly eventQps: number;
  readonly eventBurst: number;
  /** `--platform-api-content-type`. */
  readonly contentType: ApiContentType;
  readonly log: ClientLog;
  readonly context?: string;
  readonly userAgent?: string;
  /** rest_client_* records; default: the process-wide sink (registerRequestMetrics). */
  readonly metrics?: RequestMetricsSink;
}

export interface ApiClient {
  readonly connection: ConnectionConfig;
  readonly transport: Transport;
  readonly rest: RestClient;
  /** Closes the connection pool; requests and watches in flight fail. Idempotent. */
  close(): Promise<void>;
}

/**
 * Reads the platformconfig (ClientConfigError naming the file and field when
 * it cannot be used) and builds the client. Opens no connection until the
 * first request.
 */
export async function createApiClient(opts: ApiClientOptions): Promise<ApiClient> {
  const [connection, codec] = await Promise.all([loadPlatformConfig(opts.platformconfig, opts.context === undefined ? undefined : { context: opts.context }), loadApiCodec()]);
  const limits = clientRateLimits({ platformApiQps: opts.platformApiQps, platformApiBurst: opts.platformApiBurst, eventQps: opts.eventQps, eventBurst: opts.eventBurst });
  const transport = createTransport(connection, { ...limits, log: opts.log, ...(opts.userAgent === undefined ? {} : { userAgent: opts.userAgent }), ...(opts.metrics === undefined ? {} : { metrics: opts.metrics }) });
  const rest = createRestClient({ transport, codec, contentType: opts.contentType, log: opts.log });
  return { connection, transport, rest, close: () => transport.close() };
}

export { RESOURCES } from './rest/index.js';
export { NO_RESPONSE_CODE, registerRequestMetrics, type RequestMetricsSink } from './transport/index.js';
export type { RestClient, RestResourceClient } from './rest/index.js';
export * from './errors.js';
export type * from './types.js';
