// client-go's reflector over one ListerWatcher: rounds of list (or streaming
// list) then watch, separated by the exponential back-off; inside a round a
// watch that ends cleanly is re-opened at once from the last version seen,
// and 429s or lost connections when opening it back off without a relist.
// A round ends on a 410, a very short watch, bad input or any other error;
// the next list applies its result to the store as a diff. Owned by one
// Informer: `run` is called once at a time and resolves when the signal has
// aborted and everything it started has stopped (no handler runs after).
import { onAbort } from '../../lifecycle/abort.js';
import type { ApiObject, ListerWatcher, WatchEvent, WatchOptions } from '../types.js';
import { REFLECTOR_BACKOFF, ExponentialBackoff } from './backoff.js';
import { diffReplace } from './diff.js';
import type { Dispatcher } from './dispatch.js';
import { OnceLog, errorFields, problemKey } from './log-once.js';
import { listPaged } from './pager.js';
import {
  INITIAL_EVENTS_END_ANNOTATION,
  INITIAL_SYNC_STATE,
  isExpired,
  listNeedsConsistentRead,
  listRequest,
  watchEnd,
  watchListRequest,
  watchListUnsupported,
  watchRequest,
  watchStartRetriable,
  type Selectors,
  type SyncState,
} from './policy.js';
import { objectKey, resourceVersionOf } from './store.js';
import type { ObjectTransform } from './transform.js';
import { checkEvent, checkListItem, requestOf } from './validate.js';

export interface ReflectorClock {
  now(): number;
  random(): number;
  /** Waits `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export interface ReflectorOptions {
  readonly lw: ListerWatcher;
  readonly dispatcher: Dispatcher;
  readonly log: OnceLog;
  readonly watchList: boolean;
  readonly pageSize: number | undefined;
  readonly selectors: Selectors;
  readonly clock: ReflectorClock;
  /** Applied to every listed and watched object (not BOOKMARKs) after it is checked, before the store and the handlers. */
  readonly transform: ObjectTransform | undefined;
  /** Called after every complete list or initial-events-end bookmark is in the store. */
  readonly onSynced: () => void;
}

/** An open watch, read by hand so a streaming list's watch carries on after its initial events. */
interface OpenWatch {
  readonly events: AsyncIterator<WatchEvent>;
  readonly close: () => void;
}

/** A streaming list whose watch ended before the initial-events-end bookmark. */
export class IncompleteWatchListError extends Error {
  constructor(path: string) {
    super(`GET ${path}: the watch ended before the ${INITIAL_EVENTS_END_ANNOTATION} bookmark`);
    this.name = 'IncompleteWatchListError';
  }
}

/** A watch that ended cleanly at once with no event (client-go's "very short watch"). */
export class ShortWatchError extends Error {
  constructor(path: string, ms: number) {
    super(`GET ${path}: very short watch: the watch ended after ${ms} ms without any event`);
    this.name = 'ShortWatchError';
  }
}

export class Reflector {
  private state: SyncState = INITIAL_SYNC_STATE;
  private watchListOn: boolean;
  /** For re-opening a watch after a 429 or a lost connection (client-go's initConnBackoffManager). */
  private readonly connBackoff: ExponentialBackoff;

  constructor(private readonly o: ReflectorOptions) {
    this.watchListOn = o.watchList;
    this.connBackoff = new ExponentialBackoff(REFLECTOR_BACKOFF, o.clock);
  }

  async run(signal: AbortSignal): Promise<void> {
    const backoff = new ExponentialBackoff(REFLECTOR_BACKOFF, this.o.clock);
    while (!signal.aborted) {
      try {
        await this.listAndWatch(signal);
      } catch (e) {
        if (signal.aborted) return;
        this.report('list-and-watch', e);
      }
      if (signal.aborted) return;
      try {
        await this.o.clock.sleep(backoff.next(), signal);
      } catch {
        return;
      }
    }
  }

  private report(where: string, e: unknown): void {
    const { lw } = this.o;
    this.o.log.once('warn', problemKey(where, e), `informer: ${lw.type.resource}: ${where} failed; backing off`, errorFields(e));
  }

  private async listAndWatch(signal: AbortSignal): Promise<void> {
    let open: OpenWatch | undefined;
    if (this.watchListOn) {
      try {
        open = await this.watchList(signal);
      } catch (e) {
        if (signal.aborted) throw e;
        if (watchListUnsupported(e)) {
          this.watchListOn = false;
          this.o.log.once('info', 'watch-list-off', `informer: ${this.o.lw.type.resource}: the server does not serve streaming lists (WatchList off); using list and watch`, errorFields(e));
        } else {
          this.report('watch-list', e);
          if (isExpired(e)) this.state = { ...this.state, rvUnavailable: true };
        }
      }
    }
    if (open === undefined) await this.list(signal);
    await this.watchLoop(open, signal);
  }

  private async list(signal: AbortSignal): Promise<void> {
    const { lw, pageSize, selectors } = this.o;
    let req = listRequest(this.state, pageSize, selectors);
    let res;
    try {
      res = await listPaged(lw, req, signal);
    } catch (e) {
      if (signal.aborted || !listNeedsConsistentRead(e)) throw e;
      this.o.log.debug(`informer: ${lw.type.resource}: list at ${req.resourceVersion} failed; listing consistently`, errorFields(e));
      this.state = { ...this.state, rvUnavailable: true };
      req = listRequest(this.state, pageSize, selectors);
      res = await listPaged(lw, req, signal);
    }
    if (signal.aborted) throw signal.reason;
    const listed = new Map<string, ApiObject>();
    const { transform } = this.o;
    res.items.forEach((item, i) => {
      checkListItem(lw, item, i);
      const obj = transform === undefined ? item : transform(item);
      listed.set(objectKey(obj), obj);
    });
    this.replace(listed, res.resourceVersion);
    this.state = { lastSyncRv: res.resourceVersion, rvUnavailable: false, paginatedResult: this.state.paginatedResult || (res.paginated && req.resourceVersion === '0') };
  }

  /** The new complete state, as a diff; then the version; then synced. */
  private replace(listed: ReadonlyMap<string, ApiObject>, rv: string): void {
    const { dispatcher } = this.o;
    for (const d of diffReplace(dispatcher.store, listed)) dispatcher.apply(d);
    dispatcher.store.setResourceVersion(rv);
    this.o.onSynced();
  }

  private async openWatch(opts: WatchOptions, signal: AbortSignal): Promise<OpenWatch> {
    const stream = await this.o.lw.watch({ ...opts, signal });
    return { events: stream[Symbol.asyncIterator](), close: () => stream.close() };
  }

  /** A streaming list: initial events into a temporary map, the store replaced at the initial-events-end bookmark; the watch stays open. */
  private async watchList(signal: AbortSignal): Promise<OpenWatch> {
    const { lw, clock } = this.o;
    const w = await this.openWatch(watchListRequest(this.state, clock.random(), this.o.selectors), signal);
    const dispose = onAbort(signal, () => w.close());
    const initial = new Map<string, ApiObject>();
    try {
      for (;;) {
        const r = await w.events.next();
        if (signal.aborted) throw signal.reason;
        if (r.done === true) throw new IncompleteWatchListError(requestOf(lw, 'watch').path);
        const ev = r.value;
        checkEvent(lw, ev);
        if (ev.type === 'BOOKMARK') {
          if (annotationOf(ev.object, INITIAL_EVENTS_END_ANNOTATION) !== 'true') continue;
          const rv = resourceVersionOf(ev.object);
          this.replace(initial, rv);
          this.state = { ...this.state, lastSyncRv: rv, rvUnavailable: false };
          return w;
        }
        if (ev.type === 'DELETED') initial.delete(objectKey(ev.object));
        else {
          const obj = this.o.transform === undefined ? ev.object : this.o.transform(ev.object);
          initial.set(objectKey(obj), obj);
        }
      }
    } catch (e) {
      w.close();
      throw e;
    } finally {
      dispose();
    }
  }

  /** Watches from the last version until the round must end (returns) or fails (throws). */
  private async watchLoop(first: OpenWatch | undefined, signal: AbortSignal): Promise<void> {
    const { lw, clock } = this.o;
    const { connBackoff } = this;
    for (let w = first; !signal.aborted; w = undefined) {
      const start = clock.now();
      if (w === undefined) {
        try {
          w = await this.openWatch(watchRequest(this.state.lastSyncRv, clock.random(), this.o.selectors), signal);
        } catch (e) {
          if (signal.aborted) throw e;
          // Some servers refuse a too-old version with an HTTP 410 instead of an ERROR event: the same relist.
          if (isExpired(e)) return this.o.log.debug(`informer: ${lw.type.resource}: watch refused: ${errorFields(e)['error'] as string}; relisting`);
          if (!watchStartRetriable(e)) throw e;
          this.report('watch', e);
          await clock.sleep(connBackoff.next(), signal);
          continue;
        }
      }
      const open = w;
      const dispose = onAbort(signal, () => open.close());
      const progress = { events: 0 };
      let error: unknown;
      try {
        await this.pump(open, progress, signal);
      } catch (e) {
        error = e;
      } finally {
        dispose();
        open.close();
      }
      const { events } = progress;
      if (signal.aborted) return;
      const elapsed = clock.now() - start;
      switch (watchEnd(error, elapsed, events)) {
        case 'rewatch':
          continue;
        case 'backoff-rewatch':
          this.report('watch', error);
          await clock.sleep(connBackoff.next(), signal);
          continue;
        case 'relist':
          if (error === undefined) this.report('watch', new ShortWatchError(requestOf(lw, 'watch').path, elapsed));
          else if (isExpired(error)) this.o.log.debug(`informer: ${lw.type.resource}: watch closed: ${errorFields(error)['error'] as string}; relisting`);
          else this.report('watch', error);
          return;
      }
    }
  }

  /** Applies events until the stream ends (returns) or fails (throws); counts them in `progress` either way. */
  private async pump(w: OpenWatch, progress: { events: number }, signal: AbortSignal): Promise<void> {
    const { lw, dispatcher, transform } = this.o;
    for (;;) {
      const r = await w.events.next();
      if (r.done === true || signal.aborted) return;
      const ev = r.value;
      checkEvent(lw, ev);
      progress.events++;
      const rv = resourceVersionOf(ev.object);
      if (ev.type !== 'BOOKMARK') {
        const obj = transform === undefined ? ev.object : transform(ev.object);
        if (ev.type === 'DELETED') dispatcher.remove(objectKey(obj), obj);
        else dispatcher.upsert(objectKey(obj), obj);
      }
      dispatcher.store.setResourceVersion(rv);
      this.state = { ...this.state, lastSyncRv: rv };
    }
  }
}

function annotationOf(obj: ApiObject, key: string): string | undefined {
  const m = obj['metadata'];
  if (typeof m !== 'object' || m === null) return undefined;
  const a = (m as Record<string, unknown>)['annotations'];
  if (typeof a !== 'object' || a === null) return undefined;
  const v = (a as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}
