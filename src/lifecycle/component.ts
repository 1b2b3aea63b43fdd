// The one lifecycle contract every long-running manager implements, and a
// factory that does the ready/settle bookkeeping so managers don't.

import { AgentError } from '../errors.js';

/** The two logging calls lifecycle code needs; a pino child adapts to it in the composition root. */
export interface LifecycleLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * A long-running part of the agent.
 *
 * Timeline: the owner calls `run(signal)` once; the component starts work and
 * settles `ready` (resolved once it serves, rejected if it fails first); it keeps
 * working until `signal` aborts, then releases everything it holds and only then
 * settles `run`. Resolving `run` before the abort is a contract breach (the
 * supervisor reports it as a failure); rejecting with `signal.reason` counts as a
 * clean stop.
 */
export interface Component {
  readonly name: string;
  /** Starts work; resolves when fully stopped after `signal` aborts (or rejects on fatal failure). Never called twice. */
  run(signal: AbortSignal): Promise<void>;
  /** Resolves once the component is serving / ready; rejects if run() failed before ready. */
  readonly ready: Promise<void>;
}

/**
 * The body of a component. Call `markReady()` once serving (extra calls are
 * ignored); return (or throw `signal.reason`) once stopped after `signal` aborts;
 * throw anything else to report a fatal failure.
 */
export type ComponentBody = (signal: AbortSignal, markReady: () => void) => Promise<void>;

/**
 * Wraps `body` into a Component. `ready` rejects with the body's error when the
 * body fails before `markReady()`, with `signal.reason` when it stops on an
 * abort before becoming ready, and with an ESTARTUP AgentError when it returns
 * on its own before becoming ready. A second `run()` rejects with EINTERNAL.
 */
export function defineComponent(name: string, body: ComponentBody): Component {
  let markReady!: () => void;
  let failReady!: (err: unknown) => void;
  let started = false;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  // Nobody may be awaiting `ready` (e.g. an owner that only awaits run());
  // a rejection nobody reads must not become an unhandled rejection.
  ready.catch(() => {});

  async function run(signal: AbortSignal): Promise<void> {
    if (started) {
      throw new AgentError('EINTERNAL', `component "${name}": run() called twice`);
    }
    started = true;
    try {
      await body(signal, () => markReady());
    } catch (err) {
      failReady(err);
      throw err;
    }
    failReady(
      signal.aborted
        ? signal.reason
        : new AgentError('ESTARTUP', `component "${name}" stopped before it was ready`),
    );
  }

  return { name, run, ready };
}
