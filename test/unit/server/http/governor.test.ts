import type { EventLoopUtilization } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createLoadGovernor, DEFAULT_GOVERNOR, nextHoldMs } from '../../../../src/server/http/governor.js';

describe('nextHoldMs', () => {
  const p = DEFAULT_GOVERNOR;
  it.each([
    { hold: 0, u: 0.9, next: 1, why: 'saturated: start holding' },
    { hold: 1, u: 0.9, next: 2, why: 'still saturated: double' },
    { hold: 4, u: 0.99, next: 8, why: 'capped at maxHoldMs' },
    { hold: 8, u: 0.99, next: 8, why: 'stays at the cap' },
    { hold: 6, u: 0.3, next: 6, why: 'between the marks: keep' },
    { hold: 8, u: 0.1, next: 4, why: 'quiet: halve' },
    { hold: 0.75, u: 0.1, next: 0, why: 'under half a millisecond: stop holding' },
    { hold: 0, u: 0.1, next: 0, why: 'quiet and not holding' },
  ])('$why', ({ hold, u, next }) => {
    expect(nextHoldMs(hold, u, p)).toBe(next);
  });
});

describe('createLoadGovernor', () => {
  /** A fake thread: `busy` is the utilization every window reports. */
  function world() {
    const w = { t: 0, busy: 0, podsBusy: true };
    const elu = (since: EventLoopUtilization | undefined): EventLoopUtilization =>
      since === undefined ? { idle: 0, active: 0, utilization: 0 } : { idle: 0, active: 0, utilization: w.busy };
    const gov = createLoadGovernor({ utilization: elu, now: () => w.t, busy: () => w.podsBusy });
    // One request already in flight: the arrivals below are concurrent ones.
    gov.enter();
    /** A request arrives, its hold is noted, and it is done. */
    const arrive = (): number => {
      const h = gov.enter();
      gov.leave();
      return h;
    };
    return { w, gov, arrive };
  }

  it('looks at the utilization once per window, grows the hold under load and lets go when it passes', () => {
    const { w, arrive } = world();
    expect(arrive()).toBe(0);
    w.busy = 0.95;
    w.t = 50;
    expect(arrive()).toBe(0); // within the first window: not looked at yet
    const holds: number[] = [];
    for (let k = 1; k <= 6; k++) {
      w.t = k * 100;
      holds.push(arrive());
    }
    expect(holds).toEqual([1, 2, 4, 8, 8, 8]);
    w.busy = 0.1;
    w.t = 700;
    expect(arrive()).toBe(4);
  });

  it('never holds a lone request, however busy the thread', () => {
    const { w, gov, arrive } = world();
    w.busy = 0.95;
    for (let k = 1; k <= 4; k++) {
      w.t = k * 100;
      arrive();
    }
    expect(arrive()).toBe(8);
    gov.leave(); // the request in flight since the start is done
    expect(gov.enter()).toBe(0);
    gov.leave();
  });

  it('starts over after a long quiet gap instead of holding on old load', () => {
    const { w, arrive } = world();
    w.busy = 0.95;
    for (let k = 1; k <= 4; k++) {
      w.t = k * 100;
      arrive();
    }
    expect(arrive()).toBe(8);
    w.t = 60_000;
    expect(arrive()).toBe(0);
  });

  it('holds only while the pod workers have work: a flood with nothing to sync is answered at once', () => {
    const { w, arrive } = world();
    w.busy = 0.95;
    w.podsBusy = false;
    const holds: number[] = [];
    for (let k = 1; k <= 5; k++) {
      w.t = k * 100;
      holds.push(arrive());
    }
    // The hold keeps following the thread's load, and applies once a sync has lasted minBusyMs (5).
    expect(holds).toEqual([0, 0, 0, 0, 0]);
    w.podsBusy = true;
    w.t = 510;
    expect(arrive()).toBe(0); // a sync just began: a periodic resync is over before this matters
    w.t = 514;
    expect(arrive()).toBe(0);
    w.t = 515;
    expect(arrive()).toBe(8);
    w.podsBusy = false;
    w.t = 516;
    expect(arrive()).toBe(0);
    w.podsBusy = true;
    w.t = 517;
    expect(arrive()).toBe(0); // a new stretch starts its own count
  });
});
