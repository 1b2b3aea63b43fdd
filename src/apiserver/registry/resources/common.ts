// Pieces the per-resource strategies share: the verb sets, field readers
// that tolerate any JSON shape, and small checks returning FieldErrors. Pure.
import type { FieldError } from '../../../api/errors.js';
import { isRecord } from '../object.js';
import type { ApiObject } from '../types.js';

export const OBJECT_VERBS: readonly string[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
export const STATUS_VERBS: readonly string[] = ['get', 'patch', 'update'];

/** `obj.a.b` as a string ('' when absent or not a string). */
export function str(obj: unknown, ...path: string[]): string {
  let v: unknown = obj;
  for (const p of path) v = isRecord(v) ? v[p] : undefined;
  return typeof v === 'string' ? v : '';
}

/** `obj.a.b` as a record (undefined when absent or not an object). */
export function rec(obj: unknown, ...path: string[]): Record<string, unknown> | undefined {
  let v: unknown = obj;
  for (const p of path) v = isRecord(v) ? v[p] : undefined;
  return isRecord(v) ? v : undefined;
}

export const spec = (obj: ApiObject): Record<string, unknown> | undefined => rec(obj, 'spec');

/** A field that must hold a string map (data, labels-like): type errors named per field. */
export function checkStringMap(value: unknown, field: string): FieldError[] {
  if (value === undefined || value === null) return [];
  if (!isRecord(value)) return [{ type: 'FieldValueTypeInvalid', field, value, detail: 'must be an object of strings' }];
  return Object.entries(value)
    .filter(([, v]) => typeof v !== 'string')
    .map(([k, v]) => ({ type: 'FieldValueTypeInvalid', field: `${field}[${k}]`, value: v, detail: 'must be a string' }));
}

export function checkOptionalType(value: unknown, type: 'string' | 'number' | 'boolean', field: string): FieldError[] {
  if (value === undefined || value === null || typeof value === type) return [];
  return [{ type: 'FieldValueTypeInvalid', field, value, detail: `must be a ${type}` }];
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** upstream's ValidateImmutableField. */
export function immutable(now: unknown, before: unknown, field: string): FieldError[] {
  return same(now, before) ? [] : [{ type: 'FieldValueInvalid', field, value: now, detail: 'field is immutable' }];
}

/** ConfigMaps and Secrets with `immutable: true`: data may not change, and the flag may not be unset. */
export function checkImmutableData(obj: ApiObject, old: ApiObject, dataFields: readonly string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push({ type: 'FieldValueForbidden', field: 'immutable', detail: 'field is immutable when `immutable` is set' });
  for (const f of dataFields) if (!same(obj[f], old[f])) errs.push({ type: 'FieldValueForbidden', field: f, detail: 'field is immutable when `immutable` is set' });
  return errs;
}
