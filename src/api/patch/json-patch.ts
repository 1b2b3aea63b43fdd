// JSON Patch (RFC 6902) over JSON values, with `test`. Own implementation
// rather than fast-json-patch: ~150 lines, no dependency, and failures carry
// the messages of the Go library kube-apiserver uses (evanphx/json-patch),
// which fast-json-patch's error types do not. A bad patch document is a 400;
// an operation that does not apply (missing path, failed test) is upstream's
// 422. Pure: the input document is not modified.
import { badPatch, clone, deepEqual, isObject, patchNotApplicable, type Json } from './json.js';
import { apiErrors } from '../errors.js';

/** Upstream's cap on operations in one JSON patch (413 beyond). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: Json;
}

/** Validates the shape of a decoded JSON Patch document (400 otherwise). */
export function toJsonPatch(doc: Json): JsonPatchOp[] {
  if (!Array.isArray(doc)) throw badPatch('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (doc.length > MAX_JSON_PATCH_OPERATIONS) throw apiErrors.requestEntityTooLarge(MAX_JSON_PATCH_OPERATIONS);
  return doc.map((o) => {
    if (!isObject(o)) throw badPatch('json: cannot unmarshal into Go value of type jsonpatch.Operation');
    const op = o['op'];
    if (typeof op !== 'string' || !['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(op)) throw patchNotApplicable(`Unexpected kind: ${typeof op === 'string' ? op : 'unknown'}`);
    if (typeof o['path'] !== 'string') throw patchNotApplicable(`operation missing path field: ${op}`);
    const r: JsonPatchOp = { op: op as JsonPatchOp['op'], path: o['path'] };
    if (op === 'move' || op === 'copy') {
      if (typeof o['from'] !== 'string') throw patchNotApplicable(`${op} operation missing from field`);
      r.from = o['from'];
    }
    if (op === 'add' || op === 'replace' || op === 'test') {
      if (!Object.prototype.hasOwnProperty.call(o, 'value')) throw patchNotApplicable(`${op} operation missing value field`);
      r.value = o['value']!;
    }
    return r;
  });
}

/** RFC 6901 tokens of a pointer ('' is the whole document). */
function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw patchNotApplicable(`invalid JSON pointer: ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Index into an array for `token`; `-` (append) only when `forAdd`. */
function arrayIndex(arr: Json[], token: string, forAdd: boolean): number {
  if (forAdd && token === '-') return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw patchNotApplicable(`Unable to access invalid index: ${token}: invalid index referenced`);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length)) throw patchNotApplicable(`Unable to access invalid index: ${i}: invalid index referenced`);
  return i;
}

/** evanphx/json-patch's texts for a path whose parent is missing, by operation. */
const MISSING = {
  add: (p: string) => `add operation does not apply: doc is missing path: ${JSON.stringify(p)}`,
  remove: (p: string) => `remove operation does not apply: doc is missing path: ${JSON.stringify(p)}`,
  replace: (p: string) => `replace operation does not apply: doc is missing path: ${p}`,
  test: (p: string) => `test operation does not apply: is missing path: ${p}`,
  moveFrom: (p: string) => `move operation does not apply: doc is missing from path: ${p}`,
  moveTo: (p: string) => `move operation does not apply: doc is missing destination path: ${p}`,
  copyFrom: (p: string) => `copy operation does not apply: doc is missing from path: ${p}`,
  copyTo: (p: string) => `copy operation does not apply: doc is missing destination path: ${p}`,
};
type Missing = keyof typeof MISSING;

/** The container of the pointer's last token, and that token; a missing parent is `missing`'s 422. */
function parentOf(doc: Json, pointer: string, missing: Missing): [Json[] | Record<string, Json>, string] {
  const fail = (): never => {
    throw patchNotApplicable(`${MISSING[missing](pointer)}: missing value`);
  };
  const ts = tokens(pointer);
  const last = ts.pop();
  if (last === undefined) return fail();
  let cur: Json = doc;
  for (const t of ts) {
    let next: Json | undefined;
    if (Array.isArray(cur)) next = /^(0|[1-9]\d*)$/.test(t) ? cur[Number(t)] : undefined;
    else if (isObject(cur)) next = Object.prototype.hasOwnProperty.call(cur, t) ? cur[t] : undefined;
    if (next === undefined || next === null || typeof next !== 'object') return fail();
    cur = next;
  }
  if (cur === null || typeof cur !== 'object') return fail();
  return [cur, last];
}

function get(doc: Json, pointer: string, missing: Missing): Json | undefined {
  if (pointer === '') return doc;
  const [c, k] = parentOf(doc, pointer, missing);
  if (Array.isArray(c)) return /^(0|[1-9]\d*)$/.test(k) ? c[Number(k)] : undefined;
  return Object.prototype.hasOwnProperty.call(c, k) ? c[k] : undefined;
}

function add(doc: Json, pointer: string, value: Json, missing: Missing = 'add'): Json {
  if (pointer === '') return value;
  const [c, k] = parentOf(doc, pointer, missing);
  if (Array.isArray(c)) c.splice(arrayIndex(c, k, true), 0, value);
  else c[k] = value;
  return doc;
}

function remove(doc: Json, pointer: string, missing: Missing = 'remove'): [Json, Json] {
  const [c, k] = parentOf(doc, pointer, missing);
  const op = missing === 'moveFrom' ? 'move' : 'remove';
  if (Array.isArray(c)) {
    const i = arrayIndex(c, k, false);
    return [doc, c.splice(i, 1)[0]!];
  }
  if (!Object.prototype.hasOwnProperty.call(c, k)) throw patchNotApplicable(`error in ${op} for path: '${pointer}': Unable to remove nonexistent key: ${k}: missing value`);
  const old = c[k]!;
  delete c[k];
  return [doc, old];
}

/**
 * Applies the operations in order to a copy of `doc`; the first failing one
 * aborts (nothing partial is returned).
 */
export function applyJsonPatch(doc: Json, ops: readonly JsonPatchOp[]): Json {
  let cur = clone(doc);
  for (const o of ops) {
    switch (o.op) {
      case 'add':
        cur = add(cur, o.path, clone(o.value!));
        break;
      case 'remove':
        if (o.path === '') throw patchNotApplicable(`error in remove for path: '': Unable to remove nonexistent key: : missing value`);
        cur = remove(cur, o.path)[0];
        break;
      case 'replace': {
        if (o.path === '') {
          cur = clone(o.value!);
          break;
        }
        if (get(cur, o.path, 'replace') === undefined) throw patchNotApplicable(`replace operation does not apply: doc is missing key: ${o.path}: missing value`);
        const [c, k] = parentOf(cur, o.path, 'replace');
        if (Array.isArray(c)) c[arrayIndex(c, k, false)] = clone(o.value!);
        else c[k] = clone(o.value!);
        break;
      }
      case 'move': {
        if (o.path.startsWith(`${o.from!}/`)) throw patchNotApplicable(`move operation does not apply: cannot move ${o.from!} into its own child ${o.path}`);
        if (get(cur, o.from!, 'moveFrom') === undefined) throw patchNotApplicable(`move operation does not apply: doc is missing from path: ${o.from!}: missing value`);
        const [d, v] = remove(cur, o.from!, 'moveFrom');
        cur = add(d, o.path, v, 'moveTo');
        break;
      }
      case 'copy': {
        const v = get(cur, o.from!, 'copyFrom');
        if (v === undefined) throw patchNotApplicable(`copy operation does not apply: doc is missing from path: ${o.from!}: missing value`);
        cur = add(cur, o.path, clone(v), 'copyTo');
        break;
      }
      case 'test': {
        const v = get(cur, o.path, 'test');
        if (v === undefined ? o.value !== null : !deepEqual(v, o.value!)) throw patchNotApplicable(`testing value ${o.path} failed: test failed`);
        break;
      }
    }
  }
  return cur;
}
