// The cluster API's errors, shared by the server (which sends them as Status
// bodies) and the agent's client (which turns Status bodies back into these).
// One class, ApiError, carries the HTTP code, the machine-readable reason and
// the details a client branches on; the constructors below produce the
// messages kube-apiserver produces for the same failures, so operators and
// tools read what they already know.

/** `Status.reason`: what a client branches on (never on the message). */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'Timeout'
  | 'ServerTimeout'
  | 'TooManyRequests'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'MethodNotAllowed'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Unknown';

/** `Status.details.causes[].reason` for field problems, as upstream names them. */
export type CauseType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'FieldManagerConflict'
  | 'ResourceVersionTooLarge'
  | 'UnexpectedServerResponse';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** The `Status` object (kind Status, apiVersion v1) as it travels in JSON. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason | string;
  details?: StatusDetails;
  code: number;
}

/** A resource as errors name it: `pods`, `leases.coordination.platform.io`. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** A kind as Invalid errors name it: `Pod`, `ClusterTrustBundle.certificates.platform.io`. */
export interface GroupKind {
  group: string;
  kind: string;
}

/**
 * One problem with one field of an object or a request, in upstream's
 * field.Error shape: `field` is the JSON path (`spec.containers[0].image`).
 * `value` is shown in the message for Invalid/NotSupported/Duplicate/TooMany.
 */
export interface FieldError {
  type: Exclude<CauseType, 'FieldManagerConflict' | 'ResourceVersionTooLarge' | 'UnexpectedServerResponse'>;
  field: string;
  value?: unknown;
  detail?: string;
  /** FieldValueNotSupported: the accepted values. */
  supported?: readonly string[];
}

export class ApiError extends Error {
  readonly code: number;
  readonly reason: StatusReason | string;
  readonly details: StatusDetails | undefined;
  /** Extra response headers the server sends with this error (Retry-After). */
  readonly headers: Readonly<Record<string, string>>;
  /** `Status.metadata` to send (continue token of a 410 for an expired continue). */
  readonly listMeta: Status['metadata'];

  constructor(code: number, reason: StatusReason | string, message: string, opts: { details?: StatusDetails; headers?: Record<string, string>; listMeta?: Status['metadata']; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ApiError';
    this.code = code;
    this.reason = reason;
    this.details = opts.details;
    this.headers = opts.headers ?? {};
    this.listMeta = opts.listMeta ?? {};
  }

  /** The Status body for this error. */
  status(): Status {
    const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: { ...this.listMeta }, status: 'Failure', message: this.message, reason: this.reason, code: this.code };
    if (this.details !== undefined) s.details = this.details;
    return s;
  }

  /** A client's view of a Status body it received (any code). */
  static fromStatus(s: Status): ApiError {
    const headers: Record<string, string> = {};
    if (s.details?.retryAfterSeconds !== undefined) headers['retry-after'] = String(s.details.retryAfterSeconds);
    return new ApiError(s.code, s.reason ?? 'Unknown', s.message ?? '', { ...(s.details === undefined ? {} : { details: s.details }), headers, listMeta: s.metadata ?? {} });
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

export const isNotFound = (e: unknown): boolean => isApiError(e) && e.reason === 'NotFound';
export const isAlreadyExists = (e: unknown): boolean => isApiError(e) && e.reason === 'AlreadyExists';
export const isConflict = (e: unknown): boolean => isApiError(e) && e.reason === 'Conflict';
/** 410: an expired resource version or continue token; the client relists. */
export const isGone = (e: unknown): boolean => isApiError(e) && (e.reason === 'Expired' || e.reason === 'Gone' || e.code === 410);
export const isInvalid = (e: unknown): boolean => isApiError(e) && e.reason === 'Invalid';

function qualifiedResource(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

function qualifiedKind(gk: GroupKind): string {
  return gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
}

const quote = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** The message of one field error without its path, as upstream's ErrorBody. */
export function fieldErrorBody(e: FieldError): string {
  const detail = e.detail === undefined || e.detail === '' ? '' : `: ${e.detail}`;
  switch (e.type) {
    case 'FieldValueRequired':
      return `Required value${detail}`;
    case 'FieldValueForbidden':
      return `Forbidden${detail}`;
    case 'FieldValueTooLong':
      return `Too long${detail}`;
    case 'FieldValueTooMany':
      return `Too many: ${quote(e.value)}${detail}`;
    case 'FieldValueDuplicate':
      return `Duplicate value: ${quote(e.value)}`;
    case 'FieldValueNotSupported': {
      const supported = e.supported === undefined ? '' : `: supported values: ${e.supported.map((s) => JSON.stringify(s)).join(', ')}`;
      return `Unsupported value: ${quote(e.value)}${supported}`;
    }
    case 'FieldValueTypeInvalid':
      return `Invalid value: ${quote(e.value)}${detail}`;
    case 'FieldValueInvalid':
      return e.value === undefined ? `Invalid value${detail}` : `Invalid value: ${quote(e.value)}${detail}`;
  }
}

/** `field: body`, the form used in Invalid messages and logs. */
export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

const OMITTED = '<value omitted>';

/** Constructors for the errors the server sends, with upstream's messages. */
export const apiErrors = {
  notFound: (gr: GroupResource, name: string): ApiError =>
    new ApiError(404, 'NotFound', `${qualifiedResource(gr)} ${JSON.stringify(name)} not found`, { details: { name, group: gr.group, kind: gr.resource } }),
  alreadyExists: (gr: GroupResource, name: string): ApiError =>
    new ApiError(409, 'AlreadyExists', `${qualifiedResource(gr)} ${JSON.stringify(name)} already exists`, { details: { name, group: gr.group, kind: gr.resource } }),
  /** A stale resourceVersion or a failed precondition. */
  conflict: (gr: GroupResource, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): ApiError =>
    new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} ${JSON.stringify(name)}: ${why}`, { details: { name, group: gr.group, kind: gr.resource } }),
  /** 422 naming every field; `value` is left out of causes when `omitValues` (secrets, bundles). */
  invalid: (gk: GroupKind, name: string, errs: readonly FieldError[], omitValues = false): ApiError => {
    const shown = omitValues ? errs.map((e) => ({ ...e, value: e.value === undefined ? undefined : OMITTED })) : errs;
    const list = shown.map(fieldErrorString);
    const body = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
    return new ApiError(422, 'Invalid', `${qualifiedKind(gk)} ${JSON.stringify(name)} is invalid: ${body}`, {
      details: { name, group: gk.group, kind: gk.kind, causes: shown.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })) },
    });
  },
  badRequest: (message: string, causes?: StatusCause[]): ApiError => new ApiError(400, 'BadRequest', message, causes === undefined ? {} : { details: { causes } }),
  unauthorized: (message = 'Unauthorized'): ApiError => new ApiError(401, 'Unauthorized', message),
  forbidden: (gr: GroupResource, name: string, why: string): ApiError => {
    const what = name === '' ? qualifiedResource(gr) : `${qualifiedResource(gr)} ${JSON.stringify(name)}`;
    return new ApiError(403, 'Forbidden', `${what} is forbidden: ${why}`, { details: { name, group: gr.group, kind: gr.resource } });
  },
  /** 410 Expired: a list or continue token older than the retained history. */
  expired: (message: string, listMeta?: Status['metadata']): ApiError => new ApiError(410, 'Expired', message, listMeta === undefined ? {} : { listMeta }),
  gone: (message: string): ApiError => new ApiError(410, 'Gone', message),
  /** §7 rule 1: an unrecognized (future) resourceVersion, after the server waited briefly. */
  tooLargeResourceVersion: (retryAfterSeconds: number): ApiError =>
    new ApiError(504, 'Timeout', `Timeout: Too large resource version`, {
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds },
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  notAcceptable: (accepted: readonly string[]): ApiError => new ApiError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`),
  unsupportedMediaType: (contentType: string, accepted: readonly string[]): ApiError =>
    new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`, { details: { causes: [{ reason: 'UnexpectedServerResponse', message: contentType }] } }),
  requestEntityTooLarge: (limitBytes: number): ApiError => new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limitBytes}`),
  methodNotSupported: (gr: GroupResource, action: string): ApiError =>
    new ApiError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind ${JSON.stringify(qualifiedResource(gr))}`, { details: { group: gr.group, kind: gr.resource } }),
  tooManyRequests: (message: string, retryAfterSeconds: number): ApiError =>
    new ApiError(429, 'TooManyRequests', message, { details: { retryAfterSeconds }, headers: { 'retry-after': String(retryAfterSeconds) } }),
  timeout: (message: string, retryAfterSeconds: number): ApiError =>
    new ApiError(504, 'Timeout', message, { details: { retryAfterSeconds }, headers: { 'retry-after': String(retryAfterSeconds) } }),
  serviceUnavailable: (message: string): ApiError => new ApiError(503, 'ServiceUnavailable', message),
  internal: (cause: unknown): ApiError =>
    new ApiError(500, 'InternalError', `Internal error occurred: ${cause instanceof Error ? cause.message : String(cause)}`, { details: { causes: [{ message: cause instanceof Error ? cause.message : String(cause) }] }, cause }),
};
