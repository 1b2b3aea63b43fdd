// ObjectMeta as the upstream API validates it (apimachinery
// api/validation/objectmeta.go, and core's finalizer rule): on create the name
// or generateName, the namespace for the scope, labels, annotations (keys and
// the 256 KiB total), finalizers, ownerReferences; on update the immutable
// system fields. Every problem is a FieldError under `metadata.`; the store
// turns the list into one 422. Pure.
import type { FieldError } from '../../api/errors.js';
import type { NameRule, ObjectMeta } from '../registry/types.js';
import { isLabelValue, isQualifiedName, isValidPathSegmentName, nameIsDnsLabel, nameIsDnsSubdomain } from './names.js';

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** Finalizer names that need no domain prefix (core's standard finalizers, renamed). */
export const STANDARD_FINALIZERS: readonly string[] = ['platform', 'orphan', 'foregroundDeletion'];

export type NameValidator = (name: string, prefix: boolean) => string[];

export function nameValidator(rule: NameRule): NameValidator {
  switch (rule) {
    case 'subdomain':
      return nameIsDnsSubdomain;
    case 'label':
      return nameIsDnsLabel;
    case 'path-segment':
      return isValidPathSegmentName;
  }
}

const invalid = (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, value, detail });

export function validateLabels(labels: Readonly<Record<string, string>> | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const m of isQualifiedName(k)) errs.push(invalid(field, k, m));
    for (const m of isLabelValue(v)) errs.push(invalid(field, v, m));
  }
  return errs;
}

export function validateAnnotations(annotations: Readonly<Record<string, string>> | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalid(field, k, m));
    size += Buffer.byteLength(k) + Buffer.byteLength(typeof v === 'string' ? v : '');
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push({ type: 'FieldValueTooLong', field, value: '', detail: `must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes` });
  return errs;
}

export function validateFinalizers(finalizers: readonly string[] | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers ?? []) {
    const problems = isQualifiedName(f);
    for (const m of problems) errs.push(invalid(field, f, m));
    if (problems.length === 0 && !STANDARD_FINALIZERS.includes(f) && !f.includes('/')) {
      errs.push(invalid(field, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  }
  const list = finalizers ?? [];
  if (list.includes('orphan') && list.includes('foregroundDeletion')) errs.push(invalid(field, list, 'finalizer orphan and foregroundDeletion cannot be both set'));
  return errs;
}

export function validateOwnerReferences(refs: ObjectMeta['ownerReferences'], field: string): FieldError[] {
  const errs: FieldError[] = [];
  let controllers = 0;
  (refs ?? []).forEach((r, i) => {
    const at = `${field}[${i}]`;
    if (typeof r.apiVersion !== 'string' || r.apiVersion === '') errs.push(invalid(`${at}.apiVersion`, r.apiVersion, 'version must not be empty'));
    if (typeof r.kind !== 'string' || r.kind === '') errs.push(invalid(`${at}.kind`, r.kind, 'kind must not be empty'));
    if (typeof r.name !== 'string' || r.name === '') errs.push(invalid(`${at}.name`, r.name, 'name must not be empty'));
    if (typeof r.uid !== 'string' || r.uid === '') errs.push(invalid(`${at}.uid`, r.uid, 'uid must not be empty'));
    if (r.controller === true) controllers++;
  });
  if (controllers > 1) errs.push(invalid(field, refs, 'Only one reference can have Controller set to true'));
  return errs;
}

const typeError = (field: string, value: unknown, what: string): FieldError => ({ type: 'FieldValueTypeInvalid', field, value, detail: `must be ${what}` });

function isStringMap(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

/** JSON types of the metadata fields the checks read; other checks run only when these hold. */
export function checkMetaTypes(meta: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp'] as const) {
    if (meta[f] !== undefined && meta[f] !== null && typeof meta[f] !== 'string') errs.push(typeError(`metadata.${f}`, meta[f], 'a string'));
  }
  for (const f of ['labels', 'annotations'] as const) {
    if (meta[f] !== undefined && meta[f] !== null && !isStringMap(meta[f])) errs.push(typeError(`metadata.${f}`, meta[f], 'an object of strings'));
  }
  const fin = meta.finalizers as unknown;
  if (fin !== undefined && fin !== null && !(Array.isArray(fin) && fin.every((x) => typeof x === 'string'))) errs.push(typeError('metadata.finalizers', fin, 'an array of strings'));
  const refs = meta.ownerReferences as unknown;
  if (refs !== undefined && refs !== null && !(Array.isArray(refs) && refs.every((r) => r !== null && typeof r === 'object'))) errs.push(typeError('metadata.ownerReferences', refs, 'an array of objects'));
  for (const f of ['generation', 'deletionGracePeriodSeconds'] as const) {
    if (meta[f] !== undefined && meta[f] !== null && !Number.isInteger(meta[f])) errs.push(typeError(`metadata.${f}`, meta[f], 'an integer'));
  }
  return errs;
}

/** upstream's ValidateObjectMeta for a create (name already generated if generateName was used). */
export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, validateName: NameValidator): FieldError[] {
  const types = checkMetaTypes(meta);
  if (types.length > 0) return types;
  const errs: FieldError[] = [];
  const name = meta.name ?? '';
  if (meta.generateName !== undefined && meta.generateName !== '') {
    for (const m of validateName(meta.generateName, true)) errs.push(invalid('metadata.generateName', meta.generateName, m));
  }
  if (name === '') errs.push({ type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' });
  else for (const m of validateName(name, false)) errs.push(invalid('metadata.name', name, m));
  const ns = meta.namespace ?? '';
  if (namespaced) {
    if (ns === '') errs.push({ type: 'FieldValueRequired', field: 'metadata.namespace' });
    else for (const m of nameIsDnsLabel(ns, false)) errs.push(invalid('metadata.namespace', ns, m));
  } else if (ns !== '') {
    errs.push({ type: 'FieldValueForbidden', field: 'metadata.namespace', detail: 'not allowed on this type' });
  }
  if (meta.generation !== undefined && meta.generation < 0) errs.push(invalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'));
  errs.push(...validateFinalizers(meta.finalizers, 'metadata.finalizers'));
  return errs;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function immutable(field: string, now: unknown, before: unknown): FieldError[] {
  return same(now, before) ? [] : [invalid(field, now, 'field is immutable')];
}

/** upstream's ValidateObjectMetaUpdate: the new metadata, already through the store's system-field carry-over. */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta, namespaced: boolean, validateName: NameValidator): FieldError[] {
  const types = checkMetaTypes(meta);
  if (types.length > 0) return types;
  const errs: FieldError[] = [];
  if (old.deletionTimestamp !== undefined) {
    const added = (meta.finalizers ?? []).filter((f) => !(old.finalizers ?? []).includes(f));
    if (added.length > 0) errs.push({ type: 'FieldValueForbidden', field: 'metadata.finalizers', detail: `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}` });
  }
  errs.push(...immutable('metadata.name', meta.name ?? '', old.name ?? ''));
  errs.push(...immutable('metadata.namespace', meta.namespace ?? '', old.namespace ?? ''));
  errs.push(...immutable('metadata.uid', meta.uid ?? '', old.uid ?? ''));
  errs.push(...immutable('metadata.creationTimestamp', meta.creationTimestamp, old.creationTimestamp));
  errs.push(...immutable('metadata.deletionTimestamp', meta.deletionTimestamp, old.deletionTimestamp));
  errs.push(...immutable('metadata.deletionGracePeriodSeconds', meta.deletionGracePeriodSeconds, old.deletionGracePeriodSeconds));
  // The rest as on create, except the name (immutable above) and generateName (no longer used).
  const rest = validateObjectMeta({ ...meta, generateName: undefined }, namespaced, validateName).filter((e) => e.field !== 'metadata.name' && e.field !== 'metadata.namespace');
  return [...errs, ...rest];
}
