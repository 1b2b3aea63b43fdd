// The generic PLEG's scheduling: a relist every period, and one at once when kicked.
// The tests wait on the PLEG's own reports (onRelist), not on a polling timer.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { createPleg } from '../../../src/pleg/index.js';
import { testLogger } from '../../helpers/test-logger.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function start(runtime: FakeRuntime) {
  let relists = 0;
  const waiters = new Set<() => void>();
  const pleg = createPleg({
    runtime,
    log: testLogger(),
    periodMs: 600_000,
    onRelist: () => {
      relists++;
      for (const w of [...waiters]) w();
    },
  });
  const ac = new AbortController();
  const run = pleg.run(ac.signal);
  stops.push(async () => {
    ac.abort();
    await run;
  });
  /** Resolves once `n` relists have been reported. */
  const relisted = (n: number): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (relists < n) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  return { pleg, relists: () => relists, relisted };
}

describe('generic PLEG', () => {
  it('relists at once when kicked between relists', async () => {
    const h = start(new FakeRuntime());
    await h.relisted(1);
    expect(h.relists()).toBe(1);
    h.pleg.kick();
    await h.relisted(2);
    expect(h.relists()).toBe(2);
  });

  it('relists again right after a relist that was under way when kicked', async () => {
    const runtime = new FakeRuntime();
    const h = start(runtime);
    await h.relisted(1);
    expect(h.relists()).toBe(1);
    const held = runtime.block('listContainers');
    h.pleg.kick();
    await held.arrived; // the second relist has begun; a kick now may come too late for it
    h.pleg.kick();
    held.release();
    await h.relisted(3);
    expect(h.relists()).toBe(3);
  });
});
