// Errors of the container runtime boundary. gRPC status codes are known here
// and nowhere else: the client turns every failed call into a CriError, the
// fake runtime throws CriErrors with the codes a real runtime would use, and
// callers branch on the predicates below, never on numbers or message text.
//
// No gRPC library is imported: the status codes are wire values fixed by the
// gRPC specification, so this module stays cheap to load.

import { AgentError } from '../errors.js';

/** gRPC status codes (wire values). */
export const GRPC_STATUS = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type GrpcStatusName = keyof typeof GRPC_STATUS;

const NAME_BY_CODE: ReadonlyMap<number, GrpcStatusName> = new Map(
  (Object.entries(GRPC_STATUS) as Array<[GrpcStatusName, number]>).map(([name, code]) => [code, name]),
);

/** The status name of a wire code; codes outside the specification read as UNKNOWN, as gRPC itself treats them. */
export function grpcStatusName(code: number): GrpcStatusName {
  return NAME_BY_CODE.get(code) ?? 'UNKNOWN';
}

/** Statuses after which the same call, made again later, may succeed. */
const TRANSIENT: ReadonlySet<GrpcStatusName> = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED', 'ABORTED']);

export interface CriErrorOptions {
  /** Service and method, e.g. `RuntimeService/StartContainer`. */
  method?: string;
  /** The endpoint the call went to, as configured (`unix:///run/containerd/containerd.sock`). */
  endpoint?: string;
  cause?: unknown;
}

/**
 * A CRI call the runtime (or the transport to it) failed. `status` is the gRPC
 * status; `details` the runtime's own message, unchanged (container waiting
 * messages show it). The message reads `RuntimeService/StartContainer: NOT_FOUND: <details>`.
 */
export class CriError extends AgentError {
  readonly status: GrpcStatusName;
  readonly grpcCode: number;
  readonly details: string;
  readonly method: string | undefined;
  readonly endpoint: string | undefined;

  constructor(status: GrpcStatusName, details: string, opts: CriErrorOptions = {}) {
    super('ECRI', `${opts.method === undefined ? '' : `${opts.method}: `}${status}: ${details}`, opts.cause === undefined ? {} : { cause: opts.cause });
    this.status = status;
    this.grpcCode = GRPC_STATUS[status];
    this.details = details;
    this.method = opts.method;
    this.endpoint = opts.endpoint;
  }
}

/** The CriError for a gRPC status received from a runtime. */
export function criErrorFromStatus(code: number, details: string, opts: CriErrorOptions = {}): CriError {
  return new CriError(grpcStatusName(code), details, opts);
}

export function isCriError(e: unknown): e is CriError {
  return e instanceof CriError;
}

function hasStatus(e: unknown, status: GrpcStatusName): boolean {
  return e instanceof CriError && e.status === status;
}

/** The object (container, sandbox, image) does not exist in the runtime. */
export function isNotFound(e: unknown): boolean {
  return hasStatus(e, 'NOT_FOUND');
}

/** The runtime is not reachable: not running, restarting, or its socket is gone. */
export function isUnavailable(e: unknown): boolean {
  return hasStatus(e, 'UNAVAILABLE');
}

/** The call outlived its deadline (`--runtime-request-timeout`, or the stop grace period on top of it). */
export function isDeadlineExceeded(e: unknown): boolean {
  return hasStatus(e, 'DEADLINE_EXCEEDED');
}

/** The runtime does not serve the method (for example a runtime without CRI runtime.v1). */
export function isUnimplemented(e: unknown): boolean {
  return hasStatus(e, 'UNIMPLEMENTED');
}

/** An object of that name already exists (e.g. a container name reserved by an earlier attempt). */
export function isAlreadyExists(e: unknown): boolean {
  return hasStatus(e, 'ALREADY_EXISTS');
}

/** Retrying the same call later may succeed without changing it (runtime down or busy, deadline hit). */
export function isTransient(e: unknown): boolean {
  return e instanceof CriError && TRANSIENT.has(e.status);
}
