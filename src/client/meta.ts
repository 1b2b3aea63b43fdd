// Reading an object's metadata without trusting its shape: what the rest
// layer, the informer and the node writers all need from a decoded object
// (a missing or wrongly typed field reads as '' or {}). Pure.
import type { ApiObject } from './types.js';

/** `obj.metadata` when it is an object, else {}. */
export const metaOf = (obj: ApiObject): Record<string, unknown> => {
  const m = obj['metadata'];
  return typeof m === 'object' && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>) : {};
};

/** `v` when it is a string, else ''. */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const nameOf = (obj: ApiObject): string => str(metaOf(obj)['name']);
export const namespaceOf = (obj: ApiObject): string => str(metaOf(obj)['namespace']);
export const resourceVersionOf = (obj: ApiObject): string => str(metaOf(obj)['resourceVersion']);
/**
 * Drops metadata.managedFields (server-side apply's bookkeeping, a third of a
 * small pod's heap) for readers that never look at it; upstream's scheduler
 * and controller-manager strip it from their informers the same way. The
 * metadata is rebuilt rather than `delete`d from, so it keeps V8's fast
 * (compact, shared-shape) properties. Idempotent; returns `obj`, changed.
 */
export function stripManagedFields(obj: ApiObject): ApiObject {
  const meta = obj['metadata'];
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta) || !('managedFields' in meta)) return obj;
  const { managedFields: _dropped, ...rest } = meta as Record<string, unknown>;
  obj['metadata'] = rest;
  return obj;
}

/** The uid, undefined when absent or empty. */
export const uidOf = (obj: ApiObject): string | undefined => str(metaOf(obj)['uid']) || undefined;
