// Turns SIGTERM/SIGINT into an abort of the root controller. Nothing below
// bin/ may call process.exit, so the "give up now" path is a callback too.

import type { LifecycleLog } from './component.js';

/** The abort reason the root controller gets when the process is asked to stop. */
export class ShutdownSignal extends Error {
  readonly signal: NodeJS.Signals;
  constructor(signal: NodeJS.Signals) {
    super(`received ${signal}`);
    this.name = 'ShutdownSignal';
    this.signal = signal;
  }
}

/** The part of `process` used here; tests pass an EventEmitter. */
export interface SignalSource {
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

export interface SignalHandlerOptions {
  /**
   * Called on the second signal. The kubelet (SetupSignalContext) exits with
   * status 1 right away on a second SIGTERM/SIGINT; bin/ should do the same.
   */
  forceExit: (signal: NodeJS.Signals) => void;
  /** Defaults to `process`. */
  source?: SignalSource;
  /** Defaults to SIGTERM and SIGINT. */
  signals?: readonly NodeJS.Signals[];
}

/**
 * Installs the handlers and returns their uninstaller (idempotent). The first
 * signal aborts `controller` with a ShutdownSignal naming it; any later one calls
 * `forceExit`. While installed, node's default "die on SIGTERM/SIGINT" is off,
 * so the owner must keep them installed until shutdown has finished.
 */
export function installSignalHandlers(
  controller: AbortController,
  log: LifecycleLog,
  opts: SignalHandlerOptions,
): () => void {
  const source = opts.source ?? process;
  const signals = opts.signals ?? ['SIGTERM', 'SIGINT'];
  let received = 0;
  const handler = (signal: NodeJS.Signals): void => {
    received += 1;
    if (received === 1) {
      log.info('shutting down; send the signal again to exit immediately', { signal });
      controller.abort(new ShutdownSignal(signal));
      return;
    }
    log.error('second signal received; exiting immediately', { signal });
    opts.forceExit(signal);
  };
  for (const s of signals) source.on(s, handler);
  let installed = true;
  return () => {
    if (!installed) return;
    installed = false;
    for (const s of signals) source.off(s, handler);
  };
}
