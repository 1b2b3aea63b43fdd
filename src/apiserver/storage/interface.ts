// The one storage seam of platform-apiserver (kube-apiserver's
// storage.Interface, reduced to bytes): a key-value store with a single,
// store-wide revision counter, multi-version reads inside a retained window,
// compare-and-swap writes and ordered watches. Two implementations pass one
// shared test suite: memory.ts (the default, no dependency) and etcd.ts
// (etcd v3, where the revision IS etcd's revision). Everything about objects
// (codecs, resourceVersion in metadata, selectors, finalizers) lives above,
// in the registry; the store only sees keys and opaque values.
//
// Revisions: every successful write (create, update, delete) gets the next
// revision of the store; a read "at revision r" sees the state right after
// revision r was committed. After compact(r), revision r stays readable;
// reads below it and watches with afterRevision < r fail with StorageError
// 'Compacted' (→ 410 above), as etcd's Compact(r) behaves.

export interface StoredValue {
  key: string;
  value: Uint8Array;
  /** Revision of the write that created this key (unchanged by updates). */
  createRevision: number;
  /** Revision of the write that produced this value. */
  modRevision: number;
}

export interface ListOptions {
  /** Read at this revision (0/undefined: the latest). Older than compacted → 'Compacted'; newer than current → 'FutureRevision'. */
  revision?: number;
  /** Keys >= startKey only (continue tokens resume with the last key + '\x00'). */
  startKey?: string;
  /** At most this many matching items (0/undefined: all). */
  limit?: number;
  /**
   * Keep only values the predicate accepts; the store keeps reading until it
   * has `limit` matches or the prefix is exhausted, as kube-apiserver's etcd3
   * store pages with a filter. `remaining` is then not computed.
   */
  predicate?: (item: StoredValue) => boolean;
}

export interface ListResult {
  items: StoredValue[];
  /** The revision the list was read at (the store's revision when unspecified). */
  revision: number;
  /** More matching-or-unfiltered keys follow the last item. */
  more: boolean;
  /** Keys after the last item under the prefix; undefined with a predicate. */
  remaining: number | undefined;
}

export type StorageEvent =
  | { type: 'put'; kv: StoredValue; prev: StoredValue | undefined }
  | { type: 'delete'; key: string; prev: StoredValue; revision: number }
  /** Nothing under the prefix changed between the last event and `revision` (for bookmarks). */
  | { type: 'progress'; revision: number };

export interface WatchOptions {
  /** Deliver events with revision > afterRevision. Older than compacted → the iterator throws 'Compacted'. */
  afterRevision: number;
  /** Ends the watch: the iterator returns (no throw). */
  signal: AbortSignal;
  /** Ask for 'progress' events at about this interval while idle (0/undefined: none). */
  progressIntervalMs?: number;
}

export interface Storage {
  /** The store's latest committed revision (a consistent read: a quorum read on etcd). */
  currentRevision(): Promise<number>;
  /** The compacted revision: the oldest still readable (0 before any compaction). On etcd a lower bound (see etcd-store.ts). */
  compactedRevision(): Promise<number>;
  get(key: string, revision?: number): Promise<StoredValue | undefined>;
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Create `key`; throws StorageError 'KeyExists' when it exists. */
  create(key: string, value: Uint8Array): Promise<StoredValue>;
  /**
   * Replace `key`'s value only if its modRevision is still `expectedModRevision`
   * (compare-and-swap). Throws 'NotFound' when the key is gone, 'Conflict'
   * (carrying the current value) when it changed.
   */
  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<StoredValue>;
  /** Delete `key` (if `expectedModRevision` is given, only if unchanged). Returns the deleted value and the delete's revision. */
  delete(key: string, expectedModRevision?: number): Promise<{ prev: StoredValue; revision: number }>;
  /** Ordered events under `prefix`; see WatchOptions. Multiple watches may run at once. */
  watch(prefix: string, opts: WatchOptions): AsyncIterable<StorageEvent>;
  /** Forget history before `revision` (which stays readable); fault injection and the compactor call it. */
  compact(revision: number): Promise<void>;
  /** Stop: ends every watch, rejects later calls with 'Closed'. Idempotent. */
  close(): Promise<void>;
}

export type StorageErrorCode = 'KeyExists' | 'NotFound' | 'Conflict' | 'Compacted' | 'FutureRevision' | 'Unavailable' | 'Closed';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly key: string;
  /** 'Conflict': the value now stored. 'Compacted': undefined. */
  readonly current: StoredValue | undefined;
  /** 'Compacted': the compacted revision; 'FutureRevision': the current revision. */
  readonly revision: number | undefined;

  constructor(code: StorageErrorCode, key: string, opts: { current?: StoredValue; revision?: number; cause?: unknown; message?: string } = {}) {
    super(opts.message ?? `${code}: ${key}`, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'StorageError';
    this.code = code;
    this.key = key;
    this.current = opts.current;
    this.revision = opts.revision;
  }
}

export const isStorageError = (e: unknown, code?: StorageErrorCode): e is StorageError => e instanceof StorageError && (code === undefined || e.code === code);
