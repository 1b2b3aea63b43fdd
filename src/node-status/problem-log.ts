// "Logged once per problem": a failing API server or host reader is reported
// when a problem starts or its message changes, and once when it clears —
// not on every retry. Keys name the activity (register, status, addresses).
// Synchronous; used only from the node agent's own loop.
import type { NodeAgentLog } from './types.js';

const text = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export class ProblemLog {
  private readonly current = new Map<string, string>();

  constructor(
    private readonly log: NodeAgentLog,
    private readonly fields: Record<string, unknown>,
  ) {}

  /** Reports `msg` with the error unless the same problem was reported last time for `key`. */
  fail(key: string, msg: string, err: unknown): void {
    const error = text(err);
    const seen = this.current.get(key);
    this.current.set(key, error);
    if (seen === error) {
      this.log.v?.(4)?.info(msg, { ...this.fields, error });
      return;
    }
    this.log.error(msg, { ...this.fields, error });
  }

  /** Clears `key`; reports `msg` if it was failing. */
  ok(key: string, msg: string): void {
    if (!this.current.delete(key)) return;
    this.log.info(msg, this.fields);
  }

  /** Whether `key` is failing now (tests, health). */
  failing(key: string): boolean {
    return this.current.has(key);
  }
}

/**
 * A ClientLog for a writer that logs each failed try itself (the lease
 * heartbeat): an error is written when its message or error text differs from
 * the last one written under that message; repeats go to V(4).
 */
export function repeatQuietLog(log: NodeAgentLog): NodeAgentLog {
  const last = new Map<string, string>();
  return {
    info: (msg, fields) => log.info(msg, fields),
    warn: (msg, fields) => log.warn(msg, fields),
    error: (msg, fields) => {
      const error = String(fields?.['error'] ?? '');
      if (last.get(msg) === error) return void log.v?.(4)?.info(msg, fields);
      last.set(msg, error);
      log.error(msg, fields);
    },
    ...(log.v === undefined ? {} : { v: (level: number) => log.v?.(level) }),
  };
}
