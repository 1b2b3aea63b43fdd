// Server-side apply (PATCH with application/apply-patch+yaml) on JSON-form
// objects: merge the configuration, drop what the applier stopped applying,
// move ownership, and refuse (409) to change fields other managers own
// unless forced. Called by the PATCH handler with the live object (or
// undefined to create) after decoding the body; pure, no I/O, never modifies
// its arguments; throws ApiError.
import { ApiError, apiErrors } from '../../api/errors.js';
import { type FieldPath, FieldSet, parseElement, pathString } from './fieldpath.js';
import { type ManagerRecord, type Managers, STRIPPED_FIELDS, encodeManagedFields, liveManagers, managerIdentity, withManagedFields, withoutManagedFields } from './managed.js';
import { mergeObjects, removePaths } from './merge.js';
import { type Comparison, type JsonObject, type ListTypes, compareObjects, isObject, jsonEqual, objectFieldSet } from './walk.js';

export interface ApplyOptions {
  /** The `fieldManager` option (required for apply; checkPatchOptions enforces it). */
  manager: string;
  /** The `force` option: take conflicting fields over instead of failing. */
  force: boolean;
  /** The version of the endpoint (`v1`, `coordination.platform.io/v1`); the configuration must use it. */
  apiVersion: string;
  /** The entry's time, RFC 3339 in seconds (`2026-01-02T03:04:05Z`). */
  now: string;
  /** `status` for writes to the status subresource. */
  subresource?: string;
  listTypes: ListTypes;
  /**
   * Fields this endpoint's strategy resets (status on the main resource,
   * all but status on /status): nobody gains or loses them here, as
   * upstream's ignored fields.
   */
  resetFields?: FieldSet;
}

/** A conflicting manager with the fields it would lose. */
interface Conflict {
  id: string;
  rec: ManagerRecord;
  paths: FieldPath[];
}

/** How conflict messages name a manager (upstream's printManager). */
export function printManager(rec: Pick<ManagerRecord, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let s = JSON.stringify(rec.manager);
  if (rec.subresource !== '') s += ` with subresource ${JSON.stringify(rec.subresource)}`;
  return rec.operation === 'Update' ? `${s} using ${rec.apiVersion}` : s;
}

/** The 409 for apply conflicts, with upstream's message and one cause per field. */
export function conflictError(conflicts: readonly Conflict[]): ApiError {
  const sorted = [...conflicts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const all = sorted.flatMap((c) => c.paths.map((p) => ({ who: printManager(c.rec), field: pathString(p) })));
  const first = all[0];
  const message =
    all.length === 1 && first !== undefined
      ? `Apply failed with 1 conflict: conflict with ${first.who}: ${first.field}`
      : `Apply failed with ${all.length} conflicts: ${sorted.map((c) => [`conflicts with ${printManager(c.rec)}:`, ...c.paths.map((p) => `- ${pathString(p)}`)].join('\n')).join('\n')}`;
  return new ApiError(409, 'Conflict', message, { details: { causes: all.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.who}`, field: c.field })) } });
}

/** A comparison without the fields the endpoint resets. */
export function withoutReset(c: Comparison, reset: FieldSet | undefined): Comparison {
  if (reset === undefined) return c;
  return { added: c.added.withoutPrefixes(reset), modified: c.modified.withoutPrefixes(reset), removed: c.removed.withoutPrefixes(reset) };
}

/** A key field of a list element (`k:{"name":"c"}` then `f:name`): it goes only with its element. */
function isKeyField(path: FieldPath): boolean {
  const last = path[path.length - 1];
  const prev = path[path.length - 2];
  if (last === undefined || prev === undefined || !prev.startsWith('k:') || !last.startsWith('f:')) return false;
  const e = parseElement(prev);
  return e.kind === 'key' && Object.hasOwn(e.fields, last.slice(2));
}

/**
 * The fields to remove because the applier applied them last time and no
 * longer does, unless a manager (the applier included) still owns them or
 * something inside them.
 */
function stoppedApplying(last: FieldSet | undefined, managers: Managers): FieldSet {
  if (last === undefined) return FieldSet.empty();
  let owned = FieldSet.empty();
  for (const r of managers.values()) owned = owned.union(r.set);
  return FieldSet.of(
    last
      .difference(owned)
      .paths()
      .filter((p) => !owned.hasBelow(p) && !isKeyField(p)),
  );
}

/** The result with the current object's entry times when nothing but times changed (no spurious new revision). */
export function keepTimesOnNoop(current: JsonObject | undefined, result: JsonObject): JsonObject {
  if (current === undefined || !jsonEqual(withoutManagedFields(current), withoutManagedFields(result))) return result;
  const untimed = (o: JsonObject): unknown => {
    const mf = isObject(o.metadata) ? o.metadata.managedFields : undefined;
    return Array.isArray(mf) ? mf.map((e: unknown) => (isObject(e) ? { ...e, time: undefined } : e)) : [];
  };
  return jsonEqual(untimed(current), untimed(result)) ? structuredClone(current) : result;
}

function checkConfig(config: unknown, apiVersion: string): JsonObject {
  if (!isObject(config)) throw apiErrors.badRequest('the apply configuration must be an object');
  const version = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  if (version !== apiVersion) throw apiErrors.badRequest(`Incorrect version specified in apply patch. Specified patch version: ${version}, expected: ${apiVersion}`);
  const mf = isObject(config.metadata) ? config.metadata.managedFields : undefined;
  if (mf !== undefined && mf !== null) throw apiErrors.badRequest('metadata.managedFields must be nil');
  return config;
}

/**
 * Applies `config` as `opts.manager` to `current` (undefined: the object is
 * created from the configuration) and returns the object to store, with
 * its managedFields updated. Throws 400 for a configuration upstream
 * refuses and 409 (reason Conflict, one FieldManagerConflict cause per
 * field) when it changes fields other managers own and `force` is false.
 */
export function applyConfig(current: object | undefined, config: object, opts: ApplyOptions): JsonObject {
  const cfg = checkConfig(config, opts.apiVersion);
  const cur = current as JsonObject | undefined;
  const live = cur === undefined ? {} : withoutManagedFields(cur);
  const managers = liveManagers(cur);
  const subresource = opts.subresource ?? '';
  const reset = opts.resetFields ?? FieldSet.empty();

  const applied = objectFieldSet(withoutManagedFields(cfg), opts.listTypes, 'strict').difference(STRIPPED_FIELDS).withoutPrefixes(reset);
  const merged = mergeObjects(live, withoutManagedFields(cfg), opts.listTypes);
  const id = managerIdentity({ manager: opts.manager, operation: 'Apply', apiVersion: opts.apiVersion, subresource });
  const last = managers.get(id)?.set;
  managers.set(id, { manager: opts.manager, operation: 'Apply', apiVersion: opts.apiVersion, subresource, time: opts.now, set: applied });
  const pruned = removePaths(merged, stoppedApplying(last, managers), opts.listTypes);

  const cmp = withoutReset(compareObjects(live, pruned, opts.listTypes), reset);
  const changed = cmp.modified.union(cmp.added);
  const conflicts: Conflict[] = [];
  for (const [otherId, rec] of managers) {
    if (otherId === id) continue;
    const lost = rec.set.intersection(changed);
    if (!lost.isEmpty()) conflicts.push({ id: otherId, rec, paths: lost.paths() });
  }
  if (conflicts.length > 0 && !opts.force) throw conflictError(conflicts);
  for (const [otherId, rec] of managers) {
    if (otherId !== id) rec.set = rec.set.difference(changed).difference(cmp.removed);
  }
  return keepTimesOnNoop(cur, withManagedFields(pruned, encodeManagedFields(managers)));
}
