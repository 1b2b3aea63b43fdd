// A controllable component for supervisor tests: the test decides when it
// becomes ready, stops or fails, and every transition is recorded in `events`.

import type { Component } from '../../../src/lifecycle/component.js';
import { defineComponent } from '../../../src/lifecycle/component.js';
import { onAbort } from '../../../src/lifecycle/abort.js';
import type { LifecycleLog } from '../../../src/lifecycle/component.js';

export interface FakeComponent extends Component {
  /** Resolves once run() was called. */
  readonly started: Promise<void>;
  /** Resolves once its signal aborted. */
  readonly aborted: Promise<void>;
  signal(): AbortSignal | undefined;
  becomeReady(): void;
  finishStop(): void;
  fail(err: unknown): void;
}

export interface FakeOptions {
  /** Become ready as soon as started (default true). */
  autoReady?: boolean;
  /** Stop as soon as aborted (default true). */
  autoStop?: boolean;
}

export function fakeComponent(name: string, events: string[], o: FakeOptions = {}): FakeComponent {
  let signal: AbortSignal | undefined;
  let markStarted!: () => void;
  let markAborted!: () => void;
  const started = new Promise<void>((r) => (markStarted = r));
  const aborted = new Promise<void>((r) => (markAborted = r));
  let ready = (): void => {};
  let stop = (): void => {};
  let fail = (_err: unknown): void => {};
  const c = defineComponent(
    name,
    (sig, markReady) =>
      new Promise<void>((resolve, reject) => {
        signal = sig;
        events.push(`start ${name}`);
        ready = () => {
          events.push(`ready ${name}`);
          markReady();
        };
        stop = () => {
          events.push(`stopped ${name}`);
          resolve();
        };
        fail = (err) => {
          events.push(`failed ${name}`);
          reject(err);
        };
        onAbort(sig, () => {
          events.push(`abort ${name}`);
          markAborted();
          if (o.autoStop !== false) stop();
        });
        markStarted();
        if (o.autoReady !== false) ready();
      }),
  );
  return {
    name: c.name,
    ready: c.ready,
    run: (s) => c.run(s),
    started,
    aborted,
    signal: () => signal,
    becomeReady: () => ready(),
    finishStop: () => stop(),
    fail: (err) => fail(err),
  };
}

export interface RecordingLog extends LifecycleLog {
  readonly lines: { level: 'info' | 'error'; msg: string; fields?: Record<string, unknown> }[];
}

export function recordingLog(): RecordingLog {
  const lines: RecordingLog['lines'] = [];
  return {
    lines,
    info: (msg, fields) => lines.push({ level: 'info', msg, fields }),
    error: (msg, fields) => lines.push({ level: 'error', msg, fields }),
  };
}

/** Lets every pending promise reaction and I/O callback run (not a timed sleep). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
