// A watch-fed copy of one resource's objects (kube-apiserver's informer and
// lister, reduced to what admission needs): list the resource's prefix,
// then follow its storage watch; a watch that runs into compaction lists
// again. Used by the namespace lifecycle and the service-account admission
// so a create reads no storage in the common case.
//
// Lifecycle: started by the first lookup (no start call, as the registry has
// no background work of its own) and stopped by stopping the storage (its
// watches end, its calls reject 'Closed'). No timers: after a failure the
// cache goes back to idle and the next lookup starts it again.
//
// Freshness: a lookup answers only while the cache is synced AND has seen
// every create and update this process made through the store
// (`writtenUpTo`), so such a write done here is never read stale here
// (removals through store-delete.ts are not counted: a removed object may
// still be found for the moment its watch event takes, as upstream). Not
// fresh is the caller's cue for a live read, as upstream's admission plugins
// fall back to one; callers also read live on a miss.
import { isStorageError, type Storage, type StorageEvent, type StoredValue } from '../storage/interface.js';
import type { ApiObject } from './types.js';

/** What a lookup knows: `fresh` false means "ask storage". */
export type CachedLookup = { fresh: true; object: ApiObject | undefined } | { fresh: false };

export interface ListerSource {
  readonly storage: Storage;
  /** The storage prefix of every object of the resource. */
  readonly prefix: string;
  /** A stored value as clients read it (never mutated by the lister's users). */
  decode(kv: StoredValue): ApiObject;
  /** The highest revision this process wrote through the store (0: none). */
  writtenUpTo(): number;
}

/** Relists in a row after compaction before the cache gives up until the next lookup. */
const MAX_RELISTS = 3;

type State = 'idle' | 'syncing' | 'synced' | 'stopped';

export class StoreLister {
  private state: State = 'idle';
  private objects = new Map<string, ApiObject>();
  private revision = 0;
  private syncWaiters: (() => void)[] = [];

  constructor(private readonly source: ListerSource) {}

  /**
   * The object stored under `key` (a full storage key) when the cache can
   * answer for it; starts the cache when it is idle. Never blocks, never throws.
   */
  lookup(key: string): CachedLookup {
    if (this.state !== 'synced') {
      this.ensureStarted();
      return { fresh: false };
    }
    if (this.revision < this.source.writtenUpTo()) return { fresh: false };
    return { fresh: true, object: this.objects.get(key) };
  }

  /**
   * Every cached object whose storage key starts with `prefix` (a namespace's
   * prefix, or the resource's for all), in key order, when the cache can
   * answer as `lookup` can. Callers treat the objects as immutable.
   */
  list(prefix: string): { fresh: true; items: ApiObject[] } | { fresh: false } {
    if (this.state !== 'synced') {
      this.ensureStarted();
      return { fresh: false };
    }
    if (this.revision < this.source.writtenUpTo()) return { fresh: false };
    const items: [string, ApiObject][] = [];
    for (const entry of this.objects) if (entry[0].startsWith(prefix)) items.push(entry);
    items.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { fresh: true, items: items.map((e) => e[1]) };
  }

  /**
   * Starts the cache if needed and resolves once it is synced, or once this
   * attempt failed or storage stopped (lookups then keep answering not fresh).
   * For the server's start ("ready before serving"); never rejects.
   */
  synced(): Promise<void> {
    this.ensureStarted();
    if (this.state !== 'syncing') return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  private ensureStarted(): void {
    if (this.state !== 'idle') return;
    this.state = 'syncing';
    void this.run().then((final) => {
      this.state = final;
      this.objects = new Map();
      this.wake();
    });
  }

  private wake(): void {
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w();
  }

  /** List, then watch; answers the state to settle in when it ends. */
  private async run(): Promise<State> {
    const { storage, prefix } = this.source;
    for (let relists = 0; relists < MAX_RELISTS; relists++) {
      try {
        const listed = await storage.list(prefix);
        const objects = new Map<string, ApiObject>();
        for (const kv of listed.items) objects.set(kv.key, this.source.decode(kv));
        this.objects = objects;
        this.revision = listed.revision;
        this.state = 'synced';
        this.wake();
        // No signal of our own: the watch ends when storage stops.
        for await (const ev of storage.watch(prefix, { afterRevision: listed.revision, signal: new AbortController().signal })) this.apply(ev);
        return 'stopped';
      } catch (e) {
        this.state = 'syncing';
        if (isStorageError(e, 'Closed')) return 'stopped';
        if (!isStorageError(e, 'Compacted')) return 'idle';
      }
    }
    return 'idle';
  }

  private apply(ev: StorageEvent): void {
    switch (ev.type) {
      case 'put':
        this.objects.set(ev.kv.key, this.source.decode(ev.kv));
        this.revision = ev.kv.modRevision;
        return;
      case 'delete':
        this.objects.delete(ev.key);
        this.revision = ev.revision;
        return;
      case 'progress':
        this.revision = Math.max(this.revision, ev.revision);
    }
  }
}
