// The etcd store's watch: one etcd Watch stream per call (one watcher on it),
// created at afterRevision+1 with prev_kv, turned into the store's ordered
// events. Called by EtcdStorage.watch; the iterator is the contract:
// - it returns when the caller's signal or the store's close aborts;
// - it throws 'Compacted' when etcd says the start revision is compacted;
// - a broken stream is reopened from the last delivered revision (on the next
//   endpoint after UNAVAILABLE), at most `maxRetries` times in a row, then
//   the iterator throws 'Unavailable'; a watch etcd created again resets the count;
// - 'progress' events come from etcd's progress requests, sent after
//   `progressIntervalMs` without anything delivered.
// Nothing runs after the iterator ends: the stream is cancelled and every
// timer and listener removed in its finally.

import type * as GrpcJs from '@grpc/grpc-js';
import { abortableSleep, onAbort } from '../../lifecycle/abort.js';
import { StorageError, type StorageEvent, type WatchOptions } from './interface.js';
import type { EtcdClient, StorageLog } from './etcd-client.js';
import { GRPC_UNAVAILABLE, prefixRangeEnd, toStored, type WireEvent, type WireWatchResponse } from './etcd-wire.js';

export interface EtcdWatchContext {
  readonly client: EtcdClient;
  /** The store's prefix (bytes stripped from every key). */
  readonly storePrefix: Buffer;
  /** Aborted by the store's close(). */
  readonly storeSignal: AbortSignal;
  /** Records a compacted revision the watch learned of. */
  noteCompacted(revision: number): void;
  /** The compacted revision the store knows of (a watch from before it is refused without asking etcd). */
  compacted(): number;
  readonly log: StorageLog;
  /** Reopen attempts in a row before 'Unavailable' (default 5). */
  readonly maxRetries?: number;
  /** First back-off between reopen attempts; doubles up to 2 s (default 100 ms). */
  readonly retryBaseMs?: number;
}

/** Responses queued beyond this pause the stream until the consumer catches up. */
const HIGH_WATER = 256;

type Item = { kind: 'response'; r: WireWatchResponse } | { kind: 'broken'; code: number; details: string };

/** Maps one etcd event; a delete without its previous value (compacted away) cannot be delivered faithfully. */
export function toStorageEvent(e: WireEvent, prefixLength: number, key: string): StorageEvent {
  if (e.kv == null) throw new StorageError('Unavailable', key, { message: 'etcd sent a watch event without kv' });
  const prev = e.prevKv == null ? undefined : toStored(e.prevKv, prefixLength);
  if (e.type === 'PUT') return { type: 'put', kv: toStored(e.kv, prefixLength), prev };
  const revision = e.kv.modRevision;
  if (prev === undefined) throw new StorageError('Compacted', key, { revision, message: `the previous value of deleted key ${e.kv.key.subarray(prefixLength).toString()} at revision ${revision} is compacted` });
  return { type: 'delete', key: prev.key, prev, revision };
}

export async function* etcdWatch(ctx: EtcdWatchContext, prefix: string, opts: WatchOptions): AsyncGenerator<StorageEvent, void, undefined> {
  if (ctx.storeSignal.aborted) throw new StorageError('Closed', prefix, { message: 'the etcd store is closed' });
  // etcd itself accepts a watch from exactly its compaction revision (afterRevision = compacted - 1); the interface does not.
  const known = ctx.compacted();
  if (opts.afterRevision < known) throw new StorageError('Compacted', prefix, { revision: known, message: `watch of ${prefix} after revision ${opts.afterRevision}: compacted up to ${known}` });
  if (opts.signal.aborted) return;
  const stop = new AbortController();
  const detachCaller = onAbort(opts.signal, () => stop.abort());
  const detachStore = onAbort(ctx.storeSignal, () => stop.abort());
  const full = Buffer.concat([ctx.storePrefix, Buffer.from(prefix, 'utf8')]);
  const rangeEnd = prefixRangeEnd(full);
  const maxRetries = ctx.maxRetries ?? 5;
  const retryBaseMs = ctx.retryBaseMs ?? 100;
  const watchCodec = ctx.client.codec('Watch', 'Watch');
  let last = opts.afterRevision;
  let failures = 0;
  let stream: GrpcJs.ClientDuplexStream<object, unknown> | undefined;
  let progressTimer: ReturnType<typeof setTimeout> | undefined;
  const queue: Item[] = [];
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const endStream = (): void => {
    if (progressTimer !== undefined) clearTimeout(progressTimer);
    progressTimer = undefined;
    if (stream === undefined) return;
    const s = stream;
    stream = undefined;
    s.removeAllListeners('data');
    s.removeAllListeners('end');
    s.on('error', () => {}); // the cancel below surfaces as a CANCELLED error
    s.cancel();
  };
  // On abort, stop everything at once, even while the consumer holds the iterator suspended at a yield.
  const detachStop = onAbort(stop.signal, () => {
    endStream();
    notify();
  });
  const armProgress = (): void => {
    const interval = opts.progressIntervalMs ?? 0;
    if (interval <= 0 || stream === undefined) return;
    if (progressTimer !== undefined) clearTimeout(progressTimer);
    const s = stream;
    progressTimer = setTimeout(() => {
      progressTimer = undefined;
      if (stream !== s) return;
      s.write({ progressRequest: {} });
      // etcd answers a progress request only while its watchers are synced: ask again later if this one gets no answer.
      armProgress();
    }, interval);
  };
  const open = (): void => {
    const index = ctx.client.endpointIndex;
    const s = ctx.client.clientAt(index).makeBidiStreamRequest<object, unknown>(watchCodec.path, watchCodec.serialize, watchCodec.deserialize as (b: Buffer) => unknown, new ctx.client.grpc.Metadata());
    stream = s;
    s.on('data', (r: unknown) => {
      queue.push({ kind: 'response', r: r as WireWatchResponse });
      if (queue.length >= HIGH_WATER) s.pause();
      notify();
    });
    const broken = (code: number, details: string): void => {
      if (stream !== s) return;
      if (code === GRPC_UNAVAILABLE) ctx.client.failedOver(index);
      queue.push({ kind: 'broken', code, details });
      notify();
    };
    s.on('error', (err: GrpcJs.ServiceError) => broken(err.code, err.details));
    s.on('end', () => broken(0, 'the watch stream ended'));
    s.write({ createRequest: { key: full, rangeEnd, startRevision: last + 1, prevKv: true } });
  };

  try {
    open();
    for (;;) {
      if (stop.signal.aborted) return;
      const item = queue.shift();
      if (item === undefined) {
        if (stream?.isPaused() === true) stream.resume();
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      if (item.kind === 'broken') {
        endStream();
        queue.length = 0;
        failures++;
        if (failures > maxRetries) throw new StorageError('Unavailable', prefix, { message: `etcd watch on ${prefix}: ${item.details} (gave up after ${maxRetries} reopen attempts)` });
        ctx.log.warn('etcd watch stream broken, reopening', { prefix, afterRevision: last, code: item.code, details: item.details, attempt: failures });
        try {
          await abortableSleep(Math.min(retryBaseMs * 2 ** (failures - 1), 2_000), stop.signal);
        } catch {
          return;
        }
        open();
        continue;
      }
      const r = item.r;
      if (r.compactRevision > 0) {
        ctx.noteCompacted(r.compactRevision);
        throw new StorageError('Compacted', prefix, { revision: r.compactRevision, message: `watch of ${prefix} from revision ${last + 1}: etcd compacted up to ${r.compactRevision}` });
      }
      if (r.created) {
        if (r.canceled) throw new StorageError('Unavailable', prefix, { message: `etcd refused the watch of ${prefix}: ${r.cancelReason}` });
        failures = 0;
        armProgress();
        continue;
      }
      if (r.canceled) {
        queue.unshift({ kind: 'broken', code: 0, details: `etcd cancelled the watch: ${r.cancelReason}` });
        continue;
      }
      if (r.events.length === 0) {
        const rev = r.header?.revision ?? 0;
        armProgress();
        if (rev < last) continue;
        last = rev;
        yield { type: 'progress', revision: rev };
        continue;
      }
      for (const e of r.events) {
        const ev = toStorageEvent(e, ctx.storePrefix.length, prefix);
        last = ev.type === 'put' ? ev.kv.modRevision : ev.revision;
        yield ev;
        if (stop.signal.aborted) return;
      }
      armProgress();
    }
  } finally {
    endStream();
    detachStop();
    detachCaller();
    detachStore();
  }
}
