// A token bucket (the kubelet's flowcontrol.NewTokenBucketRateLimiter):
// `qps` tokens per second up to `burst`; tryTake() never waits (a pull over
// the limit fails, as the kubelet's throttled image service does). A
// semaphore with priorities, and a holder's place in one (SlotHold) that it
// takes, gives back and takes again.
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

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
  }

  /** True and one token used when a token is available now. */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
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
