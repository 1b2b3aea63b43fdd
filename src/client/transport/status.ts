// A non-2xx response → ApiStatusError, as client-go's rest.Request does it:
// the body's Status when it is one (JSON, or the protobuf envelope when the
// response says application/vnd.platform.protobuf), else a Status made up
// from the code with client-go's wording (NewGenericServerResponse), the
// body's text kept as an UnexpectedServerResponse cause. Never throws: any
// body, however broken, gives an error the caller can branch on. Pure; the
// protobuf decoder is passed in (the transport loads the codec on demand).
import type { Status, StatusReason } from '../../api/errors.js';
import { MEDIA_PROTOBUF, mediaTypeOf } from '../../api/media.js';
import { ApiStatusError, type RequestRef } from '../errors.js';
import { parseRetryAfter } from './retry.js';

/** Decodes an envelope to its JSON-form object (ApiCodec.decode). */
export type DecodeEnvelope = (body: Uint8Array) => Record<string, unknown>;

export interface ErrorResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

/** client-go's cap on body text kept in a made-up error. */
const MAX_TEXT_BYTES = 2048;

const header = (h: ErrorResponse['headers'], name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

function asStatus(v: unknown, code: number): Status | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (o['kind'] !== 'Status') return undefined;
  const c = typeof o['code'] === 'number' && o['code'] !== 0 ? o['code'] : code;
  const str = (k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
  const details = typeof o['details'] === 'object' && o['details'] !== null ? (o['details'] as Status['details']) : undefined;
  const metadata = typeof o['metadata'] === 'object' && o['metadata'] !== null ? (o['metadata'] as Status['metadata']) : {};
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata,
    status: 'Failure',
    ...(str('message') === undefined ? {} : { message: str('message') }),
    ...(str('reason') === undefined ? {} : { reason: str('reason') }),
    ...(details === undefined ? {} : { details }),
    code: c,
  };
}

/** The Status a body holds, or undefined (not a Status, or undecodable). */
export function decodeStatusBody(res: ErrorResponse, decodeEnvelope: DecodeEnvelope | undefined): Status | undefined {
  if (res.body.length === 0) return undefined;
  const ct = mediaTypeOf(header(res.headers, 'content-type') ?? '');
  try {
    if (ct === MEDIA_PROTOBUF) return decodeEnvelope === undefined ? undefined : asStatus(decodeEnvelope(res.body), res.status);
    if (ct === 'application/json' || ct === '') return asStatus(JSON.parse(res.body.toString('utf8')), res.status);
  } catch {
    // Not a Status: the made-up error below says what the body was.
  }
  return undefined;
}

/** client-go's reason and message for a code whose body held no Status; `text` is the body ('unknown' unless it was text). */
export function genericStatus(code: number, text: string): { reason: StatusReason; message: string } {
  switch (code) {
    case 400:
      return { reason: 'BadRequest', message: 'the server rejected our request for an unknown reason' };
    case 401:
      return { reason: 'Unauthorized', message: 'the server has asked for the client to provide credentials' };
    case 403:
      return { reason: 'Forbidden', message: text };
    case 404:
      return { reason: 'NotFound', message: 'the server could not find the requested resource' };
    case 405:
      return { reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' };
    case 406:
      return { reason: 'NotAcceptable', message: text === '' || text === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : text };
    case 409:
      return { reason: 'Conflict', message: 'the server reported a conflict' };
    case 415:
      return { reason: 'UnsupportedMediaType', message: text };
    case 422:
      return { reason: 'Invalid', message: 'the server rejected our request due to an error in our request' };
    case 429:
      return { reason: 'TooManyRequests', message: 'the server has received too many requests and has asked us to try again later' };
    case 503:
      return { reason: 'ServiceUnavailable', message: 'the server is currently unable to handle the request' };
    case 504:
      return { reason: 'Timeout', message: 'the server was unable to return a response in the time allotted, but may still be processing the request' };
    default:
      if (code >= 500) return { reason: 'InternalError', message: `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding` };
      return { reason: 'Unknown', message: `the server responded with the status code ${code} but did not return more information` };
  }
}

function bodyText(res: ErrorResponse): string {
  const ct = mediaTypeOf(header(res.headers, 'content-type') ?? '');
  if (!ct.startsWith('text/')) return 'unknown';
  return res.body.subarray(0, MAX_TEXT_BYTES).toString('utf8').trim();
}

/**
 * The error for a non-2xx response to `request`. `retryAfterSeconds` is the
 * Retry-After header, else the Status's `details.retryAfterSeconds`.
 */
export function statusError(request: RequestRef, res: ErrorResponse, decodeEnvelope?: DecodeEnvelope): ApiStatusError {
  const headerRetry = parseRetryAfter(res.headers['retry-after']);
  const status = decodeStatusBody(res, decodeEnvelope);
  if (status !== undefined) {
    const bodyRetry = status.details?.retryAfterSeconds;
    return new ApiStatusError(request, status, headerRetry ?? (typeof bodyRetry === 'number' ? bodyRetry : undefined));
  }
  const text = bodyText(res);
  const g = genericStatus(res.status, text);
  const made: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: g.message,
    reason: g.reason,
    details: { causes: [{ reason: 'UnexpectedServerResponse', message: text }], ...(headerRetry === undefined ? {} : { retryAfterSeconds: headerRetry }) },
    code: res.status,
  };
  return new ApiStatusError(request, made, headerRetry);
}

/** Whether a response body must be decoded as protobuf to read its Status. */
export const isProtobufResponse = (res: Pick<ErrorResponse, 'headers'>): boolean => mediaTypeOf(header(res.headers, 'content-type') ?? '') === MEDIA_PROTOBUF;
