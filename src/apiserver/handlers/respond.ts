// Writing one non-streaming answer: the object, list, Table or Status in the
// negotiated representation (spec §4.8, §4.9), gzip-compressed for get and
// list when the client accepts it (§4.7), with the request's Warning headers
// (§4.10). Errors are Status objects in the same representation as a success
// would have been (JSON when negotiation itself failed).
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { apiErrors, isApiError, type ApiError, type Status } from '../../api/errors.js';
import { MEDIA_PROTOBUF, shouldGzip, type OutputChoice } from '../../api/media.js';
import type { WarningCollector } from '../../api/warnings.js';
import type { ApiObject, ObjectList } from '../registry/types.js';
import type { GroupVersionKind, WireCodec } from './ports.js';

export const STATUS_GVK: GroupVersionKind = { group: '', version: 'v1', kind: 'Status' };

export interface Answer {
  res: ServerResponse;
  wire: WireCodec;
  /** undefined: negotiation failed or has not run; errors go out as JSON. */
  choice: OutputChoice | undefined;
  verb: string;
  acceptEncoding: string | undefined;
  compression: boolean;
  warnings: WarningCollector | undefined;
}

function jsonBytes(value: unknown, pretty: boolean): Buffer {
  return Buffer.from(pretty ? `${JSON.stringify(value, null, 2)}\n` : JSON.stringify(value));
}

/** Sends `body` (already encoded) with the common headers; gzip when §4.7 says so. */
export function send(a: Answer, code: number, contentType: string, body: Buffer, extraHeaders: Readonly<Record<string, string>> = {}): void {
  const { res } = a;
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers: Record<string, string | string[]> = { 'content-type': contentType, 'cache-control': 'no-cache, private', ...extraHeaders };
  const warnings = [...(a.warnings?.headers() ?? [])];
  if (warnings.length > 0) headers['warning'] = warnings;
  let out = body;
  if (shouldGzip({ verb: a.verb, acceptEncoding: a.acceptEncoding, gateOn: a.compression })) {
    out = gzipSync(body);
    headers['content-encoding'] = 'gzip';
    headers['vary'] = 'Accept-Encoding';
  }
  headers['content-length'] = String(out.length);
  res.writeHead(code, headers);
  res.end(out);
}

/** An object or list in the negotiated representation. `table` conversion is done by the caller. */
export function sendObject(a: Answer, code: number, obj: ApiObject | ObjectList | Status | object, gvk: GroupVersionKind): void {
  const choice = a.choice;
  if (choice !== undefined && choice.mediaType === MEDIA_PROTOBUF && choice.table === undefined) {
    send(a, code, MEDIA_PROTOBUF, a.wire.encodeProtobuf(obj as ApiObject, gvk));
    return;
  }
  send(a, code, 'application/json', jsonBytes(obj, choice?.pretty ?? false));
}

export function toApiError(err: unknown): ApiError {
  return isApiError(err) ? err : apiErrors.internal(err);
}

/** A Status error; protobuf when that was negotiated, JSON otherwise. */
export function sendError(a: Answer, err: unknown): void {
  const e = toApiError(err);
  const status = e.status();
  const proto = a.choice !== undefined && a.choice.mediaType === MEDIA_PROTOBUF;
  // Errors are never compressed: a client reading a failure should not need to negotiate it.
  const plain: Answer = { ...a, verb: 'error' };
  if (proto) send(plain, e.code, MEDIA_PROTOBUF, a.wire.encodeProtobuf(status, STATUS_GVK), e.headers);
  else send(plain, e.code, 'application/json', jsonBytes(status, false), e.headers);
}

/** A Success Status (deletecollection, deletes of resources that do not return the object). */
export function successStatus(details?: Status['details']): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200, ...(details === undefined ? {} : { details }) };
}
