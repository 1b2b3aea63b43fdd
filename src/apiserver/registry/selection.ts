// Selections against one resource: the field set an object exposes
// (`metadata.name`, `metadata.namespace` and what the strategy declares), the
// 400 for a field the resource does not support, and one predicate over the
// object. Pure.
import { apiErrors } from '../../api/errors.js';
import { listPrefix, objectKey } from './object.js';
import type { ApiObject, ObjectMeta, Selection, Strategy } from './types.js';

const COMMON_FIELDS: readonly string[] = ['metadata.name', 'metadata.namespace'];

export function supportedFields(strategy: Strategy): readonly string[] {
  return [...COMMON_FIELDS, ...(strategy.selectableFields ?? [])];
}

export function fieldSet(strategy: Strategy, obj: ApiObject): Record<string, string> {
  const base: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
  // upstream's DefaultClusterScopedAttr has no namespace field; namespaced objects always do.
  if (strategy.info.namespaced) base['metadata.namespace'] = obj.metadata.namespace ?? '';
  return { ...base, ...(strategy.fields?.(obj) ?? {}) };
}

/** Throws 400 `field label not supported: <f>` for a field the resource cannot be selected by. */
export function checkSelection(strategy: Strategy, selection: Selection | undefined): void {
  const ok = supportedFields(strategy);
  for (const f of selection?.fieldNames ?? []) {
    if (!ok.includes(f)) throw apiErrors.badRequest(`field label not supported: ${f}`);
  }
}

export const isEverything = (s: Selection | undefined): boolean => s === undefined || (s.labels === undefined && s.fields === undefined && s.hint === undefined);

/** One predicate for the selection (the hint is a requirement too); undefined when it selects everything. */
export function matcher(strategy: Strategy, selection: Selection | undefined): ((obj: ApiObject) => boolean) | undefined {
  if (selection === undefined || isEverything(selection)) return undefined;
  const { labels, fields, hint } = selection;
  return (obj) => {
    if (labels !== undefined && !labels(obj.metadata.labels ?? {})) return false;
    if (fields === undefined && hint === undefined) return true;
    const set = fieldSet(strategy, obj);
    return (hint === undefined || set[hint.field] === hint.value) && (fields === undefined || fields(set));
  };
}

/**
 * The predicate over metadata alone, when the selection needs nothing else
 * (labels, `metadata.name`, `metadata.namespace`): a list then decodes only
 * each object's metadata to select it. undefined when it needs more (or
 * selects everything).
 */
export function metadataMatcher(strategy: Strategy, selection: Selection | undefined): ((meta: ObjectMeta) => boolean) | undefined {
  if (selection === undefined || isEverything(selection)) return undefined;
  const named = [...(selection.fieldNames ?? []), ...(selection.hint === undefined ? [] : [selection.hint.field])];
  if (!named.every((f) => COMMON_FIELDS.includes(f))) return undefined;
  const { labels, fields, hint } = selection;
  return (meta) => {
    if (labels !== undefined && !labels(meta.labels ?? {})) return false;
    if (fields === undefined && hint === undefined) return true;
    const set: Record<string, string> = { 'metadata.name': meta.name ?? '' };
    if (strategy.info.namespaced) set['metadata.namespace'] = meta.namespace ?? '';
    return (hint === undefined || set[hint.field] === hint.value) && (fields === undefined || fields(set));
  };
}

/**
 * The storage prefix a list or watch reads: the resource's, narrowed to a
 * namespace, or to one key when the selection pins `metadata.name` (the
 * agent's per-object watches of secrets and configmaps, its node watch).
 * The predicate still decides; the prefix only saves reading the rest.
 */
export function selectionPrefix(strategy: Strategy, namespace: string, selection: Selection | undefined): string {
  const { info } = strategy;
  const hint = selection?.hint;
  let ns = namespace;
  if (hint?.field === 'metadata.namespace' && info.namespaced && ns === '' && hint.value !== '' && !hint.value.includes('/')) ns = hint.value;
  if (hint?.field === 'metadata.name' && hint.value !== '' && !hint.value.includes('/') && (!info.namespaced || ns !== '')) return objectKey(info, ns, hint.value);
  return listPrefix(info, ns);
}
