// A token bucket (the kubelet's flowcontrol.NewTokenBucketRateLimiter, and
// client-go's limiter over golang.org/x/time/rate): it starts full (`burst`
// tokens) and refills at `qps` per second up to `burst`. Two ways to use it:
// tryTake() never waits (a pull over the limit fails, as the kubelet's
// throttled image service does); reserve() takes a token at once — the
// bucket may go negative — and says how long until it is due, so concurrent
// waiters are served in order, one every 1/qps s (the API client's limits;
// the caller waits). Pure arithmetic on an injected clock. Also a semaphore
// with priorities, and a holder's place in one (SlotHold) that it takes,
// gives back and takes again.
import { onAbort } from '../lifecycle/abort.js';

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** A clock that steps back refills nothing (and later refills count from the latest time seen). */
  private refill(): void {
    const t = this.now();
    if (t > this.last) this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = Math.max(this.last, t);
  }

  /** True and one token used when a token is available now. */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
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

/** A TokenBucket for reserve(): throws a TypeError for a non-positive or non-finite qps or a burst below 1 (a caller's bug). */
export function checkedTokenBucket(qps: number, burst: number, now: () => number): TokenBucket {
  if (!Number.isFinite(qps) || qps <= 0) throw new TypeError(`qps must be a positive number, not ${qps}`);
  if (!Number.isInteger(burst) || burst < 1) throw new TypeError(`burst must be an integer of at least 1, not ${burst}`);
  return new TokenBucket(qps, burst, now);
}

/**
 * At most `limit` holders at a time. Waiters are served by priority (higher
 * first), in order within a priority: a pod that already has its sandbox
 * finishes starting before the next pod's sandbox begins.
 */
export class Semaphore {
  private active = 0;
  private readonly queue: Array<{ priority: number; go: () => void }> = [];

  constructor(private readonly limit: number) {}

  /**
   * Waits for a place; the function returned gives it back (once, however often
   * it is called). Aborting `signal` while waiting leaves the queue and rejects
   * with its reason: a cancelled pod does not wait behind other pods' starts.
   */
  async acquire(priority = 0, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.active >= this.limit) {
      await new Promise<void>((go, fail) => {
        const entry = {
          priority,
          go: () => {
            off();
            go();
          },
        };
        const off = signal ? onAbort(signal, (reason) => {
          const at = this.queue.indexOf(entry);
          if (at >= 0) this.queue.splice(at, 1);
          fail(reason);
        }) : () => {};
        // Stable: after every waiter of the same or a higher priority.
        let i = this.queue.length;
        while (i > 0 && this.queue[i - 1]!.priority < priority) i--;
        this.queue.splice(i, 0, entry);
      });
    } else this.active++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      // The place passes straight to the next waiter, so `active` stays as it is.
      const next = this.queue.shift();
      if (next) next.go();
      else this.active--;
    };
  }

  async run<T>(fn: () => Promise<T>, priority = 0): Promise<T> {
    const release = await this.acquire(priority);
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

/**
 * One holder's place in a Semaphore (none: no bound), held across several
 * steps and given back between them when the holder must wait on something
 * else (a pod's start slot, given up for an image pull). Used by one holder at
 * a time; release() is idempotent and never blocks.
 */
export class SlotHold {
  private held: (() => void) | undefined;
  constructor(private readonly slots: Semaphore | undefined) {}

  /** Takes a place unless one is already held; waits for it behind holders of a higher priority, or until `signal` aborts (rejects). */
  async hold(priority: number, signal?: AbortSignal): Promise<void> {
    if (this.slots && !this.held) this.held = await this.slots.acquire(priority, signal);
  }

  /** Gives the place back (if held), to be taken again by hold(). */
  release(): void {
    const release = this.held;
    this.held = undefined;
    release?.();
  }
}
