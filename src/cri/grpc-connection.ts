// One gRPC channel to one runtime endpoint, and the unary call that every CRI
// method goes through: encode, deadline, cancellation by the caller's signal,
// status -> CriError, decode, V(5) trace.
//
// Reconnection is grpc-js's: after the runtime goes away the channel turns
// idle, the next call dials again, and while the dial fails the channel
// retries in the background with back-off (100 ms doubling to 3 s, the
// kubelet's figures). Calls never wait for the channel to become ready
// (waitForReady is off): while the runtime is down they fail at once with
// UNAVAILABLE and the caller's next sync retries, as in the kubelet.

import type * as GrpcJs from '@grpc/grpc-js';
import { onAbort } from '../lifecycle/abort.js';
import type { ParsedEndpoint } from './endpoint.js';
import { CriError, criErrorFromStatus } from './errors.js';
import { METHODS, type CriMethod, type CriMethodArgs, type CriResult } from './methods.js';
import { ListMemo } from './list-memo.js';
import { CRI_PACKAGE, decodeMessage, encodeMessage, type CriProto } from './proto.js';

type Grpc = typeof GrpcJs;

/** The logger the CRI client writes to; `v` is klog's V(n), as AgentLogger has it. */
export interface CriLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  v?(level: number): { info(msg: string, fields?: Record<string, unknown>): void } | undefined;
}

/** The longest one connectivity watch lasts: what an abort may leave pending on the timer queue. */
const WATCH_STEP_MS = 250;

/** V-level of the per-call trace (method, duration, status). */
export const CALL_TRACE_LEVEL = 5;

export const CHANNEL_OPTIONS: GrpcJs.ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 3_000,
  // ListContainers on a busy node outgrows grpc's 4 MiB default; the kubelet allows 16 MiB.
  'grpc.max_receive_message_length': 16 << 20,
  'grpc.max_send_message_length': 16 << 20,
  // Each client owns its connections: closing one never affects another to the same socket.
  'grpc.use_local_subchannel_pool': 1,
  // Nothing reads channelz here; its per-call bookkeeping was ~10 % of a call's CPU (~30 of ~300 µs).
  'grpc.enable_channelz': 0,
};

interface PreparedMethod {
  path: string;
  name: string;
  serialize(value: object): Buffer;
  deserialize(bytes: Buffer): object;
  /** deserialize already yields the domain result (list answers, see list-memo.ts). */
  decoded: boolean;
}

export class Connection {
  private readonly client: GrpcJs.Client;
  private readonly channel: GrpcJs.ChannelInterface;
  private readonly prepared = new Map<CriMethod, PreparedMethod>();
  private closed = false;

  constructor(
    private readonly grpc: Grpc,
    private readonly proto: CriProto,
    readonly endpoint: ParsedEndpoint,
    private readonly log: CriLog,
  ) {
    this.client = new grpc.Client(endpoint.target, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
    this.channel = this.client.getChannel();
  }

  /**
   * One unary call. `deadlineMs` undefined means no deadline. Rejects with a
   * CriError for any gRPC status, with `signal.reason` when the caller's signal
   * aborts (the call is cancelled on the wire), and with an EINTERNAL
   * AgentError when the arguments cannot be encoded.
   *
   * The call goes on the client's channel directly, as grpc-js's Client does
   * underneath: the Client's interceptor layer (which the agent has no use
   * for) cost about 30 % of a call's CPU, ~65 of ~215 µs, and a node with 110
   * pods makes hundreds of calls a minute. The channel still does the rest:
   * connection management, deadlines, framing, status.
   */
  call<M extends CriMethod>(method: M, args: CriMethodArgs[M], deadlineMs: number | undefined, signal?: AbortSignal): Promise<CriResult<M>> {
    const codec = METHODS[method];
    const m = this.prepare(method);
    if (this.closed) return Promise.reject(new CriError('CANCELLED', 'the CRI client is closed', { method: m.name, endpoint: this.endpoint.endpoint }));
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    let bytes: Buffer;
    try {
      bytes = m.serialize(codec.encodeRequest(args));
    } catch (err) {
      return Promise.reject(err);
    }
    const started = performance.now();
    const { status } = this.grpc;
    return new Promise<CriResult<M>>((resolve, reject) => {
      let settled = false;
      let detach = (): void => {};
      let response: Buffer | undefined;
      let extra = false;
      const fail = (code: number, details: string, cause?: unknown): void => {
        const e = criErrorFromStatus(code, details, { method: m.name, endpoint: this.endpoint.endpoint, ...(cause === undefined ? {} : { cause }) });
        this.trace(m.name, started, e.status);
        reject(e);
      };
      const call = this.channel.createCall(m.path, deadlineMs === undefined ? Infinity : Date.now() + deadlineMs, undefined, null, undefined);
      call.start(new this.grpc.Metadata(), {
        onReceiveMetadata: () => {},
        onReceiveMessage: (message: Buffer) => {
          if (response === undefined) response = message;
          else extra = true;
          call.startRead(); // drain whatever else a misbehaving server sends, so its status arrives
        },
        onReceiveStatus: (s) => {
          detach();
          if (settled) return;
          settled = true;
          if (s.code !== status.OK) return fail(s.code, s.details, Object.assign(new Error(s.details), { code: s.code, details: s.details, metadata: s.metadata }));
          // What grpc-js's Client reports for a unary answer with no or several messages.
          if (response === undefined) return fail(status.UNIMPLEMENTED, 'No message received');
          if (extra) return fail(status.UNIMPLEMENTED, 'Too many responses received');
          // Let go of the answer before decoding it. A call's objects (grpc-js's,
          // Node's HTTP/2 stream, these closures) outlive the call: measured,
          // they survive young-generation collections and go only at the next
          // full one, ~20 s later. Held here, ListContainers' answer at 110
          // pods (~85 KB, once a second with the PLEG) would go with them: the
          // agent's external memory grew 250 KB/s between full collections.
          // packaging/bundle.mjs (grpcDecoderLetsGo) drops grpc-js's own hold.
          const answer = response;
          response = undefined;
          let result: CriResult<M>;
          try {
            const wire = m.deserialize(answer);
            result = m.decoded ? (wire as CriResult<M>) : codec.decodeResponse(wire);
          } catch (decodeErr) {
            return fail(status.INTERNAL, `Response message parsing error: ${(decodeErr as Error).message}`, decodeErr);
          }
          this.trace(m.name, started, 'OK');
          resolve(result);
        },
      });
      call.sendMessageWithContext({}, bytes);
      call.halfClose();
      call.startRead();
      if (signal !== undefined) {
        detach = onAbort(signal, (reason) => {
          if (settled) return;
          settled = true;
          call.cancelWithStatus(status.CANCELLED, 'Cancelled on client');
          this.trace(m.name, started, 'CANCELLED');
          reject(reason);
        });
      }
    });
  }

  /**
   * Resolves true once the channel is connected; false at `deadline` (epoch
   * ms) if it is not by then, when `signal` aborts, or once the connection is
   * closed. Dials if the channel is idle. Called by the start-up handshake
   * only; never rejects.
   *
   * Not grpc-js's Client.waitForReady: its state watcher cannot be cancelled,
   * so after an abort its deadline timer (up to the whole 30 s start-up wait)
   * kept the process alive, and on close() it asked the shut-down channel to
   * connect again, which undid the shutdown. Here each watch is at most
   * WATCH_STEP_MS long, and a watcher that fires after the abort or the close
   * does nothing.
   */
  waitForReady(deadline: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted === true || this.closed) return Promise.resolve(false);
    const { READY, SHUTDOWN } = this.grpc.connectivityState;
    return new Promise<boolean>((resolve) => {
      let done = false;
      let detach = (): void => {};
      const finish = (ready: boolean): void => {
        if (done) return;
        done = true;
        detach();
        resolve(ready);
      };
      const check = (): void => {
        if (done) return;
        if (this.closed) return finish(false);
        const state = this.channel.getConnectivityState(true);
        if (state === READY) return finish(true);
        const now = Date.now();
        if (state === SHUTDOWN || now >= deadline) return finish(false);
        this.channel.watchConnectivityState(state, Math.min(deadline, now + WATCH_STEP_MS), check);
      };
      if (signal !== undefined) detach = onAbort(signal, () => finish(false));
      check();
    });
  }

  /** Closes the channel; calls in flight fail with UNAVAILABLE, later ones with CANCELLED. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.client.close();
  }

  private prepare(method: CriMethod): PreparedMethod {
    let m = this.prepared.get(method);
    if (m === undefined) {
      const { service, rpc } = METHODS[method];
      const reqType = this.proto.type(`${rpc}Request`);
      const resType = this.proto.type(`${rpc}Response`);
      m = {
        path: `/${CRI_PACKAGE}.${service}/${rpc}`,
        name: `${service}/${rpc}`,
        serialize: (value) => encodeMessage(reqType, value),
        deserialize: (bytes) => decodeMessage(resType, bytes),
        decoded: false,
      };
      const list = METHODS[method].listEntries;
      if (list) {
        const memo = new ListMemo(this.proto.reader, list.field, this.proto.type(list.item), list.stateField, list.convert);
        m.deserialize = (bytes) => memo.decode(bytes);
        m.decoded = true;
      }
      this.prepared.set(method, m);
    }
    return m;
  }

  private trace(name: string, started: number, status: string): void {
    this.log.v?.(CALL_TRACE_LEVEL)?.info('CRI call', { method: name, endpoint: this.endpoint.endpoint, status, durationMs: Math.round((performance.now() - started) * 100) / 100 });
  }
}
