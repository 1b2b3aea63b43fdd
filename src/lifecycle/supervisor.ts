// The composition root's run loop: starts components in dependency order and
// stops them in reverse, the way the kubelet's managers ought to be (and
// virtual-kubelet's are) — every child awaited, nothing left running.

import { AgentError } from '../errors.js';
import { isAbortError, onAbort } from './abort.js';
import type { Component, LifecycleLog } from './component.js';

export interface RunComponentsOptions {
  /** Aborting it starts the orderly shutdown. */
  signal: AbortSignal;
  /** Budget for the whole shutdown (all components together), from the moment it starts. */
  shutdownTimeoutMs: number;
  log: LifecycleLog;
}

interface Child {
  readonly component: Component;
  /** Linked to the parent signal through the shutdown sequence, not directly: reverse order needs the supervisor between them. */
  readonly controller: AbortController;
  /** Settles (never rejects) once run() has settled. */
  stopped: Promise<void>;
  running: boolean;
  failed: boolean;
}

/**
 * Runs `components` until `opts.signal` aborts or one of them fails.
 *
 * - Start: in array order; each is started only after the previous one's
 *   `ready` resolved. A component's `ready` that never settles holds the later
 *   ones back until shutdown (intended: they depend on it).
 * - Failure: a run() that rejects (with anything but its own abort reason), a
 *   `ready` that rejects, or a run() that resolves before being asked to stop,
 *   triggers the shutdown of the others; the promise then rejects with the
 *   first such error once they have stopped.
 * - Shutdown: children are aborted one at a time in reverse start order, each
 *   awaited before the next is aborted, all within `shutdownTimeoutMs`.
 *   On the deadline the remaining ones are aborted at once, the ones still
 *   running are logged, and the promise rejects (EINTERNAL naming them), unless a
 *   component failure is already being reported, which wins. Rejecting makes the
 *   process exit non-zero: a supervisor (systemd) should know shutdown was dirty.
 * - Resolves when every component stopped cleanly. Leaves no timer or listener
 *   behind. An already-aborted `signal` starts nothing.
 */
export async function runComponents(
  components: readonly Component[],
  opts: RunComponentsOptions,
): Promise<void> {
  const { signal, log } = opts;
  if (signal.aborted) return;

  const started: Child[] = [];
  let stopping = false;
  let stopReason: unknown;
  let finished = false;
  let failure: { error: unknown } | undefined;
  let wake!: () => void;
  const stopRequested = new Promise<void>((resolve) => {
    wake = resolve;
  });

  const requestStop = (reason: unknown): void => {
    if (stopping) return;
    stopping = true;
    stopReason = reason;
    wake();
  };

  const fail = (child: Child, error: unknown): void => {
    if (child.failed) return;
    child.failed = true;
    log.error('component failed', { child: child.component.name, error: describe(error) });
    if (finished) return;
    failure ??= { error };
    requestStop(
      new AgentError('EINTERNAL', `stopping because component "${child.component.name}" failed`, {
        cause: error,
      }),
    );
  };

  const start = (component: Component): Child => {
    const child: Child = {
      component,
      controller: new AbortController(),
      stopped: Promise.resolve(),
      running: true,
      failed: false,
    };
    let run: Promise<void>;
    try {
      run = component.run(child.controller.signal);
    } catch (err) {
      run = Promise.reject(err);
    }
    child.stopped = run.then(
      () => {
        child.running = false;
        if (child.controller.signal.aborted) {
          log.info('component stopped', { child: component.name });
        } else {
          fail(child, new AgentError('EINTERNAL', `component "${component.name}" stopped before shutdown`));
        }
      },
      (err: unknown) => {
        child.running = false;
        if (isAbortError(err, child.controller.signal) && child.controller.signal.aborted) {
          log.info('component stopped', { child: component.name });
        } else {
          fail(child, err);
        }
      },
    );
    return child;
  };

  const disposeParent = onAbort(signal, requestStop);
  try {
    for (const component of components) {
      if (stopping) break;
      log.info('starting component', { child: component.name });
      const child = start(component);
      started.push(child);
      const ready = component.ready.then(
        () => true,
        (err: unknown) => {
          // A rejection caused by our own abort is part of the shutdown, not a failure.
          if (!child.controller.signal.aborted) fail(child, err);
          return false;
        },
      );
      const isReady = await Promise.race([ready, stopRequested.then(() => false)]);
      if (isReady) log.info('component ready', { child: component.name });
    }
    if (!stopping) log.info('all components ready', { count: started.length });
    await stopRequested;

    log.info('stopping components', { reason: describe(stopReason) });
    const stuck = await stopInReverse(started, stopReason, opts.shutdownTimeoutMs, log);
    if (failure !== undefined) throw failure.error;
    if (stuck.length > 0) {
      throw new AgentError(
        'EINTERNAL',
        `shutdown did not finish within ${opts.shutdownTimeoutMs}ms; still running: ${stuck.join(', ')}`,
      );
    }
    log.info('all components stopped');
  } finally {
    finished = true;
    disposeParent();
  }
}

/** Aborts and awaits children last-started first; returns the names still running at the deadline. */
async function stopInReverse(
  started: readonly Child[],
  reason: unknown,
  timeoutMs: number,
  log: LifecycleLog,
): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    for (const child of [...started].reverse()) {
      if (!child.running) continue;
      log.info('stopping component', { child: child.component.name });
      child.controller.abort(reason);
      const outcome = await Promise.race([child.stopped.then(() => 'stopped' as const), deadline]);
      if (outcome === 'timeout') break;
    }
  } finally {
    clearTimeout(timer);
  }
  // Past the deadline nobody waits any more; at least let every child know,
  // and count as stopped those that stop as soon as they are told (one turn of the loop).
  const late = started.filter((c) => c.running);
  for (const child of late) {
    if (!child.controller.signal.aborted) child.controller.abort(reason);
  }
  if (late.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
  const names = started.filter((c) => c.running).map((c) => c.component.name);
  if (names.length > 0) {
    log.error('shutdown deadline exceeded; components still running', { components: names, timeoutMs });
  }
  return names;
}

function describe(value: unknown): string {
  return value instanceof Error ? value.message : String(value);
}
