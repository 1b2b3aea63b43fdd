// Many pods starting and stopping at once must not make node warn about abort
// listeners (MaxListenersExceededWarning), and must leave none behind: the
// manager's signal lives as long as the agent, so a listener left per sync
// would be a leak that grows with every pod change.
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { abortWaiters } from '../../../src/lifecycle/abort.js';
import { manifest, start } from './harness.js';

const warnings: Error[] = [];
const onWarning = (w: Error): void => void warnings.push(w);
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
});

const abortWarnings = () => warnings.filter((w) => w.name === 'MaxListenersExceededWarning' && /abort listeners/.test(w.message));
/** Lets node emit a pending process warning (it is emitted on the next tick). */
const flush = () => new Promise((r) => setImmediate(r));

describe('abort listeners on the pod manager signal', () => {
  it('60 pods started and stopped at once: no MaxListenersExceededWarning, and the listener count returns to its baseline', async () => {
    const h = start({ plegPeriodMs: 20 });
    // What waits on the signal (through onAbort), and node's listeners behind it.
    const listeners = () => [abortWaiters(h.signal), getEventListeners(h.signal, 'abort').length];
    await flush();
    const baseline = listeners();
    let peak = 0;
    const pods = Array.from({ length: 60 }, (_, i) => manifest(`many-${i}`));
    h.set(pods);
    await h.until(() => {
      peak = Math.max(peak, abortWaiters(h.signal));
      return pods.every((p) => h.phase(p) === 'Running');
    }, 'all Running', 20_000);
    // Many syncs did wait on it at once (one per pod waiting for a relist): the case node warned about.
    expect(peak).toBeGreaterThan(10);
    await h.until(() => !h.manager.busy(), 'workers idle');
    expect(listeners()).toEqual(baseline);
    h.set([]);
    await h.until(() => h.runtime.sandboxes().length === 0 && !h.manager.busy(), 'all torn down', 20_000);
    await flush();
    expect(listeners()).toEqual(baseline);
    expect(abortWarnings().map((w) => w.message)).toEqual([]);
  });
});
