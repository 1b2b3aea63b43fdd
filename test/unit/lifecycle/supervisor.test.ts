import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import type { Component } from '../../../src/lifecycle/component.js';
import { runComponents } from '../../../src/lifecycle/supervisor.js';
import { fakeComponent, flush, recordingLog } from './fakes.js';
import { startLeakProbe, type LeakProbe } from './leak-probe.js';

let probe: LeakProbe;
beforeEach(() => {
  probe = startLeakProbe();
});
afterEach(async () => {
  await probe.assertClean();
});

const TIMEOUT = 5_000;

describe('runComponents', () => {
  it('starts each component only after the previous one is ready', async () => {
    const events: string[] = [];
    const a = fakeComponent('a', events, { autoReady: false });
    const b = fakeComponent('b', events);
    const parent = new AbortController();
    const running = runComponents([a, b], { signal: parent.signal, shutdownTimeoutMs: TIMEOUT, log: recordingLog() });
    await a.started;
    await flush();
    expect(events).toEqual(['start a']);
    a.becomeReady();
    await b.ready;
    expect(events).toEqual(['start a', 'ready a', 'start b', 'ready b']);
    parent.abort();
    await running;
  });

  it('stops in reverse order, awaiting each before aborting the next', async () => {
    const events: string[] = [];
    const a = fakeComponent('a', events);
    const b = fakeComponent('b', events);
    const c = fakeComponent('c', events, { autoStop: false });
    const parent = new AbortController();
    const log = recordingLog();
    const running = runComponents([a, b, c], { signal: parent.signal, shutdownTimeoutMs: TIMEOUT, log });
    await c.ready;
    parent.abort(new Error('bye'));
    await c.aborted;
    await flush();
    expect(events.slice(-1)).toEqual(['abort c']);
    c.finishStop();
    await expect(running).resolves.toBeUndefined();
    expect(events.slice(6)).toEqual(['abort c', 'stopped c', 'abort b', 'stopped b', 'abort a', 'stopped a']);
    expect(log.lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it('gives each child its own signal carrying the parent reason', async () => {
    const events: string[] = [];
    const a = fakeComponent('a', events);
    const parent = new AbortController();
    const running = runComponents([a], { signal: parent.signal, shutdownTimeoutMs: TIMEOUT, log: recordingLog() });
    await a.ready;
    const child = a.signal();
    expect(child).toBeDefined();
    expect(child).not.toBe(parent.signal);
    const reason = new Error('shutdown');
    parent.abort(reason);
    await running;
    expect(child?.reason).toBe(reason);
  });

  it('on a failure after startup stops the others in reverse and rejects with that error', async () => {
    const events: string[] = [];
    const a = fakeComponent('a', events);
    const b = fakeComponent('b', events);
    const c = fakeComponent('c', events);
    const parent = new AbortController();
    const log = recordingLog();
    const running = runComponents([a, b, c], { signal: parent.signal, shutdownTimeoutMs: TIMEOUT, log });
    await c.ready;
    const boom = new Error('boom');
    b.fail(boom);
    await expect(running).rejects.toBe(boom);
    expect(events.slice(6)).toEqual(['failed b', 'abort c', 'stopped c', 'abort a', 'stopped a']);
    expect(log.lines).toContainEqual({ level: 'error', msg: 'component failed', fields: { child: 'b', error: 'boom' } });
    expect(parent.signal.aborted).toBe(false);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it('on a failure before ready starts nothing after it', async () => {
    const events: string[] = [];
    const a = fakeComponent('a', events);
    const b = fakeComponent('b', events, { autoReady: false });
    const c = fakeComponent('c', events);
    const running = runComponents([a, b, c], {
      signal: new AbortController().signal,
      shutdownTimeoutMs: TIMEOUT,
      log: recordingLog(),
    });
    await b.started;
    b.fail(new Error('cannot start'));
    await expect(running).rejects.toThrow('cannot start');
    expect(events).toEqual(['start a', 'ready a', 'start b', 'failed b', 'abort a', 'stopped a']);
  });

  it('treats run() resolving before shutdown as a failure', async () => {
    const events: string[] = [];
    const a = fakeComponent('a', events);
    const b = fakeComponent('b', events);
    const running = runComponents([a, b], {
      signal: new AbortController().signal,
      shutdownTimeoutMs: TIMEOUT,
      log: recordingLog(),
    });
    await b.ready;
    b.finishStop();
    const err = await running.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect(err).toMatchObject({ code: 'EINTERNAL', message: 'component "b" stopped before shutdown' });
    expect(events.slice(-2)).toEqual(['abort a', 'stopped a']);
  });

  it('treats a rejected ready as a failure and aborts that component', async () => {
    const events: string[] = [];
    const a = fakeComponent('a', events);
    let signal: AbortSignal | undefined;
    const notReady = new Error('not ready');
    const odd: Component = {
      name: 'odd',
      ready: Promise.reject(notReady),
      run: (s) => {
        signal = s;
        return new Promise<void>((resolve) => s.addEventListener('abort', () => resolve(), { once: true }));
      },
    };
    const running = runComponents([a, odd], {
      signal: new AbortController().signal,
      shutdownTimeoutMs: TIMEOUT,
      log: recordingLog(),
    });
    await expect(running).rejects.toBe(notReady);
    expect(signal?.aborted).toBe(true);
    expect(events.slice(-2)).toEqual(['abort a', 'stopped a']);
  });

  it('treats a synchronous throw from run() as a failure', async () => {
    const thrown = new Error('sync');
    const bad: Component = {
      name: 'bad',
      ready: new Promise<void>(() => {}),
      run: () => {
        throw thrown;
      },
    };
    await expect(
      runComponents([bad], { signal: new AbortController().signal, shutdownTimeoutMs: TIMEOUT, log: recordingLog() }),
    ).rejects.toBe(thrown);
  });

  it('on the deadline aborts the rest, names the stuck ones and rejects', async () => {
    const events: string[] = [];
    const a = fakeComponent('a', events);
    const b = fakeComponent('b', events, { autoStop: false });
    const c = fakeComponent('c', events);
    const parent = new AbortController();
    const log = recordingLog();
    const running = runComponents([a, b, c], { signal: parent.signal, shutdownTimeoutMs: 50, log });
    await c.ready;
    parent.abort();
    const err = await running.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect((err as AgentError).message).toBe('shutdown did not finish within 50ms; still running: b');
    expect(events.slice(6)).toEqual(['abort c', 'stopped c', 'abort b', 'abort a', 'stopped a']);
    expect(log.lines).toContainEqual({
      level: 'error',
      msg: 'shutdown deadline exceeded; components still running',
      fields: { components: ['b'], timeoutMs: 50 },
    });
    b.finishStop();
  });

  it('counts a rejection with the abort reason as a clean stop', async () => {
    const polite: Component = {
      name: 'polite',
      ready: Promise.resolve(),
      run: (s) =>
        new Promise<void>((_resolve, reject) => s.addEventListener('abort', () => reject(s.reason), { once: true })),
    };
    const parent = new AbortController();
    const running = runComponents([polite], { signal: parent.signal, shutdownTimeoutMs: TIMEOUT, log: recordingLog() });
    await flush();
    parent.abort(new Error('stop'));
    await expect(running).resolves.toBeUndefined();
  });

  it('rejects with an error raised while stopping, after stopping the others', async () => {
    const events: string[] = [];
    const a = fakeComponent('a', events);
    const b = fakeComponent('b', events, { autoStop: false });
    const parent = new AbortController();
    const running = runComponents([a, b], { signal: parent.signal, shutdownTimeoutMs: TIMEOUT, log: recordingLog() });
    await b.ready;
    parent.abort();
    await b.aborted;
    b.fail(new Error('flush failed'));
    await expect(running).rejects.toThrow('flush failed');
    expect(events.slice(-2)).toEqual(['abort a', 'stopped a']);
  });

  it('stops a component still starting when the parent aborts, and starts nothing more', async () => {
    const events: string[] = [];
    const a = fakeComponent('a', events);
    const b = fakeComponent('b', events, { autoReady: false });
    const c = fakeComponent('c', events);
    const parent = new AbortController();
    const running = runComponents([a, b, c], { signal: parent.signal, shutdownTimeoutMs: TIMEOUT, log: recordingLog() });
    await b.started;
    parent.abort();
    await expect(running).resolves.toBeUndefined();
    expect(events).toEqual(['start a', 'ready a', 'start b', 'abort b', 'stopped b', 'abort a', 'stopped a']);
  });

  it('starts nothing when the signal is already aborted', async () => {
    const events: string[] = [];
    const parent = new AbortController();
    parent.abort();
    await runComponents([fakeComponent('a', events)], {
      signal: parent.signal,
      shutdownTimeoutMs: TIMEOUT,
      log: recordingLog(),
    });
    expect(events).toEqual([]);
  });

  it('with no components waits for the abort', async () => {
    const parent = new AbortController();
    let done = false;
    const running = runComponents([], { signal: parent.signal, shutdownTimeoutMs: TIMEOUT, log: recordingLog() }).then(
      () => {
        done = true;
      },
    );
    await flush();
    expect(done).toBe(false);
    parent.abort();
    await running;
    expect(done).toBe(true);
  });
});
