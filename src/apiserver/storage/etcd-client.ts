// A small etcd v3 client over the project's gRPC stack (@grpc/grpc-js +
// protobufjs with proto/etcd), used only by the etcd store. Not a general
// client: no hidden retries, no leases, no auth. What it does:
// - unary calls with a deadline and the caller's signal, failing over to the
//   next `--etcd-servers` endpoint on UNAVAILABLE (each endpoint at most once
//   per call; the endpoint that answered stays current);
// - opening a Watch stream on the current endpoint (the watch code resumes
//   broken streams itself, see etcd-watch.ts).
// A write that failed with UNAVAILABLE is tried once more on the next
// endpoint: every write of the store is a guarded Txn, so a write that had
// in fact been applied shows as KeyExists/Conflict/NotFound, never twice.

import type * as GrpcJs from '@grpc/grpc-js';
import { onAbort } from '../../lifecycle/abort.js';
import { StorageError } from './interface.js';
import { loadEtcdProto, type EtcdCodec, type EtcdProto } from './etcd-proto.js';
import { classifyEtcdError, parseEtcdEndpoints } from './etcd-wire.js';

type Grpc = typeof GrpcJs;

/** The logger the etcd store writes to; `v` is klog's V(n), as AgentLogger has it. */
export interface StorageLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  v?(level: number): { info(msg: string, fields?: Record<string, unknown>): void } | undefined;
}

export interface EtcdClientOptions {
  /** `--etcd-servers` entries (http://host:port or host:port). */
  endpoints: readonly string[];
  log: StorageLog;
  /** Deadline of each unary call (default 30 s). */
  requestTimeoutMs?: number;
}

const CHANNEL_OPTIONS: GrpcJs.ChannelOptions = {
  // An etcd member restarts in about a second: redial often, so a resumed
  // watch or the next call finds it soon (a dial to a dead member on the
  // network is cheap). It also bounds what grpc-js leaves after close() of a
  // channel that was redialling: up to two more back-off timers (~0.6 s each).
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 500,
  // etcd's own request limit is 1.5 MiB; a full list page or a watch batch can be far larger (clientv3 allows 2 GiB).
  'grpc.max_receive_message_length': 256 << 20,
  'grpc.max_send_message_length': 16 << 20,
  'grpc.use_local_subchannel_pool': 1,
  'grpc.enable_channelz': 0,
  // Notice a dead etcd under an idle watch stream: kube-apiserver's etcd client keepalive (30 s, 10 s timeout).
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
};

/** V-level of the per-call trace. */
const CALL_TRACE_LEVEL = 6;

export type EtcdService = 'KV' | 'Watch';

export class EtcdClient {
  private readonly clients: (GrpcJs.Client | undefined)[];
  private current = 0;
  private closed = false;
  private readonly timeoutMs: number;

  private constructor(
    readonly grpc: Grpc,
    private readonly proto: EtcdProto,
    readonly targets: readonly string[],
    private readonly log: StorageLog,
    timeoutMs: number | undefined,
  ) {
    this.clients = targets.map(() => undefined);
    this.timeoutMs = timeoutMs ?? 30_000;
  }

  /** Parses the endpoints and loads grpc-js and the protos; dials lazily (first call). Throws StorageError naming a bad endpoint. */
  static async create(opts: EtcdClientOptions): Promise<EtcdClient> {
    const targets = parseEtcdEndpoints(opts.endpoints);
    const [grpcModule, proto] = await Promise.all([import('@grpc/grpc-js'), loadEtcdProto()]);
    // CommonJS module: the namespace carries module.exports as `default` under Node's ESM loader.
    const grpc: Grpc = (grpcModule as unknown as { default?: Grpc }).default ?? grpcModule;
    return new EtcdClient(grpc, proto, targets, opts.log, opts.requestTimeoutMs);
  }

  codec(service: EtcdService, rpc: string): EtcdCodec {
    return this.proto.method(service, rpc);
  }

  /** The endpoint calls go to now (the index into `targets`). */
  get endpointIndex(): number {
    return this.current;
  }

  /** Moves on to the next endpoint if `index` is still the current one (after UNAVAILABLE there). */
  failedOver(index: number): void {
    if (this.current === index && this.targets.length > 1) {
      this.current = (index + 1) % this.targets.length;
      this.log.warn('etcd endpoint unavailable, trying the next', { from: this.targets[index], to: this.targets[this.current] });
    }
  }

  /** gRPC client of endpoint `index`, created on first use. Throws 'Closed' after close(). */
  clientAt(index: number): GrpcJs.Client {
    if (this.closed) throw new StorageError('Closed', '', { message: 'the etcd store is closed' });
    let c = this.clients[index];
    if (c === undefined) {
      c = new this.grpc.Client(this.targets[index] ?? '', this.grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
      this.clients[index] = c;
    }
    return c;
  }

  /**
   * One unary call; `key` names the subject in errors. Rejects with a
   * StorageError: 'Compacted'/'FutureRevision' from etcd's revision errors
   * (revision unset: the caller fills it in), 'Unavailable' once every
   * endpoint answered UNAVAILABLE or for any other failure, 'Closed' after
   * close(); with `signal.reason` when the signal aborts.
   */
  async call<T>(service: EtcdService, rpc: string, request: object, key: string, signal?: AbortSignal): Promise<T> {
    const codec = this.codec(service, rpc);
    let lastError: StorageError | undefined;
    for (let attempt = 0; attempt < this.targets.length; attempt++) {
      const index = this.current;
      const r = await this.once(codec, index, request, signal);
      if (r.ok) return r.value as T;
      if (this.closed) throw new StorageError('Closed', key, { message: 'the etcd store was closed during the call', cause: r.error });
      const kind = classifyEtcdError(r.code, r.details);
      const message = `etcd ${rpc} on ${this.targets[index] ?? ''}: ${r.details}`;
      if (kind === 'compacted') throw new StorageError('Compacted', key, { message, cause: r.error });
      if (kind === 'future') throw new StorageError('FutureRevision', key, { message, cause: r.error });
      lastError = new StorageError('Unavailable', key, { message, cause: r.error });
      if (kind !== 'unavailable') throw lastError;
      this.failedOver(index);
    }
    throw lastError ?? new StorageError('Unavailable', key);
  }

  private once(codec: EtcdCodec, index: number, request: object, signal: AbortSignal | undefined): Promise<{ ok: true; value: unknown } | { ok: false; code: number; details: string; error: unknown }> {
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    const client = this.clientAt(index);
    const started = performance.now();
    return new Promise((resolve, reject) => {
      let detach = (): void => {};
      // grpc-js captures a stack trace per call for its error messages; ours name the call themselves, and the capture is a large share of a put's CPU.
      const stackLimit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      const call = client.makeUnaryRequest(
        codec.path,
        codec.serialize,
        codec.deserialize,
        request,
        new this.grpc.Metadata(),
        { deadline: Date.now() + this.timeoutMs },
        (err: GrpcJs.ServiceError | null, value?: unknown) => {
          detach();
          this.log.v?.(CALL_TRACE_LEVEL)?.info('etcd call', { method: codec.path, endpoint: this.targets[index], status: err === null ? 'OK' : err.code, durationMs: Math.round((performance.now() - started) * 100) / 100 });
          if (signal?.aborted === true) return reject(signal.reason);
          if (err !== null) return resolve({ ok: false, code: err.code, details: err.details, error: err });
          resolve({ ok: true, value });
        },
      );
      Error.stackTraceLimit = stackLimit;
      if (signal !== undefined) detach = onAbort(signal, () => call.cancel());
    });
  }

  /** Closes every channel; calls in flight fail, later ones reject with 'Closed'. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.clients) c?.close();
  }
}
