// The history compactor (kube-apiserver's storage/etcd3/compact.go, with
// `--etcd-compaction-interval`, default 5 min): every window it compacts the
// store to the revision it saw one window earlier, so a client has at least
// one window to resume a list or a watch from a revision it holds.
//
// Several servers over one etcd coordinate as kube-apiserver's do, through a
// shared logical clock (the version of etcd's `compact_rev_key`): each window
// a server does a compare-and-swap "if the clock is still what I saw, advance
// it"; only the server whose swap succeeds compacts, the others adopt the
// clock and revision they read and try again next window. The etcd store
// supplies that swap (its `compaction` coordinator); a store without one
// (memory) gets a local clock and compacts on its own.
//
// run(signal) is the one way to start it and the signal the one way to stop
// it; it resolves once stopped and leaves no timer behind. Failures of one
// window are logged and the next window tries again.

import { abortableSleep } from '../../lifecycle/abort.js';
import type { Storage } from './interface.js';

/** The outcome of one compare-and-swap of the shared compaction clock. */
export interface CompactionClaim {
  /** This server advanced the clock and should compact. */
  won: boolean;
  /** The clock now (after our advance, or the one another server left). */
  clock: number;
  /** The store's revision when the swap was applied: what the next window compacts to. */
  revision: number;
}

export interface CompactionCoordinator {
  /**
   * If the shared clock is still `clock`, advance it and record `revision`
   * (the revision about to be compacted to); otherwise read it. One etcd
   * transaction; never retried here. Rejects with a StorageError.
   */
  claim(clock: number, revision: number): Promise<CompactionClaim>;
}

export interface CompactorLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface CompactorOptions {
  storage: Storage;
  /** The window; <= 0 disables compaction (run returns at once), as kube-apiserver's 0. */
  intervalMs: number;
  /** Shared clock across servers (the etcd store's); none: a local one. */
  coordinator?: CompactionCoordinator;
  log: CompactorLog;
}

export interface CompactorState {
  clock: number;
  /** The revision seen at the previous window (0: none yet). */
  revision: number;
}

/**
 * What one window does, given the swap's outcome: the next state, and the
 * revision to compact to (the one seen one window earlier, which stays
 * readable). Nothing on the first window (no earlier revision, kube-apiserver
 * does not compact on bootstrap), nothing when another server won.
 */
export function compactionStep(state: CompactorState, claim: CompactionClaim): { next: CompactorState; compactTo: number | undefined } {
  const next = { clock: claim.clock, revision: claim.revision };
  if (!claim.won || state.revision <= 0) return { next, compactTo: undefined };
  return { next, compactTo: state.revision };
}

export interface Compactor {
  run(signal: AbortSignal): Promise<void>;
}

export function createCompactor(opts: CompactorOptions): Compactor {
  const { storage, intervalMs, coordinator, log } = opts;
  let state: CompactorState = { clock: 0, revision: 0 };
  const claim = async (): Promise<CompactionClaim> =>
    coordinator !== undefined ? coordinator.claim(state.clock, state.revision) : { won: true, clock: state.clock + 1, revision: await storage.currentRevision() };

  const window = async (): Promise<void> => {
    const step = compactionStep(state, await claim());
    state = step.next;
    if (step.compactTo === undefined) return;
    await storage.compact(step.compactTo);
    log.info('compacted storage history', { compactedRevision: step.compactTo });
  };

  return {
    async run(signal) {
      if (intervalMs <= 0) {
        log.info('storage compaction disabled (interval 0)');
        return;
      }
      for (;;) {
        try {
          await abortableSleep(intervalMs, signal);
        } catch {
          return;
        }
        try {
          await window();
        } catch (err) {
          if (signal.aborted) return;
          log.warn('storage compaction failed; next window retries', { err: (err as Error).message });
        }
      }
    },
  };
}
