// JSON Merge Patch (RFC 7386): objects merge key by key, null deletes,
// anything else (arrays included) replaces. `createMergePatch` is the
// inverse the client uses. Pure; inputs are not modified.
import { badPatch, clone, deepEqual, isObject, type Json, type JsonObject } from './json.js';

function merge(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

/**
 * Applies `patch` to `doc`. As kube-apiserver (evanphx/json-patch), a patch
 * that is not a JSON object is refused with a 400 ("Invalid JSON Patch")
 * rather than replacing the whole object.
 */
export function applyMergePatch(doc: Json, patch: Json): Json {
  if (!isObject(patch)) throw badPatch('Invalid JSON Patch');
  return merge(doc, patch);
}

/** The merge patch that turns `original` into `modified` (objects only). */
export function createMergePatch(original: JsonObject, modified: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(original)) if (!Object.prototype.hasOwnProperty.call(modified, k)) out[k] = null;
  for (const [k, v] of Object.entries(modified)) {
    const o = original[k];
    if (deepEqual(o, v)) continue;
    out[k] = isObject(o) && isObject(v) ? createMergePatch(o, v) : clone(v);
  }
  return out;
}
