import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { installSignalHandlers, ShutdownSignal, type SignalSource } from '../../../src/lifecycle/signals.js';
import { recordingLog } from './fakes.js';

function source(): EventEmitter & SignalSource {
  return new EventEmitter();
}

describe('installSignalHandlers', () => {
  it('aborts the controller on the first signal with a reason naming it', () => {
    const ctl = new AbortController();
    const src = source();
    const exits: string[] = [];
    const uninstall = installSignalHandlers(ctl, recordingLog(), { forceExit: (s) => exits.push(s), source: src });
    src.emit('SIGTERM', 'SIGTERM');
    expect(ctl.signal.aborted).toBe(true);
    expect(ctl.signal.reason).toBeInstanceOf(ShutdownSignal);
    expect(ctl.signal.reason).toMatchObject({ signal: 'SIGTERM', message: 'received SIGTERM' });
    expect(exits).toEqual([]);
    uninstall();
  });

  it('calls forceExit on a second signal, whichever it is', () => {
    const ctl = new AbortController();
    const src = source();
    const exits: string[] = [];
    const log = recordingLog();
    const uninstall = installSignalHandlers(ctl, log, { forceExit: (s) => exits.push(s), source: src });
    src.emit('SIGINT', 'SIGINT');
    src.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual(['SIGTERM']);
    expect((ctl.signal.reason as ShutdownSignal).signal).toBe('SIGINT');
    expect(log.lines.map((l) => l.level)).toEqual(['info', 'error']);
    uninstall();
  });

  it('uninstalls every listener, idempotently', () => {
    const src = source();
    const uninstall = installSignalHandlers(new AbortController(), recordingLog(), {
      forceExit: () => {},
      source: src,
      signals: ['SIGTERM', 'SIGINT', 'SIGHUP'],
    });
    expect(src.listenerCount('SIGHUP')).toBe(1);
    uninstall();
    uninstall();
    expect(src.eventNames()).toEqual([]);
  });

  it('uses process by default and leaves it as it found it', () => {
    const before = process.listenerCount('SIGTERM');
    const uninstall = installSignalHandlers(new AbortController(), recordingLog(), { forceExit: () => {} });
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    uninstall();
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
