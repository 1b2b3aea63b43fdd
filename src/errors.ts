// The agent's error hierarchy. Every error carries a stable `code` so callers
// branch on kind, never on message text; the field/object it concerns and the
// underlying cause are kept for logs and for operator-facing messages.

export type ErrorCode =
  | 'EFLAG' // a command-line flag could not be parsed
  | 'EVALUE' // a value had the wrong syntax or range
  | 'ECONFIG' // a configuration file is malformed
  | 'EVALIDATION' // the merged configuration breaks a rule
  | 'ELOCK' // the lock file could not be taken
  | 'ESTARTUP' // a manager failed to start
  | 'ECRI' // a container runtime (CRI) call failed; see CriError in src/cri/errors.ts
  | 'EINTERNAL';

export interface AgentErrorOptions {
  /** Flag as the operator types it, e.g. `--max-pods`. */
  flag?: string;
  /** Configuration-file field path, e.g. `authentication.x509.clientCAFile`. */
  field?: string;
  /** File the value came from. */
  file?: string;
  /** 1-based line in `file`, when known. */
  line?: number;
  cause?: unknown;
}

export class AgentError extends Error {
  // Literal names, one per class: the bundle does not keep function names (packaging/bundle.mjs).
  override name = 'AgentError';
  readonly code: ErrorCode;
  readonly flag: string | undefined;
  readonly field: string | undefined;
  readonly file: string | undefined;
  readonly line: number | undefined;

  constructor(code: ErrorCode, message: string, opts: AgentErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = code;
    this.flag = opts.flag;
    this.field = opts.field;
    this.file = opts.file;
    this.line = opts.line;
  }
}

/** A text value that does not parse (duration, quantity, taint, ...). Thrown by the pure value parsers. */
export class ValueError extends AgentError {
  override name = 'ValueError';
  constructor(message: string, opts: AgentErrorOptions = {}) {
    super('EVALUE', message, opts);
  }
}

export class FlagError extends AgentError {
  override name = 'FlagError';
  constructor(message: string, opts: AgentErrorOptions = {}) {
    super('EFLAG', message, opts);
  }
}

export class ConfigFileError extends AgentError {
  override name = 'ConfigFileError';
  constructor(message: string, opts: AgentErrorOptions = {}) {
    super('ECONFIG', message, opts);
  }
}

/** Several problems found in one pass; reported together so the operator fixes them all at once. */
export class ValidationError extends AgentError {
  override name = 'ValidationError';
  readonly problems: readonly AgentError[];
  constructor(problems: readonly AgentError[]) {
    super('EVALIDATION', problems.map((p) => p.message).join('\n'));
    this.problems = problems;
  }
}

export class LockError extends AgentError {
  override name = 'LockError';
  constructor(message: string, opts: AgentErrorOptions = {}) {
    super('ELOCK', message, opts);
  }
}

export function isAgentError(e: unknown): e is AgentError {
  return e instanceof AgentError;
}
