// The patch engines behind one call for the PATCH handler: JSON Patch,
// JSON Merge Patch and strategic merge patch applied to an object's JSON
// form (server-side apply is the registry's, with managed fields). Also the
// client's patch builders. Pure; the handler decodes the result back into
// the kind and validates it as an update.
import { PATCH_JSON, PATCH_MERGE, PATCH_STRATEGIC } from '../media.js';
import { badPatch, decodeJson, isObject, type Json, type JsonObject } from './json.js';
import { applyJsonPatch, toJsonPatch } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import { applyStrategicMergePatch, schemaForKind } from './strategic.js';

export type { Json, JsonObject } from './json.js';
export { decodeJson, deepEqual } from './json.js';
export { applyJsonPatch, toJsonPatch, MAX_JSON_PATCH_OPERATIONS, type JsonPatchOp } from './json-patch.js';
export { applyMergePatch, createMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch, schemaForKind } from './strategic.js';
export { createTwoWayMergePatch, nodeStatusPatch } from './two-way.js';
export { schemaFor, UNTYPED, type PatchSchema, type PatchMessages, type FieldMeta } from './patch-meta.js';

/** The patch types applied here (apply-patch+yaml is server-side apply, handled by the registry). */
export type JsonPatchType = typeof PATCH_JSON | typeof PATCH_MERGE | typeof PATCH_STRATEGIC;

/**
 * Applies a PATCH body of the given type to `current` (the object as JSON,
 * with apiVersion and kind). Returns the patched object; throws 400 for a
 * body that does not parse or is malformed, 422 for one that does not apply.
 */
export function applyPatch(patchType: JsonPatchType, current: JsonObject, body: string | Uint8Array): JsonObject {
  const patch: Json = decodeJson(body);
  let out: Json;
  if (patchType === PATCH_JSON) out = applyJsonPatch(current, toJsonPatch(patch));
  else if (patchType === PATCH_MERGE) out = applyMergePatch(current, patch);
  else {
    const apiVersion = typeof current['apiVersion'] === 'string' ? current['apiVersion'] : '';
    const kind = typeof current['kind'] === 'string' ? current['kind'] : '';
    out = applyStrategicMergePatch(current, patch, schemaForKind(apiVersion, kind));
  }
  if (!isObject(out)) throw badPatch('the patched object is not a JSON object');
  return out;
}
