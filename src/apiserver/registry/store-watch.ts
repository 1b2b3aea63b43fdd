// WATCH of the generic store (§4.5, §4.13): the start is settled first (a
// consistent list for the synthetic ADDED events, or a wait for a future
// resourceVersion that may end in 504), then storage events become watch
// events with upstream's selector transitions (an object that stops matching
// is DELETED, one that starts matching is ADDED), bookmarks when asked, and
// one ERROR event (410 Expired) when the start is older than the retained
// history. The iterable ends when the request's signal aborts or the store
// closes. The changes come from the resource's shared watch (watch-cache.ts:
// one storage watch and one decode per change for all watchers), or, for a
// start older than its history, from a storage watch of its own.
import { apiErrors } from '../../api/errors.js';
import { RecentCache } from '../../util/recent-cache.js';
import { isStorageError, type StorageEvent } from '../storage/interface.js';
import { decodeStored, type StoreContext } from './context.js';
import { apiVersionOf, resourcePrefix, withVersion } from './object.js';
import { waitForRevision } from './revision.js';
import { checkSelection, matcher, selectionPrefix } from './selection.js';
import { listObjects } from './store-list.js';
import { subscribe } from './watch-cache.js';
import type { ApiObject, WatchEvent, WatchRequest } from './types.js';

export const INITIAL_EVENTS_END_ANNOTATION = 'platform.io/initial-events-end';

export function bookmark(ctx: StoreContext, revision: number, annotations?: Record<string, string>): WatchEvent {
  const metadata = { resourceVersion: String(revision), ...(annotations === undefined ? {} : { annotations }) };
  return { type: 'BOOKMARK', object: { apiVersion: apiVersionOf(ctx.strategy.info), kind: ctx.strategy.info.kind, metadata } };
}

/**
 * Watchers without a selection see a storage event identically; stores that
 * hand every watcher the same event object (the memory store) then decode it
 * once for all of them. Consumers treat watch events as immutable.
 */
const unfiltered = new RecentCache<StorageEvent, WatchEvent | undefined>();

/**
 * Stored values decoded once for every watcher that sees them (selected
 * watchers each evaluate their selection, on the same decoded object).
 */
const decoded = new RecentCache<object, ApiObject>();
const decodedPrev = new RecentCache<object, ApiObject>();

/** One storage event as the watcher sees it through its selection (undefined: nothing to send). */
export function translate(ctx: StoreContext, ev: StorageEvent, match: ((obj: ApiObject) => boolean) | undefined): WatchEvent | undefined {
  if (match === undefined && ev.type !== 'progress') return unfiltered.get(ev, () => translateOnce(ctx, ev, undefined));
  return translateOnce(ctx, ev, match);
}

/** The event's current state (a put's new value), decoded once per event. */
const decodeNow = (ctx: StoreContext, ev: Extract<StorageEvent, { type: 'put' }>): ApiObject => decoded.get(ev.kv, () => decodeStored(ctx, ev.kv));

/** The state before the event with the event's revision (what a delete, or a watcher that stops matching, sees), decoded once per event. */
const decodePrev = (ctx: StoreContext, ev: Exclude<StorageEvent, { type: 'progress' }>): ApiObject | undefined =>
  ev.prev === undefined ? undefined : decodedPrev.get(ev, () => withVersion(ctx.codec.decode(ev.prev!.value), ctx.strategy.info, ev.type === 'put' ? ev.kv.modRevision : ev.revision));

function translateOnce(ctx: StoreContext, ev: StorageEvent, match: ((obj: ApiObject) => boolean) | undefined): WatchEvent | undefined {
  const passes = (o: ApiObject): boolean => match === undefined || match(o);
  switch (ev.type) {
    case 'progress':
      return bookmark(ctx, ev.revision);
    case 'delete': {
      const prev = decodePrev(ctx, ev)!;
      return passes(prev) ? { type: 'DELETED', object: prev } : undefined;
    }
    case 'put': {
      const now = decodeNow(ctx, ev);
      const nowPasses = passes(now);
      if (ev.prev === undefined) return nowPasses ? { type: 'ADDED', object: now } : undefined;
      if (match === undefined) return { type: 'MODIFIED', object: now };
      // The previous state with the event's revision: what a watcher that stops matching sees deleted.
      const prev = decodePrev(ctx, ev)!;
      const prevPasses = passes(prev);
      if (nowPasses && prevPasses) return { type: 'MODIFIED', object: now };
      if (nowPasses) return { type: 'ADDED', object: now };
      if (prevPasses) return { type: 'DELETED', object: prev };
      return undefined;
    }
  }
}

interface Start {
  initial: WatchEvent[];
  after: number;
}

async function settleStart(ctx: StoreContext, namespace: string, req: WatchRequest): Promise<Start> {
  const { start } = req;
  const wait = ctx.options.futureRevisionWaitMs;
  if (start.kind === 'StartExact') {
    await waitForRevision(ctx.storage, start.rv, wait);
    return { initial: [], after: start.rv };
  }
  if (start.kind === 'StreamingList' && start.rv !== undefined && start.rv > 0) await waitForRevision(ctx.storage, start.rv, wait);
  const list = await listObjects(ctx, namespace, { readAt: { kind: 'MostRecent' }, ...(req.selection === undefined ? {} : { selection: req.selection }) });
  const after = Number(list.metadata.resourceVersion);
  const initial: WatchEvent[] = list.items.map((object) => ({ type: 'ADDED', object }));
  if (start.kind === 'StreamingList' && req.allowWatchBookmarks === true) initial.push(bookmark(ctx, after, { [INITIAL_EVENTS_END_ANNOTATION]: 'true' }));
  return { initial, after };
}

export async function watchObjects(ctx: StoreContext, namespace: string, req: WatchRequest): Promise<AsyncIterable<WatchEvent>> {
  checkSelection(ctx.strategy, req.selection);
  const start = await settleStart(ctx, namespace, req);
  const match = matcher(ctx.strategy, req.selection);
  const prefix = selectionPrefix(ctx.strategy, namespace, req.selection);
  const progressIntervalMs = req.allowWatchBookmarks === true ? ctx.options.bookmarkIntervalMs : undefined;
  const requested = req.start.kind === 'StartExact' ? req.start.rv : start.after;
  // Spec §4.5 rule 4: a start older than the retained history is answered 410 Gone before the stream
  // begins, when the store knows it (on etcd a compaction by another server may only show up mid-stream: then an ERROR event).
  const compacted = await ctx.storage.compactedRevision().catch(() => 0);
  if (start.after < compacted) throw apiErrors.expired(`too old resource version: ${requested} (${compacted})`);
  async function* events(): AsyncGenerator<WatchEvent> {
    for (const ev of start.initial) {
      if (req.signal.aborted) return;
      yield ev;
    }
    try {
      const opts = { afterRevision: start.after, signal: req.signal, ...(progressIntervalMs === undefined ? {} : { progressIntervalMs }) };
      const shared = subscribe(ctx.storage, resourcePrefix(ctx.strategy.info), { ...opts, prefix }, { progressIntervalMs: ctx.options.bookmarkIntervalMs });
      for await (const ev of shared ?? ctx.storage.watch(prefix, opts)) {
        const out = translate(ctx, ev, match);
        if (out !== undefined) yield out;
      }
    } catch (e) {
      if (isStorageError(e, 'Compacted')) {
        yield { type: 'ERROR', object: apiErrors.expired(`too old resource version: ${requested} (${e.revision ?? 0})`).status() };
        return;
      }
      // The store closed under the watch: end it; the client resumes from its last resourceVersion.
      if (isStorageError(e, 'Closed')) return;
      throw e;
    }
  }
  return events();
}
