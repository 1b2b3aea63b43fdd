// A token bucket (the kubelet's flowcontrol.NewTokenBucketRateLimiter):
// `qps` tokens per second up to `burst`; tryTake() never waits (a pull over
// the limit fails, as the kubelet's throttled image service does). A
// semaphore with priorities, and a holder's place in one (SlotHold) that it
// takes, gives back and takes again.

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

  /** Waits for a place; the function returned gives it back (once, however often it is called). */
  async acquire(priority = 0): Promise<() => void> {
    if (this.active >= this.limit) {
      await new Promise<void>((go) => {
        // Stable: after every waiter of the same or a higher priority.
        let i = this.queue.length;
        while (i > 0 && this.queue[i - 1]!.priority < priority) i--;
        this.queue.splice(i, 0, { priority, go });
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

  /** Takes a place unless one is already held; waits for it behind holders of a higher priority. */
  async hold(priority: number): Promise<void> {
    if (this.slots && !this.held) this.held = await this.slots.acquire(priority);
  }

  /** Gives the place back (if held), to be taken again by hold(). */
  release(): void {
    const release = this.held;
    this.held = undefined;
    release?.();
  }
}
