// client-go's exponential back-off manager (wait.NewExponentialBackoffManager)
// as the reflector uses it: the delay before the next list-and-watch round,
// or before re-opening a watch the server refused for now. State only, no
// timers: the reflector asks for a delay and sleeps it under its own signal.
// Not shared between informers; not safe to share between loops.

export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  /** Each delay d becomes d + random() × jitter × d. */
  readonly jitter: number;
  /** A request this long after the previous one starts over from `initialMs`. */
  readonly resetAfterMs: number;
}

/** The reflector's: 800 ms doubling to 30 s, jitter 1.0 (so [30, 60) s at the cap), reset after 2 min without failure. */
export const REFLECTOR_BACKOFF: BackoffPolicy = { initialMs: 800, maxMs: 30_000, factor: 2, jitter: 1, resetAfterMs: 120_000 };

export interface BackoffClock {
  now(): number;
  /** In [0, 1). */
  random(): number;
}

export class ExponentialBackoff {
  private nextMs: number;
  private lastRequestMs: number | undefined;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly clock: BackoffClock,
  ) {
    this.nextMs = policy.initialMs;
  }

  /** The delay to wait now (ms); records the request, so the one after is longer. */
  next(): number {
    const now = this.clock.now();
    if (this.lastRequestMs !== undefined && now - this.lastRequestMs > this.policy.resetAfterMs) this.nextMs = this.policy.initialMs;
    this.lastRequestMs = now;
    const base = this.nextMs;
    this.nextMs = Math.min(base * this.policy.factor, this.policy.maxMs);
    return base + this.clock.random() * this.policy.jitter * base;
  }
}
