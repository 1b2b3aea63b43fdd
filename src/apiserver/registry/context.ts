// What every verb of one resource's store works with, and the mapping of
// storage errors to API errors. Shared by store.ts, store-list.ts,
// store-watch.ts and store-delete.ts so each verb stays a small file.
import { apiErrors, type ApiError, type GroupKind, type GroupResource } from '../../api/errors.js';
import { isStorageError, type Storage, type StoredValue } from '../storage/interface.js';
import { withVersion } from './object.js';
import type { ApiObject, Clock, StorageCodec, Strategy } from './types.js';

export interface StoreOptions {
  /** Continue tokens older than this answer 410 (default 5 min, §4.6 rule 4). */
  continueTtlMs: number;
  /** How long a read at a future resourceVersion waits before 504 (default 3 s, §7 rule 1). */
  futureRevisionWaitMs: number;
  /** Bookmark interval of idle watches that allow them (default 60 s, as kube-apiserver). */
  bookmarkIntervalMs: number;
  /** Attempts of a guaranteed update under write contention before 409. */
  maxUpdateAttempts: number;
}

export const DEFAULT_STORE_OPTIONS: StoreOptions = {
  continueTtlMs: 5 * 60_000,
  futureRevisionWaitMs: 3_000,
  bookmarkIntervalMs: 60_000,
  maxUpdateAttempts: 16,
};

/** Hooks the registry gives a namespaced store (the namespace lifecycle). */
export interface StoreHooks {
  /** Before a create stores anything: 404 for a missing namespace, 403 for a terminating one. */
  admitCreate?(obj: ApiObject): Promise<void>;
  /** After an object was removed from storage (not on dry-run). Must not throw. */
  removed?(obj: ApiObject): Promise<void>;
}

export interface StoreContext {
  readonly storage: Storage;
  readonly codec: StorageCodec;
  readonly clock: Clock;
  readonly strategy: Strategy;
  readonly options: StoreOptions;
  readonly hooks: StoreHooks;
}

export const groupResource = (ctx: StoreContext): GroupResource => ({ group: ctx.strategy.info.group, resource: ctx.strategy.info.resource });
export const groupKind = (ctx: StoreContext): GroupKind => ({ group: ctx.strategy.info.group, kind: ctx.strategy.info.kind });

/** A stored value as clients read it. */
export function decodeStored(ctx: StoreContext, kv: StoredValue): ApiObject {
  return withVersion(ctx.codec.decode(kv.value), ctx.strategy.info, kv.modRevision);
}

/** Storage failures in API terms; anything else is rethrown unchanged. */
export function toApiError(ctx: StoreContext, e: unknown, name: string): unknown {
  if (!isStorageError(e)) return e;
  const gr = groupResource(ctx);
  switch (e.code) {
    case 'NotFound':
      return apiErrors.notFound(gr, name);
    case 'KeyExists':
      return apiErrors.alreadyExists(gr, name);
    case 'Conflict':
      return apiErrors.conflict(gr, name);
    case 'Compacted':
      return apiErrors.expired('The resourceVersion for the provided list is too old.');
    case 'FutureRevision':
      return apiErrors.tooLargeResourceVersion(1);
    case 'Unavailable':
    case 'Closed':
      return apiErrors.serviceUnavailable(`storage is unavailable: ${e.message}`);
  }
}

/** Throws `e` mapped by toApiError (for `catch (e) { rethrow(ctx, e, name) }`). */
export function rethrow(ctx: StoreContext, e: unknown, name: string): never {
  throw toApiError(ctx, e, name);
}

export const invalidError = (ctx: StoreContext, name: string, errs: Parameters<typeof apiErrors.invalid>[2]): ApiError =>
  apiErrors.invalid(groupKind(ctx), name, errs, ctx.strategy.omitValuesInErrors === true);
