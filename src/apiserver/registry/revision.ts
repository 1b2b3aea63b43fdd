// Reads at a resourceVersion the store has not reached yet (§7 rule 1): wait
// briefly for the store to catch up (another server process over the same
// etcd may be ahead of this one), then answer 504 "Too large resource
// version" with Retry-After. Called by get/list/watch before they read; may
// block up to `waitMs`; the timer is always cleared.
import { apiErrors } from '../../api/errors.js';
import { isStorageError, type Storage, type StorageEvent } from '../storage/interface.js';

const RETRY_AFTER_SECONDS = 1;

function revisionOf(ev: StorageEvent): number {
  switch (ev.type) {
    case 'put':
      return ev.kv.modRevision;
    case 'delete':
    case 'progress':
      return ev.revision;
  }
}

/** Resolves once the store's revision is at least `rv`; rejects with tooLargeResourceVersion after `waitMs`. */
export async function waitForRevision(storage: Storage, rv: number, waitMs: number, prefix = '/registry/'): Promise<void> {
  const current = await storage.currentRevision();
  if (current >= rv) return;
  if (waitMs > 0) {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), waitMs);
    try {
      for await (const ev of storage.watch(prefix, { afterRevision: current, signal: ac.signal, progressIntervalMs: Math.min(waitMs, 250) })) {
        if (revisionOf(ev) >= rv) return;
      }
    } catch (e) {
      // A compaction under a brand-new watch means the store moved on: re-check below.
      if (isStorageError(e, 'Closed') || isStorageError(e, 'Unavailable')) throw apiErrors.serviceUnavailable(`storage is unavailable: ${e.message}`);
      if (!isStorageError(e, 'Compacted')) throw e;
    } finally {
      clearTimeout(timer);
      ac.abort();
    }
    if ((await storage.currentRevision()) >= rv) return;
  }
  throw apiErrors.tooLargeResourceVersion(RETRY_AFTER_SECONDS);
}
