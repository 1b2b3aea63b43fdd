import { describe, expect, it } from 'vitest';
import { compactionStep, createCompactor, type CompactionClaim, type CompactorState } from '../../../../src/apiserver/storage/compactor.js';
import type { Storage } from '../../../../src/apiserver/storage/interface.js';
import { createMemoryStorage } from '../../../../src/apiserver/storage/memory.js';
import { testLogger } from '../../../helpers/test-logger.js';

describe('compactionStep', () => {
  it.each<[string, CompactorState, CompactionClaim, CompactorState, number | undefined]>([
    ['first window: nothing seen before, nothing compacted', { clock: 0, revision: 0 }, { won: true, clock: 1, revision: 10 }, { clock: 1, revision: 10 }, undefined],
    ['won: compact to the revision seen one window earlier', { clock: 1, revision: 10 }, { won: true, clock: 2, revision: 25 }, { clock: 2, revision: 25 }, 10],
    ['lost: adopt the other server’s clock, compact nothing', { clock: 1, revision: 10 }, { won: false, clock: 4, revision: 30 }, { clock: 4, revision: 30 }, undefined],
  ])('%s', (_name, state, claim, next, compactTo) => {
    expect(compactionStep(state, claim)).toEqual({ next, compactTo });
  });
});

describe('createCompactor', () => {
  it('each window claims with the state the previous one left, compacts the store, and nothing runs after the signal', async () => {
    const storage = createMemoryStorage();
    const seen: [number, number][] = [];
    const stop = new AbortController();
    const coordinator = {
      claim: async (clock: number, revision: number): Promise<CompactionClaim> => {
        seen.push([clock, revision]);
        await storage.create(`k${seen.length}`, new Uint8Array());
        if (seen.length === 3) stop.abort();
        return { won: true, clock: clock + 1, revision: await storage.currentRevision() };
      },
    };
    await createCompactor({ storage, intervalMs: 1, coordinator, log: testLogger() }).run(stop.signal);
    expect(seen).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    // Window 2 compacted to 1 (window 1's revision), window 3 to 2.
    expect(await storage.compactedRevision()).toBe(2);
    await storage.close();
  });

  it('without a coordinator it uses a local clock and the store’s current revision', async () => {
    const storage = createMemoryStorage();
    await storage.create('a', new Uint8Array());
    const stop = new AbortController();
    let windows = 0;
    // The memory store, counting the windows through the one call each makes.
    const counting: Storage = Object.assign(Object.create(storage) as Storage, {
      currentRevision: async () => {
        if (++windows === 2) stop.abort();
        return storage.currentRevision();
      },
      compact: (r: number) => storage.compact(r),
    });
    await createCompactor({ storage: counting, intervalMs: 1, log: testLogger() }).run(stop.signal);
    expect(await storage.compactedRevision()).toBe(1);
    await storage.close();
  });

  it('a failed window is logged and the next one tries again', async () => {
    const storage = createMemoryStorage();
    const log = testLogger();
    const stop = new AbortController();
    let calls = 0;
    const coordinator = {
      claim: (clock: number): Promise<CompactionClaim> => {
        if (++calls === 2) stop.abort();
        return calls === 1 ? Promise.reject(new Error('etcd down')) : Promise.resolve({ won: true, clock: clock + 1, revision: 0 });
      },
    };
    await createCompactor({ storage, intervalMs: 1, coordinator, log }).run(stop.signal);
    expect(calls).toBe(2);
    expect(log.records.some((r) => r.level === 'warn' && r.fields['err'] === 'etcd down')).toBe(true);
    await storage.close();
  });

  it('interval 0 disables it; an aborted signal stops it while it waits', async () => {
    const storage = createMemoryStorage();
    await createCompactor({ storage, intervalMs: 0, log: testLogger() }).run(new AbortController().signal);
    const stop = new AbortController();
    const running = createCompactor({ storage, intervalMs: 60_000, log: testLogger() }).run(stop.signal);
    stop.abort();
    await running;
    expect(await storage.compactedRevision()).toBe(0);
    await storage.close();
  });
});
