// The token bucket behind `--platform-api-qps/-burst` and `--event-qps/-burst`,
// as client-go's flowcontrol limiter (golang.org/x/time/rate): it starts full
// (`burst` tokens), refills at `qps` per second up to `burst`, and a request
// reserves its token at once — the bucket may go negative — and waits until
// that reservation is due, so concurrent waiters are served in order, one
// every 1/qps s. Pure arithmetic on an injected clock; the waiting is in
// limiter.ts.

export class RateBucket {
  private tokens: number;
  private last: number;

  /** Throws a TypeError for a non-positive or non-finite qps or a burst below 1 (a caller's bug). */
  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly now: () => number,
  ) {
    if (!Number.isFinite(qps) || qps <= 0) throw new TypeError(`qps must be a positive number, not ${qps}`);
    if (!Number.isInteger(burst) || burst < 1) throw new TypeError(`burst must be an integer of at least 1, not ${burst}`);
    this.tokens = burst;
    this.last = now();
  }

  private refill(): void {
    const t = this.now();
    if (t > this.last) this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = Math.max(this.last, t);
  }

  /** Takes one token now; returns how many ms until it is due (0: at once). */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  /** Gives back a reservation not used (its waiter was aborted), so later waiters move up. */
  cancel(): void {
    this.refill();
    this.tokens = Math.min(this.burst, this.tokens + 1);
  }

  /** Tokens available now (negative: reservations queued). */
  available(): number {
    this.refill();
    return this.tokens;
  }
}
