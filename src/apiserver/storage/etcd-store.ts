// The etcd v3 implementation of Storage (interface.ts): values are opaque
// bytes under `<prefix><key>`, the store's revision IS etcd's revision, every
// write is one compare-and-swap Txn, reads at a revision are etcd's MVCC
// reads, and watches are etcd watches (etcd-watch.ts). Created by the
// composition root when `--etcd-servers` is set.
//
// Compaction: compact(r) is etcd's Compact(r): the state at r stays readable,
// reads below r and watches from before r (afterRevision < r) are
// 'Compacted' — the memory store's rule too. A revision beyond the current
// one compacts to the current one. Compaction is etcd-wide: it applies to
// every prefix and every server on that etcd (hence the compactor's shared
// clock).
//
// compactedRevision() answers from what this process knows: its own
// compactions (directly or through the compactor) and the compactions its
// reads and watches ran into (a read at r refused → at least r + 1; a watch
// refused → exactly etcd's). Another server's compaction is invisible until
// then: the answer is a lower bound, and every read below the real one still
// fails with 'Compacted'.

import { StorageError, type ListOptions, type ListResult, type Storage, type StorageEvent, type StoredValue, type WatchOptions } from './interface.js';
import { EtcdClient, type StorageLog } from './etcd-client.js';
import { etcdWatch } from './etcd-watch.js';
import { headerRevision, prefixRangeEnd, toStored, type WireDeleteRangeResponse, type WireRangeResponse, type WireTxnResponse } from './etcd-wire.js';
import type { CompactionClaim, CompactionCoordinator } from './compactor.js';

export interface EtcdStorageOptions {
  /** `--etcd-servers`: tried in order, the next on UNAVAILABLE. */
  endpoints: readonly string[];
  /** Key prefix of every value (kube-apiserver's `--etcd-prefix`, e.g. "/registry/"). */
  prefix: string;
  log: StorageLog;
  /** Deadline of each etcd call (default 30 s). */
  requestTimeoutMs?: number;
  /** Watch reopen attempts in a row before 'Unavailable' (default 5). */
  watchRetries?: number;
}

export interface EtcdStorage extends Storage {
  /** kube-apiserver's `compact_rev_key` compare-and-swap, for the compactor (shared by every server on this etcd). */
  readonly compaction: CompactionCoordinator;
}

/** The etcd key of the shared compaction clock; outside any prefix, as kube-apiserver's (compaction is etcd-wide). */
export const COMPACT_REV_KEY = 'compact_rev_key';

/** Largest Range batch of a filtered list (kube-apiserver's maxLimit). */
const MAX_BATCH = 10_000;

/** Loads the client (no connection yet: the first call dials). Throws StorageError naming a bad endpoint. */
export async function createEtcdStorage(opts: EtcdStorageOptions): Promise<EtcdStorage> {
  const client = await EtcdClient.create({ endpoints: opts.endpoints, log: opts.log, ...(opts.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: opts.requestTimeoutMs }) });
  return new EtcdStore(client, opts);
}

const cmpCreated = (key: Buffer): object => ({ result: 'GREATER', target: 'CREATE', key, createRevision: 0 });
const cmpMod = (key: Buffer, rev: number): object => ({ result: 'EQUAL', target: 'MOD', key, modRevision: rev });

class EtcdStore implements EtcdStorage {
  private readonly prefix: Buffer;
  private readonly stop = new AbortController();
  private closed = false;
  private compacted = 0;
  readonly compaction: CompactionCoordinator;

  constructor(
    private readonly client: EtcdClient,
    private readonly opts: EtcdStorageOptions,
  ) {
    this.prefix = Buffer.from(opts.prefix, 'utf8');
    this.compaction = { claim: (clock, revision) => this.claim(clock, revision) };
  }

  private full(key: string): Buffer {
    return Buffer.concat([this.prefix, Buffer.from(key, 'utf8')]);
  }

  private live(key: string): void {
    if (this.closed) throw new StorageError('Closed', key, { message: 'the etcd store is closed' });
  }

  private noteCompacted(revision: number): void {
    if (revision > this.compacted) this.compacted = revision;
  }

  /** A read at `revision`, with etcd's revision errors completed (the compacted or current revision). */
  private async read<T>(key: string, revision: number, request: object): Promise<T> {
    this.live(key);
    try {
      return await this.client.call<T>('KV', 'Range', request, key);
    } catch (err) {
      if (err instanceof StorageError && err.code === 'Compacted') {
        this.noteCompacted(revision + 1);
        throw new StorageError('Compacted', key, { revision: this.compacted, message: `revision ${revision} of ${key} is compacted`, cause: err });
      }
      if (err instanceof StorageError && err.code === 'FutureRevision') {
        const current = await this.currentRevision();
        throw new StorageError('FutureRevision', key, { revision: current, message: `revision ${revision} is newer than the current ${current}`, cause: err });
      }
      throw err;
    }
  }

  private async txn(key: string, request: object): Promise<WireTxnResponse> {
    this.live(key);
    return this.client.call<WireTxnResponse>('KV', 'Txn', request, key);
  }

  async currentRevision(): Promise<number> {
    this.live('');
    const r = await this.client.call<WireRangeResponse>('KV', 'Range', { key: this.prefix.length > 0 ? this.prefix : Buffer.from([0]), countOnly: true }, '');
    return headerRevision(r, 'Range');
  }

  compactedRevision(): Promise<number> {
    if (this.closed) return Promise.reject(new StorageError('Closed', '', { message: 'the etcd store is closed' }));
    return Promise.resolve(this.compacted);
  }

  async get(key: string, revision?: number): Promise<StoredValue | undefined> {
    const r = await this.read<WireRangeResponse>(key, revision ?? 0, { key: this.full(key), revision: revision ?? 0 });
    const kv = r.kvs[0];
    return kv === undefined ? undefined : toStored(kv, this.prefix.length);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const full = this.full(prefix);
    const rangeEnd = prefixRangeEnd(full);
    const start = opts.startKey === undefined ? full : Buffer.compare(this.full(opts.startKey), full) > 0 ? this.full(opts.startKey) : full;
    const limit = opts.limit ?? 0;
    let revision = opts.revision ?? 0;
    const range = async (from: Buffer, batch: number): Promise<WireRangeResponse> => {
      const r = await this.read<WireRangeResponse>(prefix, revision, { key: from, rangeEnd, limit: batch, revision });
      if (revision === 0) revision = headerRevision(r, 'Range');
      return r;
    };
    if (opts.predicate === undefined) {
      const r = await range(start, limit);
      const items = r.kvs.map((kv) => toStored(kv, this.prefix.length));
      return { items, revision, more: r.more, remaining: r.count - items.length };
    }
    const items: StoredValue[] = [];
    let from = start;
    let batch = limit;
    // Each round reads past the keys of the previous one: it ends when the range is exhausted or `limit` items matched.
    for (;;) {
      const r = await range(from, batch);
      for (let i = 0; i < r.kvs.length; i++) {
        const v = toStored(r.kvs[i] as (typeof r.kvs)[number], this.prefix.length);
        if (!opts.predicate(v)) continue;
        items.push(v);
        if (limit > 0 && items.length === limit) return { items, revision, more: i < r.kvs.length - 1 || r.more, remaining: undefined };
      }
      const lastKv = r.kvs[r.kvs.length - 1];
      if (!r.more || lastKv === undefined) return { items, revision, more: false, remaining: undefined };
      from = Buffer.concat([lastKv.key, Buffer.from([0])]);
      batch = Math.min(batch * 2, MAX_BATCH);
    }
  }

  async create(key: string, value: Uint8Array): Promise<StoredValue> {
    const k = this.full(key);
    const r = await this.txn(key, {
      compare: [{ result: 'EQUAL', target: 'CREATE', key: k, createRevision: 0 }],
      success: [{ requestPut: { key: k, value } }],
      failure: [{ requestRange: { key: k } }],
    });
    if (!r.succeeded) throw new StorageError('KeyExists', key);
    const rev = headerRevision(r, 'Txn');
    return { key, value, createRevision: rev, modRevision: rev };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<StoredValue> {
    const k = this.full(key);
    const r = await this.txn(key, {
      compare: [cmpCreated(k), cmpMod(k, expectedModRevision)],
      success: [{ requestPut: { key: k, value, prevKv: true } }],
      failure: [{ requestRange: { key: k } }],
    });
    if (!r.succeeded) throw this.casFailure(key, r, expectedModRevision);
    const rev = headerRevision(r, 'Txn');
    const prev = r.responses[0]?.responsePut?.prevKv;
    return { key, value, createRevision: prev == null ? rev : prev.createRevision, modRevision: rev };
  }

  async delete(key: string, expectedModRevision?: number): Promise<{ prev: StoredValue; revision: number }> {
    const k = this.full(key);
    const r = await this.txn(key, {
      compare: expectedModRevision === undefined ? [cmpCreated(k)] : [cmpCreated(k), cmpMod(k, expectedModRevision)],
      success: [{ requestDeleteRange: { key: k, prevKv: true } }],
      failure: [{ requestRange: { key: k } }],
    });
    if (!r.succeeded) throw this.casFailure(key, r, expectedModRevision);
    const deleted: WireDeleteRangeResponse | null | undefined = r.responses[0]?.responseDeleteRange;
    const prevKv = deleted?.prevKvs[0];
    // The compare proved the key existed in this very transaction, so the delete returned it.
    if (prevKv === undefined) throw new StorageError('NotFound', key);
    return { prev: toStored(prevKv, this.prefix.length), revision: headerRevision(r, 'Txn') };
  }

  /** A failed compare: the key is gone ('NotFound') or changed ('Conflict' with the value now stored). */
  private casFailure(key: string, r: WireTxnResponse, expected: number | undefined): StorageError {
    const kv = r.responses[0]?.responseRange?.kvs[0];
    if (kv === undefined) return new StorageError('NotFound', key);
    const current = toStored(kv, this.prefix.length);
    return new StorageError('Conflict', key, { current, message: `${key}: expected modRevision ${expected ?? '(any)'}, now ${current.modRevision}` });
  }

  watch(prefix: string, opts: WatchOptions): AsyncIterable<StorageEvent> {
    return etcdWatch(
      {
        client: this.client,
        storePrefix: this.prefix,
        storeSignal: this.stop.signal,
        noteCompacted: (rev) => this.noteCompacted(rev),
        compacted: () => this.compacted,
        log: this.opts.log,
        ...(this.opts.watchRetries === undefined ? {} : { maxRetries: this.opts.watchRetries }),
      },
      prefix,
      opts,
    );
  }

  async compact(revision: number): Promise<void> {
    this.live('');
    if (revision <= this.compacted) return;
    const target = Math.min(revision, await this.currentRevision());
    if (target <= this.compacted) return;
    try {
      await this.client.call('KV', 'Compact', { revision: target }, '');
    } catch (err) {
      // Already compacted this far (by another server): nothing left to do.
      if (!(err instanceof StorageError && err.code === 'Compacted')) throw err;
    }
    this.noteCompacted(target);
  }

  private async claim(clock: number, revision: number): Promise<CompactionClaim> {
    const k = Buffer.from(COMPACT_REV_KEY);
    const r = await this.txn(COMPACT_REV_KEY, {
      compare: [{ result: 'EQUAL', target: 'VERSION', key: k, version: clock }],
      success: [{ requestPut: { key: k, value: Buffer.from(String(revision)) } }],
      failure: [{ requestRange: { key: k } }],
    });
    const rev = headerRevision(r, 'Txn');
    if (r.succeeded) return { won: true, clock: clock + 1, revision: rev };
    return { won: false, clock: r.responses[0]?.responseRange?.kvs[0]?.version ?? 0, revision: rev };
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.stop.abort(new StorageError('Closed', '', { message: 'the etcd store is closed' }));
      this.client.close();
    }
    return Promise.resolve();
  }
}
