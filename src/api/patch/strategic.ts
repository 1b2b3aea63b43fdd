// Strategic merge patch, the apply side (upstream's StrategicMergeMapPatch
// with MergeParallelList and IgnoreUnmatchedNulls, as kube-apiserver calls
// it): maps merge, `null` deletes, lists are replaced unless the schema
// says `merge` — then map lists merge by their merge key and primitive lists
// are unions. Directives: `$patch: replace|delete` on a map, `$patch:
// replace|delete` elements in a merge list, `$setElementOrder/<list>`,
// `$deleteFromPrimitiveList/<list>`, `$retainKeys`. Pure: inputs are copied.
// Differences from upstream, on purpose: a key absent from the original gets
// the patch value merged into an empty value (so directives below it are
// processed, not stored), and structural errors upstream leaves as 500s are
// 400s here.
import { badPatch, clone, deepEqual, goFormat, isObject, patchNotApplicable, type Json, type JsonObject } from './json.js';
import { PATCH_MESSAGES, KIND_MESSAGES } from './patch-meta.generated.js';
import { schemaFor, type PatchSchema } from './patch-meta.js';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER = '$setElementOrder/';
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList/';

/**
 * The schema of a served kind by apiVersion and kind; any other kind gets
 * the generic object schema (only `metadata` typed, so finalizers and
 * ownerReferences still merge).
 */
export function schemaForKind(apiVersion: string, kind: string): PatchSchema {
  return schemaFor(PATCH_MESSAGES, KIND_MESSAGES[`${apiVersion}/${kind}`] ?? '*');
}

/**
 * Applies a strategic merge patch to `original` (an object). `schema` is
 * schemaForKind(...) for the object's kind. Throws 400 for malformed
 * directives and 422 for what upstream answers 422 (retainKeys mismatch,
 * lists of lists).
 */
export function applyStrategicMergePatch(original: JsonObject, patch: Json, schema: PatchSchema): JsonObject {
  if (!isObject(patch)) throw badPatch('invalid JSON document');
  return mergeMap(clone(original), clone(patch), schema);
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema): JsonObject {
  if (Object.prototype.hasOwnProperty.call(patch, DIRECTIVE)) {
    const d = patch[DIRECTIVE];
    if (d === 'replace') {
      delete patch[DIRECTIVE];
      return stripNulls(patch) as JsonObject;
    }
    if (d === 'delete') return {};
    throw badPatch(`unknown patch type: ${goFormat(d)} in map: ${goFormat(patch)}`);
  }
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, schema);
  for (const [rawKey, patchV] of Object.entries(patch)) {
    const isDeleteList = rawKey.startsWith(DELETE_PRIMITIVE);
    const k = isDeleteList ? rawKey.slice(DELETE_PRIMITIVE.length) : rawKey;
    if (isDeleteList && !Array.isArray(patchV)) throw badPatch('invalid patch format of primitive list');
    if (patchV === null) {
      delete original[k];
      continue;
    }
    const has = Object.prototype.hasOwnProperty.call(original, k);
    const field = schema.field(k);
    if (!has || kindOf(original[k]!) !== kindOf(patchV)) {
      if (!isDeleteList) original[k] = fresh(patchV, field);
      continue;
    }
    const ov = original[k]!;
    if (isObject(ov) && isObject(patchV)) original[k] = field.strategy === 'replace' ? (stripNulls(patchV) as JsonObject) : mergeMap(ov, patchV, field.schema);
    else if (Array.isArray(ov) && Array.isArray(patchV)) {
      original[k] = field.strategy === 'merge' ? mergeList(ov, patchV, field, isDeleteList) : isDeleteList ? ov : (stripNulls(patchV) as Json[]);
    } else original[k] = patchV;
  }
  return original;
}

type Field = ReturnType<PatchSchema['field']>;

const kindOf = (v: Json): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** A patch value for a key the original lacks: merged into an empty value so its directives apply. */
function fresh(v: Json, field: Field): Json {
  if (isObject(v)) return field.strategy === 'replace' ? stripNulls(v) : mergeMap({}, v, field.schema);
  if (Array.isArray(v)) return field.strategy === 'merge' ? mergeList([], v, field, false) : stripNulls(v);
  return v;
}

function stripNulls(v: Json): Json {
  if (Array.isArray(v)) return v.map(stripNulls);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = stripNulls(x);
  return out;
}

function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.prototype.hasOwnProperty.call(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw badPatch('invalid patch format of retainKeys');
  const keep = new Set(list.map((x) => String(x)));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_PRIMITIVE) || k.startsWith(SET_ORDER)) continue;
    if (!keep.has(k)) throw patchNotApplicable("patch content doesn't match retainKeys list");
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** Each `$setElementOrder/<k>` with its list `<k>`: merged, then ordered (upstream's mergePatchIntoOriginal). */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, schema: PatchSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badPatch('invalid patch format of setElementOrder list');
    const k = key.slice(SET_ORDER.length);
    const field = schema.field(k);
    const ov = original[k];
    const pv = patch[k];
    const origList = Array.isArray(ov) ? ov : [];
    const patchList = Array.isArray(pv) ? pv : [];
    checkOrderList(patchList, order, field.mergeKey);
    // Only an order: the live list as it is (duplicates kept), as upstream.
    let merged: Json[];
    if (pv === undefined) merged = origList;
    else merged = field.strategy === 'merge' ? mergeItems(origList, patchList, field) : patchList;
    const both = orderItems(merged, order, origList, field.mergeKey);
    if (both.length > 0 || ov !== undefined) original[k] = both;
    delete patch[k];
  }
}

/** upstream's validatePatchWithSetOrderList: the patch's items appear in the order list, in its order. */
function checkOrderList(patchList: readonly Json[], order: readonly Json[], mergeKey: string): void {
  const items = patchList.filter((x) => !(isObject(x) && Object.prototype.hasOwnProperty.call(x, DIRECTIVE)));
  const positions = items.map((x) => indexIn(order, x, mergeKey));
  if (positions.some((p, n) => p < 0 || (n > 0 && p < positions[n - 1]!))) {
    throw badPatch(`The order in patch list:\n${goFormat(patchList as Json[])}\n doesn't match $setElementOrder list:\n${goFormat(order as Json[])}\n`);
  }
}

/** A merge list: merged items, then ordered by the patch (upstream's mergeSlice). */
function mergeList(original: Json[], patch: Json[], field: Field, isDeleteList: boolean): Json[] {
  if (isDeleteList) return original.filter((x) => !patch.some((d) => deepEqual(d, x)));
  return orderItems(mergeItems(original, patch, field), patch, original, field.mergeKey);
}

function mergeItems(original: Json[], patch: Json[], field: Field): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const sample = original[0] ?? patch[0];
  if ([...original, ...patch].some(Array.isArray)) throw patchNotApplicable('lists of lists are not supported');
  if (!isObject(sample)) {
    const out: Json[] = [];
    for (const x of [...original, ...patch]) if (!out.some((y) => deepEqual(x, y))) out.push(x);
    return out;
  }
  if (field.mergeKey === '') throw badPatch(`cannot merge lists without merge key for ${goFormat(sample)}`);
  const key = field.mergeKey;
  let base = original;
  const items: JsonObject[] = [];
  let replace = false;
  for (const p of patch) {
    if (!isObject(p)) throw badPatch(`value for key ${key} is not a map.`);
    if (!Object.prototype.hasOwnProperty.call(p, DIRECTIVE)) {
      items.push(p);
      continue;
    }
    const d = p[DIRECTIVE];
    if (d === 'delete') {
      if (!Object.prototype.hasOwnProperty.call(p, key)) throw badPatch(`map: ${goFormat(p)} does not contain declared merge key: ${key}`);
      base = base.filter((o) => !(isObject(o) && deepEqual(o[key], p[key])));
    } else if (d === 'replace') replace = true;
    else if (d === 'merge') throw badPatch('merging lists cannot yet be specified in the patch');
    else throw badPatch(`unknown patch type: ${goFormat(d)} in map: ${goFormat(p)}`);
  }
  if (replace) return items.map((x) => stripNulls(x));
  const out = [...base];
  for (const p of items) {
    if (!Object.prototype.hasOwnProperty.call(p, key)) throw badPatch(`map: ${goFormat(p)} does not contain declared merge key: ${key}`);
    const i = out.findIndex((o) => isObject(o) && deepEqual(o[key], p[key]));
    if (i >= 0) out[i] = mergeMap(out[i] as JsonObject, p, field.schema);
    else out.push(mergeMap({}, p, field.schema));
  }
  return out;
}

/** Position of `item` in `list`, by merge key for maps, by value for primitives; -1 when absent. */
function indexIn(list: readonly Json[], item: Json, mergeKey: string): number {
  if (mergeKey !== '' && isObject(item)) return list.findIndex((x) => isObject(x) && deepEqual(x[mergeKey], item[mergeKey]));
  return list.findIndex((x) => deepEqual(x, item));
}

/**
 * upstream's normalizeElementOrder: items named by `patchOrder` keep that
 * order, the others keep their order in `serverOrder`, and the two runs are
 * interleaved by their positions in `serverOrder`.
 */
function orderItems(merged: Json[], patchOrder: readonly Json[], serverOrder: readonly Json[], mergeKey: string): Json[] {
  const inPatch = merged.filter((x) => indexIn(patchOrder, x, mergeKey) >= 0);
  const serverOnly = merged.filter((x) => indexIn(patchOrder, x, mergeKey) < 0);
  const byOrder = (order: readonly Json[]) => (a: Json, b: Json) => {
    const ia = indexIn(order, a, mergeKey);
    const ib = indexIn(order, b, mergeKey);
    return ia >= 0 && ib >= 0 ? ia - ib : 0;
  };
  inPatch.sort(byOrder(patchOrder));
  serverOnly.sort(byOrder(serverOrder));
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < inPatch.length) {
    if (i >= serverOnly.length) out.push(inPatch[j++]!);
    else if (j >= inPatch.length) out.push(serverOnly[i++]!);
    else {
      const li = indexIn(serverOrder, serverOnly[i]!, mergeKey);
      const ri = indexIn(serverOrder, inPatch[j]!, mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(serverOnly[i++]!);
      else out.push(inPatch[j++]!);
    }
  }
  return out;
}
