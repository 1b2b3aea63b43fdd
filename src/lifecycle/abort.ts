// AbortSignal helpers that always remove what they add. Every helper here
// detaches its listener and clears its timer on every exit path, so a
// long-running agent does not accumulate listeners on a signal that lives
// for the whole process (Node warns at 11 and the leak is real).

/**
 * Calls `fn(reason)` once when `signal` aborts; synchronously if it already
 * has. Returns a disposer that detaches the listener; calling it after the
 * abort, or twice, is harmless.
 */
export function onAbort(signal: AbortSignal, fn: (reason: unknown) => void): () => void {
  if (signal.aborted) {
    fn(signal.reason);
    return () => {};
  }
  const listener = (): void => fn(signal.reason);
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
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
