// Public shapes of the logging package. Kept apart from the implementation so
// managers can `import type` them without pulling in any runtime code.

import type { Logger as PinoLogger } from 'pino';

/** Structured key/value pairs of one record. An `err` key holding a thrown value is rendered specially. */
export type LogFields = Readonly<Record<string, unknown>>;

/** `component` replaces the parent's; every other key is added to each record (pod children bind `pod` and `podUID`). */
export interface ChildBindings {
  component?: string;
  [key: string]: unknown;
}

/** One `pattern=N` entry of `--vmodule`; `*` and `?` are glob wildcards matched against component names. */
export interface VmoduleEntry {
  filePattern: string;
  verbosity: number;
}

export interface LoggingOptions {
  format: 'text' | 'json';
  /** `-v` / `--v`: info records at V-level n are written only when n <= verbosity. */
  verbosity: number;
  /** Text format only; ignored in json (the CLI rejects the combination). */
  vmodule: ReadonlyArray<VmoduleEntry>;
  /** `--log-flush-frequency`: the longest a buffered record waits before it is written. <= 0 disables the timer. */
  flushFrequencyMs: number;
  /** `infoBufferSize` is in bytes (0: unbuffered) and applies only with `splitStream`, as in component-base. */
  json: { splitStream: boolean; infoBufferSize: number };
  /** Default `process.stdout` / `process.stderr`. */
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  pid?: number;
  now?: () => Date;
}

/** Returned by `AgentLogger.v(n)` when V-level n is enabled; `undefined` otherwise. */
export interface VerboseLogger {
  info(msg: string, fields?: LogFields): void;
}

/**
 * A component's logger. Cheap to create (pod workers make one per pod); each
 * record is one synchronous write at most; after `Logging.close()` every call
 * is a no-op.
 */
export interface AgentLogger {
  /** Source shown in text lines and the `component` key in JSON. */
  readonly component: string;
  /** Verbosity in effect for this component (global `-v`, raised by a matching `--vmodule` entry). */
  readonly verbosity: number;
  /**
   * The underlying pino logger, bound to this logger's component and bindings.
   * Created on first access (pino is loaded lazily); its records go to the same
   * streams in the same format, but bypass V-level gating.
   */
  readonly pino: PinoLogger;
  /** V(0) info: always written. */
  info(msg: string, fields?: LogFields): void;
  /** Always written; to stderr in JSON split-stream mode. */
  warn(msg: string, fields?: LogFields): void;
  /** Always written, never buffered, synchronously. */
  error(msg: string, fields?: LogFields): void;
  /**
   * klog's `V(n)`: `log.v(4)?.info('msg', {...})`. The optional chain skips
   * building the fields object when the level is disabled.
   */
  v(level: number): VerboseLogger | undefined;
  child(bindings: ChildBindings): AgentLogger;
}

export interface Logging {
  /** Component `agent`. */
  readonly root: AgentLogger;
  /** Writes buffered info records now. Call before `process.exit`. */
  flush(): void;
  /** Flushes and stops the flush timer; idempotent; nothing is written once it resolves. */
  close(): Promise<void>;
}
