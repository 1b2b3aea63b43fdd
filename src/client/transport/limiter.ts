// The transport's rate limits: one bucket for every request but watches
// (`default`: --platform-api-qps/-burst), one for events (`events`:
// --event-qps/-burst), none for `none` (watch streams: a long watch must not
// hold a token, and a reconnecting informer must not be starved by writes).
// take() waits for its reservation and is abortable: an aborted waiter gives
// its token back and rejects with the signal's reason.
import type { RateLimitClass } from '../types.js';
import { checkedTokenBucket, type TokenBucket } from '../../util/rate-limit.js';

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface RateLimits {
  readonly qps: number;
  readonly burst: number;
  readonly eventQps: number;
  readonly eventBurst: number;
}

export class Limiters {
  private readonly buckets: Readonly<Record<Exclude<RateLimitClass, 'none'>, TokenBucket>>;

  /** Throws a TypeError naming the option for a non-positive qps or a burst below 1. */
  constructor(
    limits: RateLimits,
    now: () => number,
    private readonly sleep: Sleep,
  ) {
    const bucket = (qps: number, burst: number, names: string): TokenBucket => {
      try {
        return checkedTokenBucket(qps, burst, now);
      } catch (e) {
        throw new TypeError(`${names}: ${(e as Error).message}`);
      }
    };
    this.buckets = { default: bucket(limits.qps, limits.burst, 'qps/burst'), events: bucket(limits.eventQps, limits.eventBurst, 'eventQps/eventBurst') };
  }

  /** Waits for a token of `cls`; rejects with `signal.reason` if it aborts first (the token is given back). */
  async take(cls: RateLimitClass, signal: AbortSignal): Promise<void> {
    if (cls === 'none') return;
    signal.throwIfAborted();
    const bucket = this.buckets[cls];
    const waitMs = bucket.reserve();
    if (waitMs <= 0) return;
    try {
      await this.sleep(waitMs, signal);
    } catch (e) {
      bucket.cancel();
      throw e;
    }
  }
}
