// Managed-fields tracking for every write that is not an apply: create,
// PUT, and the JSON, merge and strategic-merge patches. Called by those
// handlers with the stored object (undefined on create) and the object about
// to be stored; pure, never modifies its arguments; throws ApiError (400)
// only for a request whose managedFields have the wrong JSON shape.
import { FieldSet } from './fieldpath.js';
import { STRIPPED_FIELDS, capUpdateManagers, encodeManagedFields, liveManagers, managerIdentity, requestManagers, withManagedFields, withoutManagedFields } from './managed.js';
import { keepTimesOnNoop, withoutReset } from './apply.js';
import { type JsonObject, type ListTypes, compareObjects } from './walk.js';

export interface UpdateOptions {
  /** The `fieldManager` option, or managerFor(undefined, userAgent). */
  manager: string;
  /** The version of the endpoint the write came through. */
  apiVersion: string;
  /** The entry's time, RFC 3339 in seconds. */
  now: string;
  /** `status` for writes to the status subresource. */
  subresource?: string;
  listTypes: ListTypes;
  /** Fields the endpoint's strategy resets; nobody gains or loses them here. */
  resetFields?: FieldSet;
}

/**
 * `updated` with the managedFields this write leaves: the manager (as an
 * Update entry) gains every field the write added or changed (all of them
 * on create), other managers lose those and every removed field, entries
 * left empty go. A request may carry managedFields: a usable list replaces
 * the stored one, `[]` or `[{}]` clears it, anything else is ignored in
 * favour of the stored list; a subresource write's list is ignored. An
 * existing object without entries stays without (upstream only starts
 * tracking on create or apply). Beyond ten Update entries the oldest merge
 * into `ancient-changes`.
 */
export function recordUpdate(old: object | undefined, updated: object, opts: UpdateOptions): JsonObject {
  const prev = old as JsonObject | undefined;
  const next = updated as JsonObject;
  const subresource = opts.subresource ?? '';
  // A subresource write cannot set managedFields: the stored ones count (upstream's ignoreManagedFieldsFromRequestObject).
  const managers = subresource === '' ? requestManagers(prev, next) : liveManagers(prev);
  const body = withoutManagedFields(next);
  if (managers.size === 0 && prev !== undefined) return body;

  const reset = opts.resetFields ?? FieldSet.empty();
  const cmp = withoutReset(compareObjects(prev === undefined ? {} : withoutManagedFields(prev), body, opts.listTypes), reset);
  const changed = cmp.modified.union(cmp.added);
  for (const rec of managers.values()) rec.set = rec.set.difference(changed).difference(cmp.removed);

  const gained = changed.difference(STRIPPED_FIELDS);
  if (!gained.isEmpty()) {
    const manager = opts.manager === '' ? 'unknown' : opts.manager;
    const id = managerIdentity({ manager, operation: 'Update', apiVersion: opts.apiVersion, subresource });
    const before = managers.get(id)?.set ?? FieldSet.empty();
    managers.set(id, { manager, operation: 'Update', apiVersion: opts.apiVersion, subresource, time: opts.now, set: gained.union(before) });
  }
  capUpdateManagers(managers);
  return keepTimesOnNoop(prev, withManagedFields(body, encodeManagedFields(managers)));
}
