// AbortSignal helpers that always remove what they add. Every helper here
// detaches its listener and clears its timer on every exit path, so a
// long-running agent does not accumulate listeners on a signal that lives
// for the whole process (Node warns at 11 and the leak is real). onAbort, which
// they all go through, also keeps a signal at one listener however many
// operations wait on it at once (see Waiters).

/**
 * The callbacks waiting on one signal, behind a single 'abort' listener. A
 * signal the agent keeps for its whole life (a component's) is handed to every
 * operation in flight under it: each CRI call, relist wait, image pull and
 * sleep of every busy pod. One listener per operation would make node warn
 * (MaxListenersExceededWarning at 11) whenever more than ten pods start or stop
 * at once, and raising the limit would also hide a real leak. So onAbort adds
 * at most one listener per signal, whatever the number of waiters, and removes
 * it when the last waiter goes; a leak shows as waiters that never go
 * (`abortWaiters`), not as a warning.
 */
interface Waiters {
  readonly callbacks: Set<{ fn: (reason: unknown) => void }>;
  readonly listener: () => void;
}

const waiting = new WeakMap<AbortSignal, Waiters>();

/**
 * Calls `fn(reason)` once when `signal` aborts; synchronously if it already
 * has. Returns a disposer that detaches the callback; calling it after the
 * abort, or twice, is harmless. Callbacks run in registration order; if some
 * throw, the others still run and the first error is rethrown from the
 * signal's listener (node reports it as an uncaught exception, as it would
 * have for a listener of its own).
 */
export function onAbort(signal: AbortSignal, fn: (reason: unknown) => void): () => void {
  if (signal.aborted) {
    fn(signal.reason);
    return () => {};
  }
  let w = waiting.get(signal);
  if (w === undefined) {
    const callbacks = new Set<{ fn: (reason: unknown) => void }>();
    const listener = (): void => {
      waiting.delete(signal);
      let failure: { error: unknown } | undefined;
      for (const cb of callbacks) {
        try {
          cb.fn(signal.reason);
        } catch (error) {
          failure ??= { error };
        }
      }
      callbacks.clear();
      if (failure !== undefined) throw failure.error;
    };
    w = { callbacks, listener };
    waiting.set(signal, w);
    signal.addEventListener('abort', listener, { once: true });
  }
  const entry = { fn };
  const own = w;
  own.callbacks.add(entry);
  return () => {
    if (!own.callbacks.delete(entry) || own.callbacks.size > 0 || waiting.get(signal) !== own) return;
    waiting.delete(signal);
    signal.removeEventListener('abort', own.listener);
  };
}

/** How many onAbort callbacks wait on `signal` (for leak checks in tests and diagnostics). */
export function abortWaiters(signal: AbortSignal): number {
  return waiting.get(signal)?.callbacks.size ?? 0;
}

/**
 * Waits `ms` milliseconds. Rejects with `signal.reason` when the signal aborts
 * first (so a component that lets it propagate rejects with exactly the reason
 * its owner gave, which the supervisor recognises as a clean stop).
 */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const dispose = onAbort(signal, (reason) => {
      clearTimeout(timer);
      reject(reason);
    });
    const timer = setTimeout(() => {
      dispose();
      resolve();
    }, ms);
  });
}

/**
 * Resolves when `signal` aborts. The listener is `once`, so it goes away with
 * the abort; use it only where the abort is certain to come (a component's
 * body), and `onAbort` with its disposer in races.
 */
export function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    onAbort(signal, () => resolve());
  });
}

/**
 * True when `err` means "stopped because asked to": the very reason the
 * signal was aborted with, or a DOM-style AbortError (node's timers/promises,
 * fetch, events.once, ...).
 */
export function isAbortError(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted === true && err === signal.reason) return true;
  return err instanceof Error && err.name === 'AbortError';
}
