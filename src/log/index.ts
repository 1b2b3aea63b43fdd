// Entry point of the agent's logging. Creating a Logging is cheap and loads no
// pino in the default text format, so the `--version` path stays fast.

import { preciseNowMs } from './clock.js';
import type { Logger as PinoLogger } from 'pino';
import { Logger, type Core } from './logger.js';
import { createBasePino } from './pino-bridge.js';
import { Sink } from './sink.js';
import type { Logging, LoggingOptions } from './types.js';
import { verbosityResolver } from './vmodule.js';

export type {
  AgentLogger,
  ChildBindings,
  LogFields,
  Logging,
  LoggingOptions,
  VerboseLogger,
  VmoduleEntry,
} from './types.js';
export type { ErrorDetails } from './error-render.js';
export { parseVmodule, formatVmodule } from './vmodule.js';

/** Component of `Logging.root`. */
export const ROOT_COMPONENT = 'agent';

/**
 * Builds the loggers and the sink behind them. The caller (the composition
 * root) owns the result: it must `close()` it on shutdown, or at least
 * `flush()` it before `process.exit`, or buffered JSON info may be lost.
 */
export function createLogging(opts: LoggingOptions): Logging {
  const { format } = opts;
  const sink = new Sink({
    format,
    splitStream: opts.json.splitStream,
    infoBufferSize: opts.json.infoBufferSize,
    flushFrequencyMs: opts.flushFrequencyMs,
    stdout: opts.stdout ?? process.stdout,
    stderr: opts.stderr ?? process.stderr,
  });
  const now = opts.now;
  const nowMs = now === undefined ? Date.now : () => now().getTime();
  const pid = opts.pid ?? process.pid;
  let base: PinoLogger | undefined;
  const core: Core = {
    format,
    pid,
    nowMs,
    sink,
    // vmodule is a text-format feature in component-base; json ignores it.
    verbosityFor: verbosityResolver(opts.verbosity, format === 'text' ? opts.vmodule : []),
    basePino: () => {
      // JSON's `ts` has a sub-millisecond fraction (component-base's); an injected clock is used as given.
      base ??= createBasePino({ format, pid, nowMs: format === 'json' && now === undefined ? preciseNowMs : nowMs, sink });
      return base;
    },
  };
  const root = new Logger(core, ROOT_COMPONENT, {});
  let closed: Promise<void> | undefined;
  return {
    root,
    flush: () => sink.flush(),
    // The sink closes at call time, not when the promise settles, so a record
    // logged between `close()` and its resolution is dropped too.
    close: () => {
      if (closed === undefined) {
        sink.close();
        closed = Promise.resolve();
      }
      return closed;
    },
  };
}
