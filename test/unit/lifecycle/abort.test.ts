import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { abortableSleep, abortWaiters, isAbortError, onAbort, waitForAbort } from '../../../src/lifecycle/abort.js';
import { startLeakProbe, type LeakProbe } from './leak-probe.js';
import { startWarningProbe } from './warning-probe.js';

let probe: LeakProbe;
beforeEach(() => {
  probe = startLeakProbe();
});
afterEach(async () => {
  await probe.assertClean();
});

const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

describe('abortableSleep', () => {
  it('resolves after the delay and leaves no listener or timer', async () => {
    const ctl = new AbortController();
    const sleeping = abortableSleep(5, ctl.signal);
    expect(listeners(ctl.signal)).toBe(1);
    expect(probe.liveTimers()).toBe(1);
    await expect(sleeping).resolves.toBeUndefined();
    expect(listeners(ctl.signal)).toBe(0);
    expect(probe.liveTimers()).toBe(0);
  });

  it('rejects with the abort reason and clears its timer', async () => {
    const ctl = new AbortController();
    const reason = new Error('stop');
    const sleeping = abortableSleep(60_000, ctl.signal);
    ctl.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
    expect(listeners(ctl.signal)).toBe(0);
    expect(probe.liveTimers()).toBe(0);
  });

  it('rejects at once on an already-aborted signal without arming a timer', async () => {
    const ctl = new AbortController();
    ctl.abort('gone');
    await expect(abortableSleep(60_000, ctl.signal)).rejects.toBe('gone');
    expect(probe.liveTimers()).toBe(0);
  });
});

describe('onAbort', () => {
  it('calls back once with the reason and the disposer detaches', () => {
    const ctl = new AbortController();
    const seen: unknown[] = [];
    const dispose = onAbort(ctl.signal, (r) => seen.push(r));
    expect(listeners(ctl.signal)).toBe(1);
    dispose();
    expect(listeners(ctl.signal)).toBe(0);
    ctl.abort('x');
    expect(seen).toEqual([]);
  });

  it('calls back synchronously when already aborted', () => {
    const ctl = new AbortController();
    ctl.abort('already');
    const seen: unknown[] = [];
    onAbort(ctl.signal, (r) => seen.push(r))();
    expect(seen).toEqual(['already']);
    expect(listeners(ctl.signal)).toBe(0);
  });

  it('fires on abort and removes its listener', () => {
    const ctl = new AbortController();
    const seen: unknown[] = [];
    onAbort(ctl.signal, (r) => seen.push(r));
    ctl.abort('now');
    expect(seen).toEqual(['now']);
    expect(listeners(ctl.signal)).toBe(0);
  });
});

describe('onAbort with many waiters on one long-lived signal', () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => void warnings.push(w);
  beforeEach(() => {
    warnings.length = 0;
    process.on('warning', onWarning);
  });
  afterEach(() => {
    process.off('warning', onWarning);
  });

  it('50 waiters share one listener: no MaxListenersExceededWarning; the listener goes with the last waiter', async () => {
    const ctl = new AbortController();
    const disposers = Array.from({ length: 50 }, () => onAbort(ctl.signal, () => {}));
    const sleeps = Array.from({ length: 50 }, () => abortableSleep(1, ctl.signal));
    expect(listeners(ctl.signal)).toBe(1);
    expect(abortWaiters(ctl.signal)).toBe(100);
    await Promise.all(sleeps);
    expect(abortWaiters(ctl.signal)).toBe(50);
    for (const d of disposers) d();
    expect(abortWaiters(ctl.signal)).toBe(0);
    expect(listeners(ctl.signal)).toBe(0);
    // A later waiter adds the listener again.
    const seen: unknown[] = [];
    onAbort(ctl.signal, (r) => seen.push(r));
    expect(listeners(ctl.signal)).toBe(1);
    ctl.abort('late');
    expect(seen).toEqual(['late']);
    await new Promise((r) => setImmediate(r)); // node emits its warning on a later tick
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('on abort every waiter is called in order, once, even when one detaches another or throws', () => {
    const ctl = new AbortController();
    const seen: string[] = [];
    const disposeC = { fn: (): void => {} };
    onAbort(ctl.signal, () => {
      seen.push('a');
      disposeC.fn();
    });
    onAbort(ctl.signal, () => {
      seen.push('b');
      throw new Error('b failed');
    });
    disposeC.fn = onAbort(ctl.signal, () => seen.push('c'));
    onAbort(ctl.signal, (r) => seen.push(`d:${String(r)}`));
    // The first error a waiter throws is rethrown from the signal's listener
    // (node then reports it as uncaught): call the listener itself to see it.
    const [listener] = getEventListeners(ctl.signal, 'abort') as Array<() => void>;
    ctl.signal.removeEventListener('abort', listener!);
    ctl.abort('why');
    expect(() => listener!()).toThrow('b failed');
    expect(seen).toEqual(['a', 'b', 'd:why']);
    expect(abortWaiters(ctl.signal)).toBe(0);
    expect(listeners(ctl.signal)).toBe(0);
  });
});

describe('waitForAbort / isAbortError', () => {
  it('waitForAbort resolves on abort and leaves no listener', async () => {
    const ctl = new AbortController();
    const waiting = waitForAbort(ctl.signal);
    ctl.abort();
    await waiting;
    expect(listeners(ctl.signal)).toBe(0);
  });

  it('recognises the signal reason and DOM AbortErrors, nothing else', () => {
    const ctl = new AbortController();
    const reason = new Error('why');
    ctl.abort(reason);
    expect(isAbortError(reason, ctl.signal)).toBe(true);
    expect(isAbortError(new DOMException('x', 'AbortError'))).toBe(true);
    expect(isAbortError(new Error('boom'), ctl.signal)).toBe(false);
    expect(isAbortError(reason, new AbortController().signal)).toBe(false);
  });
});

describe('the warning probe (test/unit/lifecycle/warning-probe.ts)', () => {
  it('sees the warning a real leak produces: 11 listeners added to one signal', async () => {
    const warnings = startWarningProbe();
    const ctl = new AbortController();
    const added = Array.from({ length: 11 }, () => () => {});
    try {
      for (const l of added) ctl.signal.addEventListener('abort', l);
      await warnings.settle();
      expect(warnings.abortListenerWarnings()).toEqual([expect.stringMatching(/11 abort listeners added to \[AbortSignal\]/)]);
    } finally {
      for (const l of added) ctl.signal.removeEventListener('abort', l);
      warnings.stop();
    }
  });
});
