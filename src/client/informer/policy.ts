// The reflector's decisions as pure functions (client-go tools/cache
// reflector.go and tools/pager, v0.28): which version and page size a list
// asks for, what a watch asks for, and what an error means for the next
// step. No I/O, no timers; table-tested. The reflector (reflector.ts) is the
// only caller.
import { isApiError, isGone, isInvalid } from '../../api/errors.js';
import { isClientConnectionError } from '../errors.js';
import type { ListOptions, WatchOptions } from '../types.js';

/** The pager's default `limit`. */
export const DEFAULT_PAGE_SIZE = 500;
/** Watches ask the server for a timeout in [MIN, 2 × MIN) seconds. */
export const MIN_WATCH_TIMEOUT_S = 300;
/** A watch that ends cleanly sooner than this with no event is a failure (client-go's "very short watch"). */
export const SHORT_WATCH_MS = 1_000;
export const INITIAL_EVENTS_END_ANNOTATION = 'platform.io/initial-events-end';

/** What the reflector remembers between rounds. */
export interface SyncState {
  /** The last version seen (list, event or bookmark); '' before the first list. */
  readonly lastSyncRv: string;
  /** The last list or watch said that version is gone (410) or not yet there (too large): read consistently next. */
  readonly rvUnavailable: boolean;
  /** An earlier list came back in pages although it asked at '0': the server pages, keep paging. */
  readonly paginatedResult: boolean;
}

export const INITIAL_SYNC_STATE: SyncState = { lastSyncRv: '', rvUnavailable: false, paginatedResult: false };

/** '' (consistent) after a 410 / too-large version, '0' (any) before the first sync, else the last version. */
export function relistResourceVersion(s: SyncState): string {
  if (s.rvUnavailable) return '';
  return s.lastSyncRv === '' ? '0' : s.lastSyncRv;
}

/**
 * The `limit` of a list at `rv`: the configured page size; else keep paging
 * when the server paged before; else none for a specific version (so a
 * server with a watch cache can answer it, "not older than"); else the
 * pager's default. undefined: one unpaged request.
 */
export function listPageSize(s: SyncState, rv: string, configured: number | undefined): number | undefined {
  if (configured !== undefined && configured > 0) return configured;
  if (s.paginatedResult) return DEFAULT_PAGE_SIZE;
  if (rv !== '' && rv !== '0') return undefined;
  return DEFAULT_PAGE_SIZE;
}

/** What every list and watch of the informer asks for. */
export interface Selectors {
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  readonly omitManagedFields?: boolean | undefined;
}

const selectorsOf = (sel: Selectors): Pick<ListOptions, 'labelSelector' | 'fieldSelector' | 'omitManagedFields'> => ({
  ...(sel.labelSelector === undefined ? {} : { labelSelector: sel.labelSelector }),
  ...(sel.fieldSelector === undefined ? {} : { fieldSelector: sel.fieldSelector }),
  ...(sel.omitManagedFields === true ? { omitManagedFields: true } : {}),
});

/** The first page of a list round (continuation pages are the pager's). */
export function listRequest(s: SyncState, configuredPageSize: number | undefined, sel: Selectors): ListOptions {
  const resourceVersion = relistResourceVersion(s);
  const limit = listPageSize(s, resourceVersion, configuredPageSize);
  return { ...selectorsOf(sel), resourceVersion, ...(limit === undefined ? {} : { limit }) };
}

const watchTimeout = (random: number): number => Math.floor(MIN_WATCH_TIMEOUT_S * (1 + random));

/** A watch resuming from `rv` (the last version seen), with bookmarks. */
export function watchRequest(rv: string, random: number, sel: Selectors): WatchOptions {
  return { ...selectorsOf(sel), resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: watchTimeout(random) };
}

/** A streaming list: initial events not older than the last version ('' after a 410 or before the first sync). */
export function watchListRequest(s: SyncState, random: number, sel: Selectors): WatchOptions {
  const resourceVersion = s.rvUnavailable ? '' : s.lastSyncRv;
  return { ...selectorsOf(sel), resourceVersion, resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true, timeoutSeconds: watchTimeout(random) };
}

/** 410 Expired/Gone: the version (or continue token) is older than the server's history. */
export const isExpired = (e: unknown): boolean => isGone(e);

/** §7: a version the server has not reached yet (cause ResourceVersionTooLarge, or the message of older servers). */
export function isTooLargeResourceVersion(e: unknown): boolean {
  if (!isApiError(e)) return false;
  if (e.details?.causes?.some((c) => c.reason === 'ResourceVersionTooLarge') === true) return true;
  return e.code === 504 && e.message.includes('Too large resource version');
}

/** A list error after which the next list reads consistently (resourceVersion ''). */
export const listNeedsConsistentRead = (e: unknown): boolean => isExpired(e) || isTooLargeResourceVersion(e);

/** Opening a watch failed in a way that leaves the version valid: back off and re-open it, no relist (429, no connection). */
export const watchStartRetriable = (e: unknown): boolean => isClientConnectionError(e) || (isApiError(e) && e.code === 429);

/** The server refuses streaming lists (WatchList gate off): 422 Invalid ListOptions. */
export const watchListUnsupported = (e: unknown): boolean => isInvalid(e);

/** How a watch that is over ends the round. */
export type WatchEnd =
  /** Clean end (or a reset): re-open from the last version at once. */
  | 'rewatch'
  /** 429 while watching: back off, re-open, no relist. */
  | 'backoff-rewatch'
  /** Anything else (410, a short watch, bad input, 5xx): back off, then list again. */
  | 'relist';

/**
 * A reset connection ends a watch like the server's timeout does (client-go's
 * stream watcher closes quietly on a probable EOF): the version is still
 * good, so re-watch; the short-watch rule keeps a flapping server from
 * being hammered.
 */
export function watchEnd(error: unknown, durationMs: number, events: number): WatchEnd {
  if (error === undefined || isClientConnectionError(error)) return durationMs < SHORT_WATCH_MS && events === 0 ? 'relist' : 'rewatch';
  if (isApiError(error) && error.code === 429) return 'backoff-rewatch';
  return 'relist';
}
