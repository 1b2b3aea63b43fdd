// Walks over JSON-form objects that server-side apply needs: which fields an
// object specifies (upstream's ToFieldSet) and which fields differ between
// two versions of an object (upstream's Compare). List semantics come from
// the injected ListTypes; every JSON object is a granular map (labels,
// annotations, data and structs alike). Pure and synchronous.
import { ApiError } from '../../api/errors.js';
import { type ElementKey, type FieldPath, FieldSet, fieldKey, indexKey, keyKey, pathString, valueKey } from './fieldpath.js';

/** How a list at a path (field names from the root, list positions left out) merges. */
export type ListType = { type: 'map'; keys: readonly string[] } | { type: 'set' } | { type: 'atomic' };
/** Built by the integrator from the strategic-merge-patch table; lists it does not know are atomic. */
export type ListTypes = (path: readonly string[]) => ListType;

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

/**
 * How a walk treats list items it cannot name: `strict` (an applied
 * configuration) rejects them with a 400 naming the list; `lenient` (stored
 * objects, which validation already checked) names them by position and
 * keeps the first of duplicates, as upstream's AllowDuplicates does.
 */
export type Strictness = 'strict' | 'lenient';

/** One list's items under their element keys, in list order; duplicates dropped when lenient. */
export function listElements(list: readonly unknown[], lt: ListType, at: FieldPath, mode: Strictness): Array<{ key: ElementKey; item: unknown }> {
  const out: Array<{ key: ElementKey; item: unknown }> = [];
  const seen = new Set<ElementKey>();
  const fail = (i: number, why: string): never => {
    throw new ApiError(400, 'BadRequest', `failed to create typed patch object: ${pathString(at)}: element ${i}: ${why}`, {
      details: { causes: [{ reason: 'FieldValueInvalid', message: `element ${i}: ${why}`, field: pathString(at).slice(1) }] },
    });
  };
  list.forEach((item, i) => {
    let key: ElementKey;
    if (lt.type === 'set') {
      if (isObject(item) || Array.isArray(item)) {
        if (mode === 'strict') fail(i, 'expected a scalar in a set-type list');
        key = indexKey(i);
      } else key = valueKey(item);
    } else if (lt.type === 'map') {
      const missing = isObject(item) ? lt.keys.find((k) => item[k] === undefined || item[k] === null) : lt.keys[0];
      if (missing !== undefined || !isObject(item)) {
        if (mode === 'strict') fail(i, isObject(item) ? `associative list with keys has an element that omits key field ${JSON.stringify(missing)} (and doesn't have default value)` : 'associative list element is not an object');
        key = indexKey(i);
      } else key = keyKey(Object.fromEntries(lt.keys.map((k) => [k, item[k]])));
    } else key = indexKey(i);
    if (seen.has(key)) {
      if (mode === 'strict') fail(i, `duplicate entries for key ${pathString([key])}`);
      return;
    }
    seen.add(key);
    out.push({ key, item });
  });
  return out;
}

/** Where a walk is: the field-name path (for ListTypes) and the element path (for sets). */
interface At {
  names: readonly string[];
  path: FieldPath;
}

const down = (at: At, name: string): At => ({ names: [...at.names, name], path: [...at.path, fieldKey(name)] });
const item = (at: At, key: ElementKey): At => ({ names: at.names, path: [...at.path, key] });

/**
 * The fields `obj` specifies: every leaf (scalars, nulls, empty objects,
 * atomic lists) and every element of a granular list; objects with content
 * are not members themselves (upstream's ToFieldSet).
 */
export function objectFieldSet(obj: JsonObject, listTypes: ListTypes, mode: Strictness): FieldSet {
  const paths: FieldPath[] = [];
  const walk = (v: unknown, at: At): void => {
    if (isObject(v)) {
      const keys = Object.keys(v);
      if (keys.length === 0) paths.push(at.path);
      for (const k of keys) walk(v[k], down(at, k));
    } else if (Array.isArray(v)) {
      const lt = listTypes(at.names);
      if (lt.type === 'atomic') {
        paths.push(at.path);
        return;
      }
      for (const { key, item: x } of listElements(v, lt, at.path, mode)) {
        const here = item(at, key);
        if (lt.type === 'map' && isObject(x)) for (const k of Object.keys(x)) walk(x[k], down(here, k));
        paths.push(here.path);
      }
    } else paths.push(at.path);
  };
  for (const k of Object.keys(obj)) walk(obj[k], down({ names: [], path: [] }, k));
  return FieldSet.of(paths);
}

/** What changed between two versions of an object, as upstream's Comparison. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

const TOP_LEVEL_STRUCTS = ['metadata', 'spec', 'status'] as const;

const kindOf = (v: unknown): 'absent' | 'object' | 'list' | 'scalar' => (v === undefined ? 'absent' : isObject(v) ? 'object' : Array.isArray(v) ? 'list' : 'scalar');
const isEmptyContainer = (v: unknown): boolean => v === undefined || (isObject(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);

/**
 * The fields added, modified and removed from `lhs` to `rhs`. A map or list
 * element that appears or disappears is itself added or removed (the `.` of
 * an Update entry); two empty containers compare as leaves.
 */
export function compareObjects(lhs: JsonObject, rhs: JsonObject, listTypes: ListTypes): Comparison {
  const added: FieldPath[] = [];
  const modified: FieldPath[] = [];
  const removed: FieldPath[] = [];
  const leaf = (l: unknown, r: unknown, at: At): void => {
    if (l === undefined) added.push(at.path);
    else if (r === undefined) removed.push(at.path);
    else if (!jsonEqual(l, r)) modified.push(at.path);
  };
  const walk = (l: unknown, r: unknown, at: At, top: boolean): void => {
    const kl = kindOf(l);
    const kr = kindOf(r);
    const kind = kl === 'absent' ? kr : kr === 'absent' || kr === kl ? kl : 'mixed';
    if (kind === 'scalar' || kind === 'mixed' || (isEmptyContainer(l) && isEmptyContainer(r))) return leaf(l, r, at);
    if (kind === 'object') {
      const lo = isObject(l) ? l : {};
      const ro = isObject(r) ? r : {};
      for (const k of new Set([...Object.keys(lo), ...Object.keys(ro)])) walk(lo[k], ro[k], down(at, k), false);
    } else {
      const lt = listTypes(at.names);
      if (lt.type === 'atomic') return leaf(l, r, at);
      const le = new Map(listElements(Array.isArray(l) ? l : [], lt, at.path, 'lenient').map((e) => [e.key, e.item]));
      const re = new Map(listElements(Array.isArray(r) ? r : [], lt, at.path, 'lenient').map((e) => [e.key, e.item]));
      for (const k of new Set([...le.keys(), ...re.keys()])) {
        const li = le.get(k);
        const ri = re.get(k);
        if (lt.type === 'set' || (!isObject(li) && !isObject(ri))) leaf(li, ri, item(at, k));
        else walk(li, ri, item(at, k), false);
      }
    }
    if (top) return;
    if (l === undefined) added.push(at.path);
    else if (r === undefined) removed.push(at.path);
  };
  // metadata, spec and status are structs that always exist in upstream's
  // typed objects, so their appearance is not an addition of the struct
  // itself (maps such as a ConfigMap's data are: their `.` is recorded).
  const struct = (a: JsonObject, b: JsonObject): JsonObject => {
    const out: JsonObject = { ...a };
    for (const k of TOP_LEVEL_STRUCTS) if (out[k] === undefined && isObject(b[k])) out[k] = {};
    return out;
  };
  walk(struct(lhs, rhs), struct(rhs, lhs), { names: [], path: [] }, true);
  return { added: FieldSet.of(added), modified: FieldSet.of(modified), removed: FieldSet.of(removed) };
}
