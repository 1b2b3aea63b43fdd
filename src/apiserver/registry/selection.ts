// Selections against one resource: the field set an object exposes
// (`metadata.name`, `metadata.namespace` and what the strategy declares), the
// 400 for a field the resource does not support, and one predicate over the
// object. Pure.
import { apiErrors } from '../../api/errors.js';
import type { ApiObject, Selection, Strategy } from './types.js';

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

export const isEverything = (s: Selection | undefined): boolean => s === undefined || (s.labels === undefined && s.fields === undefined);

/** One predicate for the selection; undefined when it selects everything. */
export function matcher(strategy: Strategy, selection: Selection | undefined): ((obj: ApiObject) => boolean) | undefined {
  if (selection === undefined || isEverything(selection)) return undefined;
  const { labels, fields } = selection;
  return (obj) => (labels === undefined || labels(obj.metadata.labels ?? {})) && (fields === undefined || fields(fieldSet(strategy, obj)));
}
