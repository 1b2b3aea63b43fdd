// Per-key exponential back-off, the kubelet's flowcontrol.Backoff: used for
// crash-looping containers (CrashLoopBackOff) and failing image pulls
// (ImagePullBackOff). State only, no timers: callers ask whether a key is in
// back-off and record attempts; the sync loop retries on its own schedule.

export interface BackoffOptions {
  /** First delay. The kubelet: 10 s. */
  initialMs: number;
  /** Ceiling. The kubelet: 300 s (MaxContainerBackOff). */
  maxMs: number;
  /** Injected clock (ms). */
  now?: () => number;
}

interface Entry {
  delayMs: number;
  /** When the delay was last raised: the moment of the restart (or pull) it allowed. */
  lastUpdateMs: number;
}

export const CONTAINER_BACKOFF = { initialMs: 10_000, maxMs: 300_000 } as const;
export const IMAGE_PULL_BACKOFF = { initialMs: 10_000, maxMs: 300_000 } as const;

export class KeyedBackoff {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(private readonly opts: BackoffOptions) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * An event more than twice the ceiling after the entry's last update starts
   * over: a container that ran 10 minutes after its restart is no longer
   * crash-looping, however long its back-off before that restart was.
   */
  private expired(e: Entry, eventMs: number): boolean {
    return eventMs - e.lastUpdateMs > 2 * this.opts.maxMs;
  }

  /**
   * Records an attempt made now for an event at `eventMs` (a container's exit):
   * the first delay, or the previous one doubled up to the ceiling.
   */
  next(key: string, eventMs: number = this.now()): number {
    const e = this.entries.get(key);
    const delayMs = e === undefined || this.expired(e, eventMs) ? this.opts.initialMs : Math.min(e.delayMs * 2, this.opts.maxMs);
    this.entries.set(key, { delayMs, lastUpdateMs: this.now() });
    return delayMs;
  }

  /** Whether the key's current delay, counted from `eventMs`, has not yet passed. */
  inBackoffSince(key: string, eventMs: number): boolean {
    const e = this.entries.get(key);
    if (e === undefined || this.expired(e, eventMs)) return false;
    return this.now() - eventMs < e.delayMs;
  }

  /** Whether the key's current delay, counted from its last recorded attempt, has not yet passed (image pulls). */
  inBackoffSinceUpdate(key: string): boolean {
    const e = this.entries.get(key);
    if (e === undefined || this.expired(e, this.now())) return false;
    return this.now() - e.lastUpdateMs < e.delayMs;
  }

  /** Remaining wait from `eventMs`, 0 when none. */
  remaining(key: string, eventMs: number): number {
    const e = this.entries.get(key);
    if (e === undefined || this.expired(e, eventMs)) return 0;
    return Math.max(0, e.delayMs - (this.now() - eventMs));
  }

  current(key: string): number {
    return this.entries.get(key)?.delayMs ?? 0;
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  /** Drops entries not updated for twice the ceiling (called from the resync tick). */
  gc(): void {
    const now = this.now();
    for (const [k, e] of this.entries) if (this.expired(e, now)) this.entries.delete(k);
  }
}
