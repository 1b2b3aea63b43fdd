// JSON values and the small helpers the patch engines share: deep equality,
// deep copy, Go-like printing of values for upstream's error texts, and the
// two error shapes patches fail with (400 malformed, 422 does not apply).
import { ApiError, apiErrors } from '../errors.js';

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

export const clone = <T extends Json>(v: T): T => structuredClone(v);

/** A value as Go's %v prints decoded JSON (`map[a:1 b:[x y]]`), for upstream's messages. */
export function goFormat(v: Json | undefined): string {
  if (v === undefined || v === null) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (isObject(v)) {
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goFormat(v[k])}`)
      .join(' ')}]`;
  }
  return String(v);
}

/** A malformed patch (400), upstream's message. */
export const badPatch = (message: string): ApiError => apiErrors.badRequest(message);

/**
 * A patch that does not apply (422 Invalid), as upstream's
 * NewGenericServerResponse(422): its fixed message, with the reason kept in
 * the cause so a client can show it.
 */
export const patchNotApplicable = (detail: string): ApiError =>
  new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', { details: { causes: [{ reason: 'UnexpectedServerResponse', message: detail }] } });

/** Parses a patch body; invalid JSON is a 400 naming the problem. */
export function decodeJson(body: string | Uint8Array, what = 'patch'): Json {
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  try {
    return JSON.parse(text) as Json;
  } catch (e) {
    throw badPatch(`error decoding ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
