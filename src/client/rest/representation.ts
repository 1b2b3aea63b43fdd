// Which representation (§4.9) a request uses for a type, and turning bodies
// into objects and back. One Representations per RestClient: it remembers
// the types that answered 406 to protobuf and uses JSON for them from then
// on (logged once per type). Decoding is by the response's Content-Type,
// whatever was asked for. Synchronous; never blocks.
import { internJsonStrings, isCodecError, type ApiCodec, type ApiObject, type DecodeOptions } from '../../api/codec/index.js';
import { MEDIA_JSON, MEDIA_PROTOBUF, mediaTypeOf } from '../../api/media.js';
import { ClientProtocolError, type RequestRef } from '../errors.js';
import type { ClientLog, ResourceType } from '../types.js';
import { apiVersionOf, typeKey } from './resources.js';

export type Wire = 'protobuf' | 'json';

export const ACCEPT_PROTOBUF = `${MEDIA_PROTOBUF}, ${MEDIA_JSON}`;
export const ACCEPT_JSON = MEDIA_JSON;
export const ACCEPT_TABLE = `${MEDIA_JSON};as=Table;v=v1;g=meta.platform.io, ${MEDIA_JSON}`;

export interface Representations {
  /** What a request for `t` uses now. */
  wire(t: ResourceType): Wire;
  /** The type answered 406 to protobuf: JSON for it from now on. Idempotent; logs the first time. */
  fallBack(t: ResourceType, ref: RequestRef): void;
}

export function createRepresentations(opts: { codec: ApiCodec; contentType: string; log: ClientLog }): Representations {
  const jsonOnly = new Set<string>();
  return {
    wire(t) {
      if (opts.contentType !== MEDIA_PROTOBUF || jsonOnly.has(typeKey(t))) return 'json';
      return opts.codec.hasKind({ apiVersion: apiVersionOf(t), kind: t.kind }) ? 'protobuf' : 'json';
    },
    fallBack(t, ref) {
      const key = typeKey(t);
      if (jsonOnly.has(key)) return;
      jsonOnly.add(key);
      opts.log.warn('server does not accept protobuf for this resource type; using JSON for it from now on', { resource: key, request: `${ref.method} ${ref.path}` });
    },
  };
}

export const acceptFor = (wire: Wire): string => (wire === 'protobuf' ? ACCEPT_PROTOBUF : ACCEPT_JSON);

/** An object as a request body in `wire`; the object's own apiVersion/kind are set from the type when missing. */
export function encodeBody(codec: ApiCodec, t: ResourceType, wire: Wire, obj: ApiObject): { body: Uint8Array | string; contentType: string } {
  const full = { ...obj, apiVersion: obj['apiVersion'] ?? apiVersionOf(t), kind: obj['kind'] ?? t.kind };
  if (wire === 'json') return { body: JSON.stringify(full), contentType: MEDIA_JSON };
  return { body: codec.encode(full, { apiVersion: apiVersionOf(t), kind: t.kind }), contentType: MEDIA_PROTOBUF };
}

const headerValue = (h: Readonly<Record<string, string | string[] | undefined>>, name: string): string => {
  const v = h[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
};

/**
 * A response body as an object, by its Content-Type: a protobuf envelope or
 * JSON (no Content-Type: JSON). Truncated or garbled bytes, a body that is
 * not an object, or another media type → ClientProtocolError on `body`
 * (`content-type` for an unexpected type), the codec's error as cause.
 */
export function decodeBody(codec: ApiCodec, ref: RequestRef, res: { headers: Readonly<Record<string, string | string[] | undefined>>; body: Buffer }, opts?: DecodeOptions): ApiObject {
  const mt = mediaTypeOf(headerValue(res.headers, 'content-type'));
  if (mt === MEDIA_PROTOBUF) {
    try {
      return codec.decode(res.body, opts).object;
    } catch (err) {
      if (isCodecError(err)) throw new ClientProtocolError(ref, 'body', `undecodable protobuf response (${res.body.length} bytes): ${err.message}`, err);
      throw err;
    }
  }
  if (mt !== MEDIA_JSON && mt !== '') throw new ClientProtocolError(ref, 'content-type', `unexpected response media type ${JSON.stringify(mt)}`);
  const obj = parseJsonObject(ref, 'body', res.body);
  // Listed and fetched objects usually end up in a cache: their repeated strings shared, as protobuf's are.
  internJsonStrings(obj);
  return obj;
}

/** JSON bytes that must hold one object. */
export function parseJsonObject(ref: RequestRef, field: string, bytes: Buffer): ApiObject {
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new ClientProtocolError(ref, field, `undecodable JSON response (${bytes.length} bytes): ${(err as Error).message}`, err);
  }
  if (!isObject(v)) throw new ClientProtocolError(ref, field, `expected a JSON object, got ${Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v}`);
  return v;
}

export const isObject = (v: unknown): v is ApiObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object must be of `kind` when it names one (JSON and protobuf single objects do; list items may not). */
export function checkKind(ref: RequestRef, field: string, obj: ApiObject, kinds: readonly string[]): void {
  const k = obj['kind'];
  if (k === undefined || k === '') return;
  if (typeof k !== 'string' || !kinds.includes(k)) throw new ClientProtocolError(ref, field, `expected kind ${kinds.map((x) => JSON.stringify(x)).join(' or ')}, got ${JSON.stringify(k)}`);
}
