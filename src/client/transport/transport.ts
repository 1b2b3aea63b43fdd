// The Transport: one connection to one server (dispatcher.ts), rate limits
// (limiter.ts), the bearer token (bearer-token.ts), retries (retry.ts),
// Status bodies → ApiStatusError (status.ts) and Warning headers
// (warnings.ts). Every attempt of a request takes a token of its class,
// then goes out once; what came back decides, through decideRetry, whether
// to wait and go again. Nothing runs after close(): waits abort, sockets are
// destroyed, later calls reject.
import { loadApiCodec } from '../../api/codec/index.js';
import { abortableSleep, onAbort } from '../../lifecycle/abort.js';
import { ApiStatusError, ClientConnectionError, ClientProtocolError, describeRequest, type RequestRef } from '../errors.js';
import type { ClientLog, Transport, TransportRequest, TransportResponse, TransportStream } from '../types.js';
import { BearerToken, type TokenFileIo } from './bearer-token.js';
import { decodeBody, openStream, readRaw } from './body.js';
import { classifyConnectionError } from './connection-errors.js';
import { createPools, defaultUserAgent, type Pools } from './dispatcher.js';
import { Limiters, type RateLimits, type Sleep } from './limiter.js';
import { DEFAULT_RETRY_POLICY, decideRetry, type AttemptOutcome, type RetryPolicy } from './retry.js';
import { NO_RESPONSE_CODE, RequestRecorder, hostLabel, type RequestMetricsSink } from './request-metrics.js';
import { isProtobufResponse, statusError } from './status.js';
import { WarningLog } from './warnings.js';
import type { ConnectionConfig } from '../types.js';

export interface TransportOptions extends RateLimits {
  readonly log: ClientLog;
  /** Default `agent/<version> (<os>/<arch>)`. */
  readonly userAgent?: string;
  /** Test seams: the clock (ms), the abortable sleep, the jitter source in [0, 1), the retry bounds, the token file. */
  readonly now?: () => number;
  readonly sleep?: Sleep;
  readonly random?: () => number;
  readonly retry?: Partial<RetryPolicy>;
  readonly tokenFileIo?: TokenFileIo;
  /** Where rest_client_* records go; default: the process-wide sink (registerRequestMetrics), if any. */
  readonly metrics?: RequestMetricsSink;
}

/** A non-stream request's deadline when the caller gives none. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** V-levels of the request trace (client-go's round-tripper debugging: URL and status at 6, headers at 7). */
const TRACE_RESPONSE = 6;
const TRACE_REQUEST = 7;

type Attempt = { done: TransportResponse | TransportStream } | { failed: ApiStatusError | ClientConnectionError; outcome: AttemptOutcome };

class TimedOut extends Error {
  override name = 'TimedOut';
}

export class HttpTransport implements Transport {
  private pools: Pools;
  private readonly conn: ConnectionConfig;
  private readonly closed = new AbortController();
  private readonly limiters: Limiters;
  private readonly token: BearerToken;
  private readonly warnings: WarningLog;
  private readonly policy: RetryPolicy;
  private readonly now: () => number;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly userAgent: string;
  private readonly log: ClientLog;
  private readonly metrics: RequestRecorder;

  constructor(conn: ConnectionConfig, opts: TransportOptions) {
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? abortableSleep;
    this.random = opts.random ?? Math.random;
    this.limiters = new Limiters(opts, this.now, this.sleep);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
    this.log = opts.log;
    this.userAgent = opts.userAgent ?? defaultUserAgent();
    this.token = new BearerToken({ token: conn.token, tokenFile: conn.tokenFile, log: opts.log, now: this.now, ...(opts.tokenFileIo === undefined ? {} : { io: opts.tokenFileIo }) });
    this.warnings = new WarningLog(opts.log);
    this.conn = conn;
    this.pools = createPools(conn);
    this.metrics = new RequestRecorder(hostLabel(conn.server), opts.metrics);
  }

  /**
   * Later requests dial with `cert`: new pools replace the old ones, whose
   * connections close as their requests and watches end (the old certificate
   * is still valid then: a rotation happens well before expiry); close()
   * aborts whatever is still running on them. Synchronous.
   */
  setClientCertificate(cert: { readonly cert: string; readonly key: string }): void {
    if (this.closed.signal.aborted) return;
    const old = this.pools;
    this.pools = createPools({ ...this.conn, clientCert: { cert: cert.cert, key: cert.key } });
    old.requests.close();
    old.streams.close();
  }

  request(req: TransportRequest): Promise<TransportResponse> {
    return this.run(req, false) as Promise<TransportResponse>;
  }

  stream(req: TransportRequest): Promise<TransportStream> {
    return this.run(req, true) as Promise<TransportStream>;
  }

  async close(): Promise<void> {
    if (this.closed.signal.aborted) return;
    // Every exchange, on these pools or retired ones, is linked to this signal and ends with it.
    this.closed.abort(new Error('the transport is closed'));
    this.pools.requests.destroy();
    this.pools.streams.destroy();
  }

  private closedError(ref: RequestRef): ClientConnectionError {
    return new ClientConnectionError(ref, 'the transport is closed');
  }

  /** The caller's abort reason, the transport's closing, or undefined. */
  private stopReason(ref: RequestRef, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted === true) return signal.reason;
    if (this.closed.signal.aborted) return this.closedError(ref);
    return undefined;
  }

  private async run(req: TransportRequest, stream: boolean): Promise<TransportResponse | TransportStream> {
    const ref: RequestRef = { method: req.method, path: req.path };
    const stop = this.stopReason(ref, req.signal);
    if (stop !== undefined) throw stop;
    // One signal for this call's waits (rate limit, back-off): the caller's or the transport's end.
    const waits = new AbortController();
    const unlink = [onAbort(this.closed.signal, () => waits.abort()), ...(req.signal === undefined ? [] : [onAbort(req.signal, () => waits.abort())])];
    const started = this.now();
    let tooManyRequests = 0;
    let others = 0;
    let reauthenticated = false;
    try {
      for (;;) {
        await this.pause(ref, req.signal, () => this.limiters.take(req.limiter ?? 'default', waits.signal));
        const a = await this.attempt(req, ref, stream);
        if ('done' in a) return a.done;
        if (a.outcome.kind === 'status' && a.outcome.status === 401 && this.token.fileBacked && !reauthenticated) {
          // A rotated token file: read it at once and try once more with the new token.
          reauthenticated = true;
          if (await this.token.reload()) continue;
        }
        const d = decideRetry(a.outcome, { idempotent: req.idempotent === true, tooManyRequests, others, elapsedMs: this.now() - started }, this.policy, this.random());
        if (!d.retry) throw a.failed;
        if (d.counts === 'tooManyRequests') tooManyRequests++;
        else others++;
        this.log.v?.(4)?.info('Retrying a request', { request: describeRequest(ref), err: a.failed.message, delayMs: d.delayMs, attempt: tooManyRequests + others });
        await this.pause(ref, req.signal, () => this.sleep(d.delayMs, waits.signal));
      }
    } finally {
      for (const u of unlink) u();
      // client-go times whole calls but not watches (their duration is the server's timeout).
      if (!stream) this.metrics.latency(req.method, (this.now() - started) / 1000);
    }
  }

  /** Runs a wait; if it ends by an abort, rejects with the caller's reason or the closed error. */
  private async pause(ref: RequestRef, signal: AbortSignal | undefined, wait: () => Promise<void>): Promise<void> {
    try {
      await wait();
    } catch (e) {
      throw this.stopReason(ref, signal) ?? e;
    }
  }

  private url(req: TransportRequest): string {
    const q = req.query === undefined ? '' : req.query.toString();
    return `${this.pools.prefix}${req.path}${q === '' ? '' : `?${q}`}`;
  }

  private async headers(req: TransportRequest): Promise<Record<string, string>> {
    const token = await this.token.current();
    return { ...req.headers, 'user-agent': this.userAgent, 'accept-encoding': 'gzip', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) };
  }

  /** One exchange. Resolves with the result or with what failed; rejects only for the caller's abort, the transport's close or a broken 2xx body. */
  private async attempt(req: TransportRequest, ref: RequestRef, stream: boolean): Promise<Attempt> {
    const ac = new AbortController();
    const links = [onAbort(this.closed.signal, (r) => ac.abort(r)), ...(req.signal === undefined ? [] : [onAbort(req.signal, (r) => ac.abort(r))])];
    const unlink = (): void => links.forEach((u) => u());
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timer = stream ? undefined : setTimeout(() => ac.abort(new TimedOut()), timeoutMs);
    let handedOver = false;
    const path = this.url(req);
    const sentAt = this.now();
    try {
      this.log.v?.(TRACE_REQUEST)?.info('Request', { verb: req.method, path });
      const pool = stream ? this.pools.streams : this.pools.requests;
      const res = await pool.request({ path, method: req.method, headers: await this.headers(req), body: req.body ?? null, signal: ac.signal });
      this.log.v?.(TRACE_RESPONSE)?.info('Response', { verb: req.method, path, status: res.statusCode, ms: this.now() - sentAt });
      this.metrics.result(res.statusCode, req.method);
      this.warnings.record(ref, res.headersDistinct['warning']);
      if (res.statusCode >= 200 && res.statusCode < 300 && stream) {
        handedOver = true;
        clearTimeout(timer);
        const done = openStream({ request: ref, status: res.statusCode, headers: res.headers, body: res.body, abort: () => ac.abort(), unlink, failureReason: () => this.stopReason(ref, req.signal) });
        return { done };
      }
      const raw = await readRaw(res.body);
      if (res.statusCode >= 200 && res.statusCode < 300) return { done: { status: res.statusCode, headers: res.headers, body: await decodeBody(ref, res.headers, raw) } };
      const failed = await this.statusFailure(ref, { status: res.statusCode, headers: res.headers, body: await decodeBody(ref, res.headers, raw).catch(() => raw) });
      return { failed, outcome: { kind: 'status', status: res.statusCode, retryAfterSeconds: failed.retryAfterSeconds } };
    } catch (e) {
      const stop = this.stopReason(ref, req.signal);
      if (stop !== undefined) throw stop;
      if (!(ac.signal.reason instanceof TimedOut) && !isNetworkError(e)) throw e;
      this.metrics.result(NO_RESPONSE_CODE, req.method);
      const f = ac.signal.reason instanceof TimedOut ? { sent: true, fatal: false, message: `no response within ${timeoutMs} ms` } : classifyConnectionError(e);
      return { failed: new ClientConnectionError(ref, f.message, e), outcome: { kind: 'connection', sent: f.sent, fatal: f.fatal } };
    } finally {
      clearTimeout(timer);
      if (!handedOver) unlink();
    }
  }

  private async statusFailure(ref: RequestRef, res: { status: number; headers: Readonly<Record<string, string | string[] | undefined>>; body: Buffer }): Promise<ApiStatusError> {
    if (!isProtobufResponse(res)) return statusError(ref, res);
    // The codec loads once per process; a failure to load leaves the made-up error (never a crash).
    const codec = await loadApiCodec().catch(() => undefined);
    return statusError(ref, res, codec === undefined ? undefined : (b) => codec.decode(b).object);
  }
}

/** Errors of the exchange itself (node's HTTP client, sockets and TLS carry a string `code`), as opposed to our own bugs and protocol errors. */
function isNetworkError(e: unknown): boolean {
  return e instanceof Error && !(e instanceof ClientProtocolError) && typeof (e as { code?: unknown }).code === 'string';
}
