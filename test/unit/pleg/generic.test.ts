// The generic PLEG's scheduling: a relist every period, and one at once when kicked.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { createPleg } from '../../../src/pleg/generic.js';
import { testLogger } from '../../helpers/test-logger.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function start(runtime: FakeRuntime) {
  let relists = 0;
  const pleg = createPleg({ runtime, log: testLogger(), periodMs: 600_000, onRelist: () => void relists++ });
  const ac = new AbortController();
  const run = pleg.run(ac.signal);
  stops.push(async () => {
    ac.abort();
    await run;
  });
  return { pleg, relists: () => relists };
}

describe('generic PLEG', () => {
  it('relists at once when kicked between relists', async () => {
    const h = start(new FakeRuntime());
    await vi.waitFor(() => expect(h.relists()).toBe(1));
    h.pleg.kick();
    await vi.waitFor(() => expect(h.relists()).toBe(2));
  });

  it('relists again right after a relist that was under way when kicked', async () => {
    const runtime = new FakeRuntime();
    const h = start(runtime);
    await vi.waitFor(() => expect(h.relists()).toBe(1));
    const held = runtime.block('listContainers');
    h.pleg.kick();
    await held.arrived; // the second relist has begun; a kick now may come too late for it
    h.pleg.kick();
    held.release();
    await vi.waitFor(() => expect(h.relists()).toBe(3));
  });
});
