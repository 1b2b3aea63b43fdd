// The node servers' share of the agent's one thread. Node answers HTTP on the
// thread that runs the sync loop, so a client that asks as fast as it can
// (a closed-loop load, a scrape storm) would take the whole thread and leave
// the pod workers — and, on a small node, the runtime's own processes —
// waiting behind it. The governor watches the thread's event-loop
// utilization and, while it stays above a high-water mark, holds each new
// request of the node servers that arrives while others are in flight a
// little before answering it — but only while a pod worker has work: clients
// that wait for their answers then ask less often, and the sync loop keeps
// its share when it needs it (a flood with nothing to sync is answered at
// full speed: the hold would only add latency). A lone client (a scraper,
// kubectl) is never held: its requests take turns with the sync loop's work
// anyway. The hold stays short (8 ms at most) so that a flood costs its
// clients a little latency, not seconds. The health port is not governed (its
// answer is what a supervisor restarts the agent on).
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

export interface GovernorPolicy {
  /** Utilization of the last window above which the hold grows. */
  readonly high: number;
  /** Utilization below which it shrinks. */
  readonly low: number;
  /** How often the utilization is looked at (on a request's arrival: no timer). */
  readonly windowMs: number;
  /** The longest a request is held. */
  readonly maxHoldMs: number;
  /**
   * How long the pod workers must have been busy before requests are held: a
   * periodic resync with nothing to do is over in a millisecond or two (110 pods
   * make about two a second), and holding the requests that arrive during it
   * would only put them in the clients' latency tail.
   */
  readonly minBusyMs: number;
}

export const DEFAULT_GOVERNOR: GovernorPolicy = { high: 0.4, low: 0.2, windowMs: 100, maxHoldMs: 8, minBusyMs: 5 };

/**
 * The next hold, from the current one and the last window's utilization:
 * doubles (from 1 ms) while above `high`, halves while below `low` (to 0 under
 * half a millisecond), stays in between. Pure.
 */
export function nextHoldMs(holdMs: number, utilization: number, p: GovernorPolicy): number {
  if (utilization > p.high) return Math.min(p.maxHoldMs, Math.max(1, holdMs * 2));
  if (utilization < p.low) return holdMs / 2 < 0.5 ? 0 : holdMs / 2;
  return holdMs;
}

export interface LoadGovernor {
  /**
   * A request arrived: how long to hold it (ms, 0: answer at once). Counts it
   * in flight until `leave()`; the caller calls leave() exactly once, when its
   * response is done. Cheap; called per request.
   */
  enter(): number;
  leave(): void;
}

export interface LoadGovernorOptions {
  policy?: Partial<GovernorPolicy>;
  /**
   * Whether the work the governor protects (the pod workers) has anything in
   * flight. Requests are held only while it does: when nothing syncs, a hold
   * would cost the clients latency and buy nobody anything. Default: always.
   */
  busy?: () => boolean;
  /** Test seams: the utilization source and the clock. */
  utilization?: (since: EventLoopUtilization | undefined) => EventLoopUtilization;
  now?: () => number;
}

/** One per process, shared by the node servers (the thread is shared too). */
export function createLoadGovernor(o: LoadGovernorOptions = {}): LoadGovernor {
  const policy = { ...DEFAULT_GOVERNOR, ...o.policy };
  const elu = o.utilization ?? ((since) => (since === undefined ? performance.eventLoopUtilization() : performance.eventLoopUtilization(since)));
  const now = o.now ?? (() => performance.now());
  const busy = o.busy ?? (() => true);
  let mark = elu(undefined);
  let markAt = now();
  let hold = 0;
  let inFlight = 0;
  /** When enter() first saw the pod workers busy in their current stretch. */
  let busySince: number | undefined;
  return {
    enter() {
      const others = inFlight;
      inFlight++;
      const t = now();
      if (t - markAt >= policy.windowMs) {
        const window = elu(mark);
        // A long quiet gap says nothing about now: start over rather than hold on old load.
        hold = t - markAt > policy.windowMs * 10 ? 0 : nextHoldMs(hold, window.utilization, policy);
        mark = elu(undefined);
        markAt = t;
      }
      if (!busy()) {
        busySince = undefined;
        return 0;
      }
      busySince ??= t;
      return others > 0 && hold > 0 && t - busySince >= policy.minBusyMs ? hold : 0;
    },
    leave() {
      inFlight = Math.max(0, inFlight - 1);
    },
  };
}
