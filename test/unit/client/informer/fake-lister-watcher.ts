// A faithful in-memory ListerWatcher for the informer's unit tests: one
// resource type with a versioned state and a change log (etcd-like: every
// write, delete included, takes the next version). It answers lists and
// watches with the server's §4.13 rules (src/api/resource-version.ts, so
// invalid combinations fail as the server fails them), pages with continue
// tokens that pin the first page's version, and keeps a history window:
// `compact()` makes watches from older versions fail with an ERROR 410
// Expired (the stream throws, as the rest client's does) and makes lists at
// an older exact version and older continue tokens fail with 410. Faults:
// forced watch drops (clean end or reset), short watches, expired continue
// tokens, failures of the next call, bookmarks, raw (bad) events, lists
// without a version. sendInitialEvents is served only when `watchListEnabled`
// (422 otherwise, like the gate). Every call yields a macrotask first, so a
// test's writes land between an informer's pages and watches.
import { type ApiError, apiErrors, isApiError } from '../../../../src/api/errors.js';
import { classifyList, classifyWatch } from '../../../../src/api/resource-version.js';
import { ApiStatusError, ClientConnectionError, ClientProtocolError, type RequestRef } from '../../../../src/client/errors.js';
import type { ApiObject, ListOptions, ListPage, ListerWatcher, ResourceType, WatchEvent, WatchOptions, WatchStream } from '../../../../src/client/types.js';
import { onAbort } from '../../../../src/lifecycle/abort.js';

export const PODS: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';
interface Change {
  readonly rv: number;
  readonly type: ChangeType;
  readonly key: string;
  /** The object after the change (for DELETED: the last state, at the delete's version). */
  readonly obj: ApiObject;
  readonly prev: ApiObject | undefined;
}

type Item = { ev: WatchEvent } | { end: true } | { error: unknown };

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const LIST: RequestRef = { method: 'GET', path: '/api/v1/pods' };
const WATCH: RequestRef = { method: 'GET', path: '/api/v1/pods?watch=true' };
const statusError = (ref: RequestRef, e: ApiError): ApiStatusError => new ApiStatusError(ref, e.status(), undefined);
const metaOf = (o: ApiObject): Record<string, unknown> => o['metadata'] as Record<string, unknown>;
export const rvOf = (o: ApiObject): string => String(metaOf(o)['resourceVersion'] ?? '');
export const keyOf = (o: ApiObject): string => `${String(metaOf(o)['namespace'])}/${String(metaOf(o)['name'])}`;

export class FakeWatch implements WatchStream {
  private readonly queue: Item[] = [];
  private waiter: (() => void) | undefined;
  private closed = false;
  private readonly dispose: () => void;

  constructor(
    /** Changes after this version are delivered. */
    readonly from: number,
    private readonly onClose: (w: FakeWatch) => void,
    signal: AbortSignal | undefined,
  ) {
    this.dispose = signal === undefined ? () => {} : onAbort(signal, () => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  push(item: Item): void {
    if (this.closed) return;
    this.queue.push(item);
    this.wake();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.dispose();
    this.onClose(this);
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  private async next(): Promise<IteratorResult<WatchEvent>> {
    for (;;) {
      const item = this.queue.shift();
      if (item !== undefined) {
        if ('ev' in item) return { value: item.ev, done: false };
        this.close();
        if ('error' in item) throw item.error;
        return { value: undefined, done: true };
      }
      if (this.closed) return { value: undefined, done: true };
      await new Promise<void>((r) => (this.waiter = r));
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return { next: () => this.next(), return: async () => (this.close(), { value: undefined, done: true }) };
  }
}

export interface FakeOptions {
  watchListEnabled?: boolean;
  /** Lists at '0' ("any") are served this many versions behind (never before the history window). */
  anyLag?: number;
}

export class FakeListerWatcher implements ListerWatcher {
  readonly type = PODS;
  readonly namespace = '';
  readonly state = new Map<string, ApiObject>();
  readonly calls: { list: ListOptions[]; watch: WatchOptions[] } = { list: [], watch: [] };
  /** The version of every complete answer: a list's last page, a streaming list's initial-events-end bookmark. */
  readonly syncPoints: number[] = [];
  watchListEnabled: boolean;
  anyLag: number;
  private version = 0;
  private compactedRv = 0;
  private log: Change[] = [];
  private readonly watches = new Set<FakeWatch>();
  private serial = 0;
  private readonly faults = { expireContinues: 0, shortWatches: 0, listsWithoutVersion: 0, nextList: [] as unknown[], nextWatch: [] as unknown[] };

  constructor(o: FakeOptions = {}) {
    this.watchListEnabled = o.watchListEnabled ?? false;
    this.anyLag = o.anyLag ?? 0;
  }

  get rv(): string {
    return String(this.version);
  }
  get openWatches(): number {
    return this.watches.size;
  }

  // ------------------------------------------------------------- writes

  create(name: string, ns = 'default', nodeName = 'node-a'): ApiObject {
    const key = `${ns}/${name}`;
    if (this.state.has(key)) throw new Error(`fake: ${key} exists`);
    const rv = ++this.version;
    const obj: ApiObject = { metadata: { name, namespace: ns, uid: `uid-${++this.serial}`, resourceVersion: String(rv) }, spec: { nodeName }, status: { n: 0 } };
    this.record({ rv, type: 'ADDED', key, obj, prev: undefined });
    return obj;
  }

  update(key: string, nodeName?: string): ApiObject {
    const prev = this.state.get(key);
    if (prev === undefined) throw new Error(`fake: no ${key}`);
    const rv = ++this.version;
    const spec = prev['spec'] as Record<string, unknown>;
    const obj: ApiObject = { ...prev, metadata: { ...metaOf(prev), resourceVersion: String(rv) }, spec: { ...spec, nodeName: nodeName ?? spec['nodeName'] }, status: { n: ++this.serial } };
    this.record({ rv, type: 'MODIFIED', key, obj, prev });
    return obj;
  }

  remove(key: string): void {
    const prev = this.state.get(key);
    if (prev === undefined) throw new Error(`fake: no ${key}`);
    const rv = ++this.version;
    this.record({ rv, type: 'DELETED', key, obj: { ...prev, metadata: { ...metaOf(prev), resourceVersion: String(rv) } }, prev });
  }

  private record(c: Change): void {
    if (c.type === 'DELETED') this.state.delete(c.key);
    else this.state.set(c.key, c.obj);
    this.log.push(c);
    for (const w of this.watches) if (c.rv > w.from) w.push({ ev: this.event(c.type, c.obj) });
  }

  private event(type: WatchEvent['type'], obj: ApiObject): WatchEvent {
    return { type, object: { kind: 'Pod', apiVersion: 'v1', ...obj } };
  }

  // ------------------------------------------------------------- faults

  /** Forgets history up to now: older watch versions, exact lists and continue tokens get 410. */
  compact(): void {
    this.compactedRv = this.version;
    this.log = [];
  }
  /** Ends every open watch: cleanly (the server's timeout) or with a reset. */
  dropWatches(how: 'clean' | 'reset' = 'clean'): void {
    for (const w of [...this.watches]) w.push(how === 'clean' ? { end: true } : { error: new ClientConnectionError(WATCH, 'socket hang up') });
  }
  expireContinues(n = 1): void {
    this.faults.expireContinues += n;
  }
  shortWatches(n = 1): void {
    this.faults.shortWatches += n;
  }
  listsWithoutVersion(n = 1): void {
    this.faults.listsWithoutVersion += n;
  }
  failNextList(err: unknown): void {
    this.faults.nextList.push(err);
  }
  failNextWatch(err: unknown): void {
    this.faults.nextWatch.push(err);
  }
  /** A BOOKMARK at the current version to every open watch. */
  bookmark(annotations?: Record<string, string>): void {
    const metadata = { resourceVersion: this.rv, ...(annotations === undefined ? {} : { annotations }) };
    for (const w of this.watches) w.push({ ev: { type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata } } });
  }
  /** A raw event, as is, to every open watch. */
  inject(ev: WatchEvent): void {
    for (const w of this.watches) w.push({ ev });
  }

  // ------------------------------------------------------------- reads

  /** The state at version `at` (≥ the history window), from the change log. */
  private snapshot(at: number): Map<string, ApiObject> {
    const s = new Map(this.state);
    for (let i = this.log.length - 1; i >= 0 && this.log[i]!.rv > at; i--) {
      const c = this.log[i]!;
      if (c.prev === undefined) s.delete(c.key);
      else s.set(c.key, c.prev);
    }
    return s;
  }

  private tooLarge(ref: RequestRef): ApiStatusError {
    return statusError(ref, apiErrors.tooLargeResourceVersion(1));
  }

  async list(opts: ListOptions): Promise<ListPage> {
    await tick();
    const { signal, ...rest } = opts;
    this.calls.list.push(rest);
    if (signal?.aborted === true) throw signal.reason;
    const fault = this.faults.nextList.shift();
    if (fault !== undefined) throw fault;
    if (this.faults.listsWithoutVersion > 0) {
      this.faults.listsWithoutVersion--;
      throw new ClientProtocolError(LIST, 'metadata.resourceVersion', 'list without a resourceVersion');
    }
    let sem;
    try {
      sem = classifyList({ resourceVersion: opts.resourceVersion ?? '', resourceVersionMatch: opts.resourceVersionMatch ?? '', limit: opts.limit ?? 0, continue: opts.continue ?? '', sendInitialEvents: undefined });
    } catch (e) {
      throw isApiError(e) ? statusError(LIST, e) : e;
    }
    let at = this.version;
    let after = '';
    switch (sem.kind) {
      case 'MostRecent':
        break;
      case 'Any':
        // Never before the first write: a real store's list version is a real revision.
        at = Math.max(this.compactedRv, this.version - this.anyLag, Math.min(1, this.version));
        break;
      case 'NotOlderThan':
        if (sem.rv > this.version) throw this.tooLarge(LIST);
        break;
      case 'Exact':
        if (sem.rv > this.version) throw this.tooLarge(LIST);
        if (sem.rv < this.compactedRv) throw statusError(LIST, apiErrors.expired('The resourceVersion for the provided list is too old.'));
        at = sem.rv;
        break;
      case 'Continue': {
        const tok = JSON.parse(Buffer.from(sem.token, 'base64url').toString()) as { rv: number; start: string };
        const expired = this.faults.expireContinues > 0 || tok.rv < this.compactedRv;
        if (this.faults.expireContinues > 0) this.faults.expireContinues--;
        if (expired) throw statusError(LIST, apiErrors.expired('The provided continue parameter is too old to display a consistent list result.', { continue: '' }));
        at = tok.rv;
        after = tok.start;
        break;
      }
    }
    const snap = this.snapshot(at);
    const keys = [...snap.keys()].filter((k) => k > after).sort();
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : keys.length;
    const page = keys.slice(0, limit);
    const more = keys.length > page.length;
    if (!more) this.syncPoints.push(at);
    return {
      items: page.map((k) => snap.get(k)!),
      resourceVersion: String(at),
      continue: more ? Buffer.from(JSON.stringify({ rv: at, start: page[page.length - 1] })).toString('base64url') : '',
      remainingItemCount: more ? keys.length - page.length : undefined,
    };
  }

  async watch(opts: WatchOptions): Promise<WatchStream> {
    await tick();
    const { signal, ...rest } = opts;
    this.calls.watch.push(rest);
    if (signal?.aborted === true) throw signal.reason;
    const fault = this.faults.nextWatch.shift();
    if (fault !== undefined) throw fault;
    let sem;
    try {
      const q = { resourceVersion: opts.resourceVersion ?? '', resourceVersionMatch: opts.resourceVersionMatch ?? '', limit: 0, continue: '', sendInitialEvents: opts.sendInitialEvents };
      sem = classifyWatch(q, this.watchListEnabled);
    } catch (e) {
      throw isApiError(e) ? statusError(WATCH, e) : e;
    }
    const from = sem.kind === 'StartExact' ? Math.max(sem.rv, 0) : this.version;
    const w = new FakeWatch(from, (x) => this.watches.delete(x), signal);
    if (this.faults.shortWatches > 0) {
      this.faults.shortWatches--;
      w.push({ end: true });
      return w;
    }
    if (sem.kind === 'StartExact') {
      if (sem.rv < this.compactedRv) {
        const e = apiErrors.expired(`too old resource version: ${sem.rv} (${this.compactedRv + 1})`);
        w.push({ error: statusError(WATCH, e) });
        return w;
      }
      for (const c of this.log) if (c.rv > sem.rv) w.push({ ev: this.event(c.type, c.obj) });
    } else if (sem.kind !== 'StartCurrent') {
      for (const k of [...this.state.keys()].sort()) w.push({ ev: this.event('ADDED', this.state.get(k)!) });
      if (sem.kind === 'StreamingList' && opts.allowWatchBookmarks === true) {
        this.syncPoints.push(this.version);
        w.push({ ev: { type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: this.rv, annotations: { 'platform.io/initial-events-end': 'true' } } } } });
      }
    }
    this.watches.add(w);
    return w;
  }
}
