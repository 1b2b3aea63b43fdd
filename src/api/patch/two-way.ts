// The client side of strategic merge patch: upstream's
// CreateTwoWayMergePatch (with $setElementOrder), and the node-status patch
// the kubelet sends (wire notes (g)): spec reset to the old one, and
// `status.addresses` replaced wholesale with a `$patch: replace` element
// because its merge-by-type tag is wrong for nodes with several addresses
// of one type. Pure; keys come out sorted so equal inputs give equal bytes.
import { clone, deepEqual, isObject, type Json, type JsonObject } from './json.js';
import type { PatchSchema } from './patch-meta.js';
import { schemaForKind } from './strategic.js';

const sorted = (o: JsonObject): JsonObject => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]!]));

/** Go's %v string of a scalar, which upstream sorts and compares merge keys and scalars by. */
const str = (v: Json | undefined): string => (v === undefined || v === null ? '<nil>' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const byStr = (a: Json, b: Json): number => (str(a) < str(b) ? -1 : str(a) > str(b) ? 1 : 0);

/**
 * The strategic merge patch turning `original` into `modified` for an object
 * of the given schema: changed and added fields, `null` for removed ones,
 * merge lists as additions/changes by merge key plus `{"$patch":"delete"}`
 * entries and a `$setElementOrder/<list>`, primitive merge lists as additions
 * plus `$deleteFromPrimitiveList/<list>`. `{}` when nothing changed.
 */
export function createTwoWayMergePatch(original: JsonObject, modified: JsonObject, schema: PatchSchema): JsonObject {
  return diffMaps(original, modified, schema, false);
}

/** `retainKeys`: the map is a field (or list item) with the retainKeys strategy, so the patch lists the keys to keep. */
function diffMaps(original: JsonObject, modified: JsonObject, schema: PatchSchema, retainKeys: boolean): JsonObject {
  const patch: JsonObject = {};
  for (const [k, mv] of Object.entries(modified)) {
    if (!Object.prototype.hasOwnProperty.call(original, k)) {
      patch[k] = clone(mv);
      continue;
    }
    const ov = original[k]!;
    const field = schema.field(k);
    if (isObject(ov) && isObject(mv)) {
      if (field.strategy === 'replace') {
        if (!deepEqual(ov, mv)) patch[k] = clone(mv);
      } else {
        const sub = diffMaps(ov, mv, field.schema, field.retainKeys);
        if (Object.keys(sub).length > 0) patch[k] = sub;
      }
    } else if (Array.isArray(ov) && Array.isArray(mv)) {
      if (field.strategy === 'merge') diffList(k, ov, mv, field, patch);
      else if (!deepEqual(ov, mv)) patch[k] = clone(mv);
    } else if (!deepEqual(ov, mv)) patch[k] = clone(mv);
  }
  for (const k of Object.keys(original)) if (!Object.prototype.hasOwnProperty.call(modified, k)) patch[k] = null;
  if (retainKeys) {
    const keep = Object.keys(modified).filter((k) => modified[k] !== null);
    const cleared = Object.keys(original).some((k) => original[k] !== null && (modified[k] === undefined || modified[k] === null));
    if (keep.length > 0 && (Object.keys(patch).length > 0 || cleared)) patch['$retainKeys'] = [...keep].sort(byStr);
  }
  return sorted(patch);
}

type Field = ReturnType<PatchSchema['field']>;

function diffList(key: string, original: Json[], modified: Json[], field: Field, patch: JsonObject): void {
  if (original.length === 0 && modified.length === 0) return;
  const sample = original[0] ?? modified[0];
  if (isObject(sample) && field.mergeKey !== '') {
    diffMapList(key, original, modified, field, patch);
    return;
  }
  if (isObject(sample) || Array.isArray(sample)) {
    if (!deepEqual(original, modified)) patch[key] = clone(modified);
    return;
  }
  const os = [...original].sort(byStr);
  const ms = [...modified].sort(byStr);
  const adds: Json[] = [];
  const dels: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < os.length || j < ms.length) {
    if (j >= ms.length || (i < os.length && str(os[i]) < str(ms[j]))) dels.push(os[i++]!);
    else if (i >= os.length || str(os[i]) > str(ms[j])) adds.push(ms[j++]!);
    else {
      i++;
      j++;
    }
  }
  const uniqueDels = dels.filter((d, n) => dels.findIndex((x) => deepEqual(x, d)) === n);
  if (adds.length > 0) patch[key] = orderBy(adds, modified, '');
  if (uniqueDels.length > 0) patch[`$deleteFromPrimitiveList/${key}`] = uniqueDels;
  if (uniqueDels.length > 0 || !deepEqual(original, modified)) patch[`$setElementOrder/${key}`] = clone(modified);
}

function diffMapList(key: string, original: Json[], modified: Json[], field: Field, patch: JsonObject): void {
  const mk = field.mergeKey;
  const keyOf = (x: Json): string => str(isObject(x) ? x[mk] : undefined);
  const os = [...original].sort((a, b) => byStr(keyOf(a), keyOf(b)));
  const ms = [...modified].sort((a, b) => byStr(keyOf(a), keyOf(b)));
  const changes: Json[] = [];
  const dels: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < os.length || j < ms.length) {
    if (i < os.length && j < ms.length && keyOf(os[i]!) === keyOf(ms[j]!)) {
      const d = diffMaps(os[i] as JsonObject, ms[j] as JsonObject, field.schema, field.retainKeys);
      if (Object.keys(d).length > 0) changes.push(sorted({ ...d, [mk]: (ms[j] as JsonObject)[mk]! }));
      i++;
      j++;
    } else if (i >= os.length || (j < ms.length && keyOf(os[i]!) > keyOf(ms[j]!))) changes.push(clone(ms[j++]!));
    else dels.push({ $patch: 'delete', [mk]: (os[i++] as JsonObject)[mk] ?? null });
  }
  const list = [...orderBy(changes, modified, mk), ...dels];
  const orderSame = sameOrder(original, modified, keyOf);
  if (list.length > 0) patch[key] = list;
  if (list.length > 0 || !orderSame) patch[`$setElementOrder/${key}`] = modified.map((m) => ({ [mk]: isObject(m) ? (m[mk] ?? null) : null }));
}

/** upstream's isOrderSame: same length and the same merge key at every index. */
function sameOrder(a: Json[], b: Json[], keyOf: (x: Json) => string): boolean {
  return a.length === b.length && a.every((x, n) => keyOf(x) === keyOf(b[n]!));
}

/** `items` sorted stably by their position in `order` (by merge key when given). */
function orderBy(items: Json[], order: Json[], mk: string): Json[] {
  const pos = (x: Json): number => (mk === '' ? order.findIndex((o) => deepEqual(o, x)) : order.findIndex((o) => isObject(o) && isObject(x) && deepEqual(o[mk], x[mk])));
  return [...items].sort((a, b) => pos(a) - pos(b));
}

/**
 * The agent's node-status patch (kubelet's preparePatchBytesforNodeStatus):
 * the two-way patch old→new with spec reset to the old one, and, when the
 * old node had addresses and they changed, `status.addresses` sent as the
 * full new list followed by `{"$patch":"replace"}`.
 */
export function nodeStatusPatch(oldNode: JsonObject, newNode: JsonObject): JsonObject {
  const oldStatus = isObject(oldNode['status']) ? oldNode['status'] : {};
  const newStatus = isObject(newNode['status']) ? newNode['status'] : {};
  const oldAddrs = Array.isArray(oldStatus['addresses']) ? oldStatus['addresses'] : [];
  const newAddrs = newStatus['addresses'];
  const manual = oldAddrs.length > 0 && !deepEqual(oldAddrs, newAddrs ?? []);
  const diff: JsonObject = { ...clone(newNode) };
  if (oldNode['spec'] !== undefined) diff['spec'] = clone(oldNode['spec']);
  else delete diff['spec'];
  if (manual && isObject(diff['status'])) diff['status'] = { ...diff['status'], addresses: clone(oldAddrs) };
  const patch = createTwoWayMergePatch(oldNode, diff, schemaForKind('v1', 'Node'));
  if (!manual) return patch;
  const status = isObject(patch['status']) ? patch['status'] : {};
  const addresses: Json[] = [...(Array.isArray(newAddrs) ? clone(newAddrs) : []), { $patch: 'replace' }];
  return sorted({ ...patch, status: sorted({ ...status, addresses }) });
}
