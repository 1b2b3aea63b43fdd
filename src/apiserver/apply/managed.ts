// `metadata.managedFields` in and out: the per-manager field sets apply and
// update tracking work on, read from an object or a request and written back
// in upstream's order. Managers are keyed as kube-apiserver keys them: an
// Apply entry by (manager, subresource), an Update entry by (manager,
// apiVersion, subresource). Pure and synchronous.
import { apiErrors } from '../../api/errors.js';
import { type FieldsV1, FieldSet, FieldsV1Error } from './fieldpath.js';
import { type JsonObject, isObject } from './walk.js';
import { compareStrings } from '../../util/compare.js';

export type Operation = 'Apply' | 'Update';

/** One `metadata.managedFields` entry as it travels in JSON. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: FieldsV1;
  subresource?: string;
}

/** One manager's entry while apply or update tracking works on it. */
export interface ManagerRecord {
  manager: string;
  operation: Operation;
  apiVersion: string;
  /** '' for the main resource. */
  subresource: string;
  time: string | undefined;
  set: FieldSet;
}

/** Entries by manager identity (see managerIdentity). */
export type Managers = Map<string, ManagerRecord>;

/**
 * The key that makes two writes the same manager: upstream's JSON of the
 * entry without time and fields, and without apiVersion for appliers (an
 * applier keeps its entry when it moves to another version). Conflict
 * messages list managers in the order of these keys.
 */
export function managerIdentity(r: Pick<ManagerRecord, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const id: Record<string, string> = { manager: r.manager, operation: r.operation };
  if (r.operation === 'Update' && r.apiVersion !== '') id.apiVersion = r.apiVersion;
  if (r.subresource !== '') id.subresource = r.subresource;
  return JSON.stringify(id);
}

/** Why stored or sent managedFields cannot be used; upstream then falls back to the live object's. */
export class ManagedFieldsDecodeError extends Error {
  override name = 'ManagedFieldsDecodeError';
}

/** Reads entries whose JSON shape is already checked; throws ManagedFieldsDecodeError on content upstream refuses. */
export function decodeManagedFields(entries: readonly unknown[]): Managers {
  const out: Managers = new Map();
  entries.forEach((raw, i) => {
    const e = isObject(raw) ? raw : {};
    const str = (k: string): string => (typeof e[k] === 'string' ? (e[k] as string) : '');
    const operation = str('operation');
    if (operation !== 'Apply' && operation !== 'Update') throw new ManagedFieldsDecodeError('operation must be `Apply` or `Update`');
    if (str('apiVersion') === '') throw new ManagedFieldsDecodeError('apiVersion must not be empty');
    if (str('fieldsType') === '') throw new ManagedFieldsDecodeError(`missing fieldsType in managed fields entry ${i}`);
    if (str('fieldsType') !== 'FieldsV1') throw new ManagedFieldsDecodeError(`invalid fieldsType ${JSON.stringify(str('fieldsType'))} in managed fields entry ${i}`);
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e.fieldsV1 ?? {}, `managedFields[${i}].fieldsV1`);
    } catch (err) {
      if (err instanceof FieldsV1Error) throw new ManagedFieldsDecodeError(`error decoding versioned set: ${err.message}`);
      throw err;
    }
    const rec: ManagerRecord = { manager: str('manager'), operation, apiVersion: str('apiVersion'), subresource: str('subresource'), time: typeof e.time === 'string' ? e.time : undefined, set };
    out.set(managerIdentity(rec), rec);
  });
  return out;
}

/** The live object's managers; an undecodable stored list counts as none, as upstream. */
export function liveManagers(obj: JsonObject | undefined): Managers {
  const mf = isObject(obj?.metadata) ? obj.metadata.managedFields : undefined;
  if (!Array.isArray(mf)) return new Map();
  try {
    return decodeManagedFields(mf);
  } catch (e) {
    if (e instanceof ManagedFieldsDecodeError) return new Map();
    throw e;
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Rejects managedFields a request body cannot carry at all (the decode
 * errors upstream answers 400 for: wrong JSON types, a time that is not
 * RFC 3339). Content upstream merely ignores (an unknown operation, a bad
 * FieldsV1 key) passes here and is dropped by requestManagers.
 */
export function checkManagedFieldsShape(value: unknown, field = 'metadata.managedFields'): void {
  if (value === undefined || value === null) return;
  const bad = (at: string, why: string): never => {
    throw apiErrors.badRequest(`${at}: ${why}`, [{ reason: 'FieldValueInvalid', message: why, field: at }]);
  };
  if (!Array.isArray(value)) bad(field, 'must be a list of managed fields entries');
  (value as unknown[]).forEach((e, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(e)) return bad(at, 'must be an object');
    for (const k of ['manager', 'operation', 'apiVersion', 'fieldsType', 'subresource', 'time']) {
      if (e[k] !== undefined && e[k] !== null && typeof e[k] !== 'string') bad(`${at}.${k}`, 'must be a string');
    }
    if (typeof e.time === 'string' && (!RFC3339.test(e.time) || Number.isNaN(Date.parse(e.time)))) bad(`${at}.time`, 'must be an RFC 3339 time');
    if (e.fieldsV1 !== undefined && e.fieldsV1 !== null && !isObject(e.fieldsV1)) bad(`${at}.fieldsV1`, 'must be an object');
  });
}

/** `[]` or `[{}]`: the request asks to drop every entry. */
export function isResetManagedFields(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  return value.length === 0 || (value.length === 1 && isObject(value[0]) && Object.keys(value[0]).length === 0);
}

/**
 * The managers a non-apply write starts from (upstream's decodeManagedFields):
 * the request's own list when it sends a usable one, none when it sends
 * `[]` or `[{}]`, else the live object's (so clients that do not know the
 * field never erase it). Throws 400 for a list of the wrong shape.
 */
export function requestManagers(live: JsonObject | undefined, updated: JsonObject): Managers {
  const sent = isObject(updated.metadata) ? updated.metadata.managedFields : undefined;
  checkManagedFieldsShape(sent);
  if (isResetManagedFields(sent)) return new Map();
  if (Array.isArray(sent)) {
    try {
      const m = decodeManagedFields(sent);
      if (m.size > 0) return m;
    } catch (e) {
      if (!(e instanceof ManagedFieldsDecodeError)) throw e;
    }
  }
  return liveManagers(live);
}

const seconds = (t: string | undefined): number => (t === undefined ? 0 : Math.floor(Date.parse(t) / 1000) || 0);

/** The entries to store, empty sets dropped, in upstream's order: operation, time, manager, apiVersion, subresource. */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] {
  const recs = [...managers.values()].filter((r) => !r.set.isEmpty());
  recs.sort((p, q) => compareStrings(p.operation, q.operation) || seconds(p.time) - seconds(q.time) || compareStrings(p.manager, q.manager) || compareStrings(p.apiVersion, q.apiVersion) || compareStrings(p.subresource, q.subresource));
  return recs.map((r) => ({
    manager: r.manager,
    operation: r.operation,
    apiVersion: r.apiVersion,
    ...(r.time === undefined ? {} : { time: r.time }),
    fieldsType: 'FieldsV1' as const,
    fieldsV1: r.set.toFieldsV1(),
    ...(r.subresource === '' ? {} : { subresource: r.subresource }),
  }));
}

/** Upstream's DefaultMaxUpdateManagers and the bucket older Update entries go into. */
export const MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES = 'ancient-changes';

/**
 * Keeps the number of Update entries at `max` (upstream's capManagers, run
 * after every non-apply write): from the oldest on, the second and later
 * entries of one version are merged into an `ancient-changes` bucket of
 * that version, which takes the time of the newest entry merged. Modifies
 * `managers`.
 */
export function capUpdateManagers(managers: Managers, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...managers.entries()].filter(([, r]) => r.operation === 'Update').map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => seconds(managers.get(a)?.time) - seconds(managers.get(b)?.time) || compareStrings(a, b));
  const firstOfVersion = new Map<string, string>();
  let count = updaters.length;
  for (let i = 0; i < updaters.length && count > max; i++) {
    const id = updaters[i]!;
    const rec = managers.get(id);
    if (rec === undefined) continue;
    const first = firstOfVersion.get(rec.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(rec.apiVersion, id);
      continue;
    }
    const bucketId = managerIdentity({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: rec.apiVersion, subresource: '' });
    let bucket = managers.get(bucketId);
    if (bucket === undefined) {
      const moved = managers.get(first);
      managers.delete(first);
      bucket = { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: rec.apiVersion, subresource: '', time: moved?.time, set: moved?.set ?? FieldSet.empty() };
      managers.set(bucketId, bucket);
    }
    bucket.set = bucket.set.union(rec.set);
    bucket.time = rec.time;
    managers.delete(id);
    count--;
  }
}

/** Fields no manager owns: identity and server-set metadata (upstream's stripMeta). */
export const STRIPPED_FIELDS = FieldSet.of([
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ['f:metadata', 'f:name'],
  ['f:metadata', 'f:namespace'],
  ['f:metadata', 'f:creationTimestamp'],
  ['f:metadata', 'f:selfLink'],
  ['f:metadata', 'f:uid'],
  ['f:metadata', 'f:clusterName'],
  ['f:metadata', 'f:generation'],
  ['f:metadata', 'f:managedFields'],
  ['f:metadata', 'f:resourceVersion'],
]);

/** `obj` without `metadata.managedFields` (a copy; the walks never see the entries). */
export function withoutManagedFields(obj: JsonObject): JsonObject {
  if (!isObject(obj.metadata) || !Object.hasOwn(obj.metadata, 'managedFields')) return obj;
  const metadata = { ...obj.metadata };
  delete metadata.managedFields;
  return { ...obj, metadata };
}

/** `obj` carrying `entries` (none: the field is left out). */
export function withManagedFields(obj: JsonObject, entries: readonly ManagedFieldsEntry[]): JsonObject {
  const base = withoutManagedFields(obj);
  if (entries.length === 0) return base;
  return { ...base, metadata: { ...(isObject(base.metadata) ? base.metadata : {}), managedFields: entries } };
}
