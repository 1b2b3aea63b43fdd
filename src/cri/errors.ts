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
  override name = 'CriError';
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

/** The CriError for a gRPC status received from a runtime; its details as tidyDetails leaves them. */
export function criErrorFromStatus(code: number, details: string, opts: CriErrorOptions = {}): CriError {
  return new CriError(grpcStatusName(code), tidyDetails(details), opts);
}

/**
 * grpc-js ends the details of a call that found no connection with
 * `Resolution note: <what name resolution said>`, and the note is empty for a
 * unix socket or a literal address: the message then ended in a dangling
 * `Resolution note: `. An empty trailer is dropped; everything else is kept as
 * the runtime or transport wrote it. Pure.
 */
export function tidyDetails(details: string): string {
  return details.replace(/\s*Resolution note:\s*$/, '');
}

/**
 * What an operator can do about a runtime that cannot be reached, from the
 * transport's error in `details` (grpc-js puts node's errno code there):
 * undefined when there is nothing more to say than the details. Pure; used in
 * the start-up wait's messages.
 */
export function unreachableHint(details: string, endpoint: string): string | undefined {
  if (/\bENOENT\b/.test(details)) return `no socket exists at ${endpoint}: is the container runtime running, and does --container-runtime-endpoint name its socket?`;
  if (/\bECONNREFUSED\b/.test(details)) return `nothing accepts connections at ${endpoint}: is the container runtime running?`;
  if (/\bEACCES\b|\bEPERM\b/.test(details)) return `permission denied on ${endpoint}: the agent runs as a user the runtime's socket does not admit (the agent normally runs as root)`;
  return undefined;
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
