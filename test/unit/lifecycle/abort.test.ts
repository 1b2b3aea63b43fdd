import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { abortableSleep, isAbortError, onAbort, waitForAbort } from '../../../src/lifecycle/abort.js';
import { startLeakProbe, type LeakProbe } from './leak-probe.js';

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
