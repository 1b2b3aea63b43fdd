// The client's typed errors. Every failure a caller of src/client sees is one
// of these (or the caller's own AbortSignal reason):
// - ApiStatusError: the server answered with a Status (any non-2xx); an
//   ApiError, so isNotFound/isConflict/isGone from src/api/errors.ts apply.
// - ClientProtocolError: a response that breaks the contract (truncated body,
//   a watch event of the wrong kind, a list without resourceVersion...).
// - ClientConnectionError: no HTTP answer at all (refused, reset, TLS, timeout).
// - ClientConfigError: a platformconfig file that cannot be used.
// - ClientRequestError: a call the client will not send (no name, no
//   namespace, an object the codec cannot encode): the caller's mistake.
// Each names the request (method and path) or the file, and the field.
import { ApiError, type Status } from '../api/errors.js';

/** What a request error names: `GET /api/v1/namespaces/a/pods`. */
export interface RequestRef {
  readonly method: string;
  readonly path: string;
}

export const describeRequest = (r: RequestRef): string => `${r.method} ${r.path}`;

/** The server's answer to a request was a Status with a non-2xx code. */
export class ApiStatusError extends ApiError {
  readonly request: RequestRef;
  /** Retry-After of the response (seconds), from the header or `details.retryAfterSeconds`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(request: RequestRef, status: Status, retryAfterSeconds: number | undefined) {
    const base = ApiError.fromStatus(status);
    super(base.code, base.reason, base.message, { ...(base.details === undefined ? {} : { details: base.details }), headers: { ...base.headers }, listMeta: base.listMeta });
    this.name = 'ApiStatusError';
    this.request = request;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** What ClientProtocolError and ClientRequestError share: the request and the field at fault. */
abstract class RequestFieldError extends Error {
  readonly request: RequestRef;
  readonly field: string;
  constructor(name: string, request: RequestRef, field: string, message: string, cause?: unknown) {
    super(`${describeRequest(request)}: ${field}: ${message}`, cause === undefined ? undefined : { cause });
    this.name = name;
    this.request = request;
    this.field = field;
  }
}

/** A response that breaks the API contract; `field` names what was wrong (`body`, `items`, `metadata.resourceVersion`, `type`). */
export class ClientProtocolError extends RequestFieldError {
  constructor(request: RequestRef, field: string, message: string, cause?: unknown) {
    super('ClientProtocolError', request, field, message, cause);
  }
}

/** No HTTP answer: connection refused or reset, TLS failure, request timeout. */
export class ClientConnectionError extends Error {
  readonly request: RequestRef;
  constructor(request: RequestRef, message: string, cause?: unknown) {
    super(`${describeRequest(request)}: ${message}`, cause === undefined ? undefined : { cause });
    this.name = 'ClientConnectionError';
    this.request = request;
  }
}

/** A platformconfig file that cannot be used; `field` is its path in the file (`users[0].user.client-key`). */
export class ClientConfigError extends Error {
  readonly file: string;
  readonly field: string;
  constructor(file: string, field: string, message: string, cause?: unknown) {
    super(`${file}: ${field === '' ? '' : `${field}: `}${message}`, cause === undefined ? undefined : { cause });
    this.name = 'ClientConfigError';
    this.file = file;
    this.field = field;
  }
}

/** A call the client cannot turn into a request; `field` names what is missing or wrong (`metadata.name`, `namespace`). */
export class ClientRequestError extends RequestFieldError {
  constructor(request: RequestRef, field: string, message: string) {
    super('ClientRequestError', request, field, message);
  }
}

export type ClientError = ApiStatusError | ClientProtocolError | ClientConnectionError | ClientConfigError | ClientRequestError;

export const isApiStatusError = (e: unknown): e is ApiStatusError => e instanceof ApiStatusError;
export const isClientProtocolError = (e: unknown): e is ClientProtocolError => e instanceof ClientProtocolError;
export const isClientRequestError = (e: unknown): e is ClientRequestError => e instanceof ClientRequestError;
export const isClientConnectionError = (e: unknown): e is ClientConnectionError => e instanceof ClientConnectionError;
