// Transforms an informer applies to every object before it enters the store
// and before any handler sees it (client-go's SetTransform): the cache keeps
// only what its readers use. Called by the reflector, synchronously, once per
// listed or watched object (never for BOOKMARKs), on the object the
// ListerWatcher handed over (the informer then owns it), so a transform may
// return the same object changed or a new one; it must keep metadata.name, namespace
// and resourceVersion, which the store and the reflector read after it.
import type { ApiObject } from '../types.js';

export type ObjectTransform = (obj: ApiObject) => ApiObject;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Drops metadata.managedFields (server-side apply's bookkeeping, a third of a
 * small pod's heap): the agent never reads it, and upstream's scheduler and
 * controller-manager strip it from their informers the same way. The
 * metadata is rebuilt rather than `delete`d from, so it keeps V8's fast
 * (compact, shared-shape) properties. Idempotent.
 */
export function stripManagedFields(obj: ApiObject): ApiObject {
  const meta = obj['metadata'];
  if (!isRecord(meta) || !('managedFields' in meta)) return obj;
  const { managedFields: _dropped, ...rest } = meta;
  obj['metadata'] = rest;
  return obj;
}

