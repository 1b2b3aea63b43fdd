// The contracts between the client's layers (issue 17). Each layer is its own
// folder and knows only the layer below through these types:
//   config/     platformconfig file → ConnectionConfig
//   transport/  ConnectionConfig → Transport (pool, rate limits, retries, errors)
//   rest/       Transport → ResourceClient (representations, reads, watch, writes)
//   informer/   ListerWatcher (a ResourceClient is one) → Informer
//   node/       ResourceClient → the agent's status and lease writers
// Objects are JSON-form (`ApiObject`, as the codec decodes them) whatever the
// wire representation was.
import type { ApiObject } from '../api/codec/index.js';
import type { PatchType } from '../api/media.js';
import type { PropagationPolicy } from '../api/list-query.js';

export type { ApiObject };

// ---------------------------------------------------------------- connection

/** What a platformconfig's current context resolves to; every path already read. */
export interface ConnectionConfig {
  /** `https://host:port` (no trailing slash). */
  readonly server: string;
  /** PEM of the CA bundle to trust; undefined: the system's roots. */
  readonly ca: string | undefined;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName: string | undefined;
  /** PEM client certificate and key (both or neither). */
  readonly clientCert: { readonly cert: string; readonly key: string } | undefined;
  /** A fixed bearer token. */
  readonly token: string | undefined;
  /** A token file, re-read when it changes (wins over `token` when both are given, as client-go). */
  readonly tokenFile: string | undefined;
  /** The context's namespace (default "default"). */
  readonly namespace: string;
  /** Where it came from, for messages: the file and the context name. */
  readonly source: { readonly file: string; readonly context: string };
}

// ----------------------------------------------------------------- transport

/** Which token bucket a request draws from: `none` for watches (never limited). */
export type RateLimitClass = 'default' | 'events' | 'none';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface TransportRequest {
  readonly method: HttpMethod;
  /** Absolute path without query: `/api/v1/namespaces/a/pods`. */
  readonly path: string;
  readonly query?: URLSearchParams;
  /** accept, content-type; the transport adds authorization, user-agent, accept-encoding. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array | string;
  readonly signal?: AbortSignal;
  /**
   * Safe to send again after a 5xx or a connection error (reads; writes the
   * caller knows are guarded). A 429 is retried for every request: the
   * server did not act on it.
   */
  readonly idempotent?: boolean;
  /** Default 'default'. */
  readonly limiter?: RateLimitClass;
  /** Deadline of a non-stream request in ms (default 60 s); streams have none. */
  readonly timeoutMs?: number;
}

export interface TransportResponse {
  readonly status: number;
  /** Lower-case names; repeated headers (Warning) as arrays. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The whole body, gunzipped. */
  readonly body: Buffer;
}

export interface TransportStream {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body's chunks as they arrive, gunzipped; ends when the server ends the stream; throws ClientConnectionError on a reset. */
  readonly body: AsyncIterable<Buffer>;
  /** Ends the stream from our side; idempotent. */
  close(): void;
}

/**
 * One connection pool to one server. `request` resolves for 2xx only and
 * rejects with ApiStatusError (non-2xx, after retries), ClientConnectionError
 * or the signal's reason. `stream` opens a streaming GET (watch) the same way.
 * Neither blocks beyond its rate limiter and retries; both are safe to call
 * concurrently.
 */
export interface Transport {
  request(req: TransportRequest): Promise<TransportResponse>;
  stream(req: TransportRequest): Promise<TransportStream>;
  /** Closes the pool; requests in flight fail; later ones reject. Idempotent. */
  close(): Promise<void>;
  /**
   * A renewed client certificate (src/certificates' rotation): new
   * connections present it from now on; open ones finish what they carry and
   * close. Optional so test transports need not have it. Never blocks.
   */
  setClientCertificate?(cert: { readonly cert: string; readonly key: string }): void;
}

// ------------------------------------------------------------------ resources

/** One resource type of the API, as a URL names it. */
export interface ResourceType {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural: `pods`, `leases`. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent {
  readonly type: WatchEventType;
  /** The object; for BOOKMARK only `metadata.resourceVersion` (and annotations) are meaningful. */
  readonly object: ApiObject;
}

export interface ListOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** §4.13: '' (most recent, consistent), '0' (any), or a version. */
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  readonly limit?: number;
  readonly continue?: string;
  /**
   * The caller never reads metadata.managedFields: the objects come without
   * it (a protobuf decode skips it on the wire; JSON drops it after parsing).
   */
  readonly omitManagedFields?: boolean;
  readonly signal?: AbortSignal;
}

export interface ListPage {
  readonly items: ApiObject[];
  readonly resourceVersion: string;
  /** '' on the last page. */
  readonly continue: string;
  readonly remainingItemCount: number | undefined;
}

export interface WatchOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'NotOlderThan';
  readonly allowWatchBookmarks?: boolean;
  readonly sendInitialEvents?: boolean;
  readonly timeoutSeconds?: number;
  /**
   * The caller never reads metadata.managedFields: the objects come without
   * it (a protobuf decode skips it on the wire; JSON drops it after parsing).
   */
  readonly omitManagedFields?: boolean;
  readonly signal?: AbortSignal;
}

/**
 * An open watch. Iterating yields events until the server ends the stream
 * (clean end: the iteration finishes) or fails: an ERROR event becomes an
 * ApiStatusError (410 Expired for a too-old version), a broken frame a
 * ClientProtocolError, a reset a ClientConnectionError. `close()` ends it.
 */
export interface WatchStream extends AsyncIterable<WatchEvent> {
  close(): void;
}

/** What an informer needs from the API for one resource type (a ResourceClient is one). */
export interface ListerWatcher {
  readonly type: ResourceType;
  /** Namespace scope ('' = all namespaces). */
  readonly namespace: string;
  list(opts: ListOptions): Promise<ListPage>;
  watch(opts: WatchOptions): Promise<WatchStream>;
}

export interface WriteOptions {
  readonly dryRun?: boolean;
  readonly fieldManager?: string;
  readonly fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  readonly signal?: AbortSignal;
}

export interface PatchOptions extends WriteOptions {
  /** Server-side apply only. */
  readonly force?: boolean;
}

export interface DeleteOptions {
  readonly gracePeriodSeconds?: number;
  readonly propagationPolicy?: PropagationPolicy;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly dryRun?: boolean;
  readonly signal?: AbortSignal;
}

/** Typed verbs on one resource type in one namespace ('' for cluster-scoped or all namespaces). */
export interface ResourceClient extends ListerWatcher {
  get(name: string, opts?: { resourceVersion?: string; signal?: AbortSignal }): Promise<ApiObject>;
  /** Every page from `limit`-sized requests, restarting once as a full list when a continue token expires (410). */
  listAll(opts?: Omit<ListOptions, 'continue'>): Promise<{ items: ApiObject[]; resourceVersion: string }>;
  create(obj: ApiObject, opts?: WriteOptions): Promise<ApiObject>;
  update(obj: ApiObject, opts?: WriteOptions & { subresource?: string }): Promise<ApiObject>;
  /** GET, `mutate`, PUT; on 409 Conflict again from a fresh GET, up to `attempts` (default 5) times. */
  updateWithRetry(name: string, mutate: (current: ApiObject) => ApiObject | undefined, opts?: WriteOptions & { attempts?: number; subresource?: string }): Promise<ApiObject>;
  patch(name: string, type: PatchType, patch: unknown, opts?: PatchOptions & { subresource?: string }): Promise<ApiObject>;
  /** The deleted object (200) or the object marked for deletion (202); a Status for kinds that return one is returned as-is. */
  delete(name: string, opts?: DeleteOptions): Promise<ApiObject>;
  deleteCollection(opts?: DeleteOptions & Pick<ListOptions, 'labelSelector' | 'fieldSelector'>): Promise<ApiObject>;
}

// ------------------------------------------------------------------- informer

export interface InformerHandlers {
  onAdd?(obj: ApiObject): void;
  onUpdate?(oldObj: ApiObject, newObj: ApiObject): void;
  /** `obj` is the last state the store held (a relist's delete carries no newer one). */
  onDelete?(obj: ApiObject): void;
}

/** A read-only view of an informer's indexed local store. */
export interface InformerStore {
  /** `namespace/name`, or `name` for cluster-scoped objects. */
  get(key: string): ApiObject | undefined;
  list(): ApiObject[];
  /** Objects whose index `index` has value `value` (e.g. 'namespace' → 'default'). */
  byIndex(index: string, value: string): ApiObject[];
  readonly size: number;
  /** The version the store reflects (the last list, event or bookmark). */
  readonly resourceVersion: string;
}

/**
 * A list-then-watch cache of one ListerWatcher. `run(signal)` starts it and
 * resolves once it has stopped after `signal` aborts (nothing runs after);
 * it never rejects for API failures (it backs off and retries, logging each
 * distinct failure once). Handlers run synchronously, in event order.
 */
export interface Informer {
  readonly store: InformerStore;
  addHandlers(h: InformerHandlers): void;
  run(signal: AbortSignal): Promise<void>;
  /** Resolves when the first full list (or streamed initial events) is in the store. */
  readonly synced: Promise<void>;
  hasSynced(): boolean;
}

/** The logger the client writes to (an AgentLogger fits); `v` is klog's V(n). */
export interface ClientLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  v?(level: number): { info(msg: string, fields?: Record<string, unknown>): void } | undefined;
}
