// "Logged once per distinct problem": an informer that retries forever must
// not write the same failure every 800 ms. A problem's identity is its kind
// (code and reason of a Status, field of a protocol error, class and message
// otherwise), not its full message, which often carries a changing version.
// Bounded: after LIMIT distinct problems the memory starts over (they are
// then logged again once). Synchronous; one per informer.
import { isApiStatusError, isClientProtocolError } from '../errors.js';
import type { ClientLog } from '../types.js';

const LIMIT = 512;

export function problemKey(where: string, e: unknown): string {
  if (isApiStatusError(e)) return `${where}:${e.request.method} ${e.request.path}:${e.code}:${e.reason}`;
  if (isClientProtocolError(e)) return `${where}:${e.message}`;
  if (e instanceof Error) return `${where}:${e.name}:${e.message}`;
  return `${where}:${String(e)}`;
}

export class OnceLog {
  private readonly seen = new Set<string>();

  constructor(
    readonly log: ClientLog,
    private readonly fields: Record<string, unknown>,
  ) {}

  /** Logs at `level` unless `key` was logged before; returns whether it logged. */
  once(level: 'info' | 'warn' | 'error', key: string, msg: string, fields: Record<string, unknown> = {}): boolean {
    if (this.seen.has(key)) return false;
    if (this.seen.size >= LIMIT) this.seen.clear();
    this.seen.add(key);
    this.log[level](msg, { ...this.fields, ...fields });
    return true;
  }

  /** klog's V(4): routine events (a watch closed with 410), only when the logger has verbosity. */
  debug(msg: string, fields: Record<string, unknown> = {}): void {
    this.log.v?.(4)?.info(msg, { ...this.fields, ...fields });
  }
}

export const errorFields = (e: unknown): Record<string, unknown> => ({ error: e instanceof Error ? e.message : String(e) });
