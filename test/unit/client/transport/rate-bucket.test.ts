import { describe, expect, it } from 'vitest';
import { Limiters } from '../../../../src/client/transport/limiter.js';
import { checkedTokenBucket } from '../../../../src/util/rate-limit.js';

function clock(): { now: () => number; advance(ms: number): void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** When each of `n` requests reserved back-to-back at time 0 may go (ms after start). */
function schedule(qps: number, burst: number, n: number): number[] {
  const c = clock();
  const b = checkedTokenBucket(qps, burst, c.now);
  return Array.from({ length: n }, () => b.reserve());
}

describe('TokenBucket.reserve (fake clock)', () => {
  it.each([
    // qps, burst, n, expected due times (ms)
    [20, 1, 4, [0, 50, 100, 150]],
    [10, 3, 6, [0, 0, 0, 100, 200, 300]],
    [50, 100, 102, [...Array<number>(100).fill(0), 20, 40]],
    [3, 1, 3, [0, 334, 667]],
  ])('qps=%d burst=%d: exactly burst at once, then one per 1/qps s', (qps, burst, n, expected) => {
    expect(schedule(qps, burst, n)).toEqual(expected);
  });

  it('refills at qps up to burst, never beyond', () => {
    const c = clock();
    const b = checkedTokenBucket(10, 2, c.now);
    expect([b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 100]);
    c.advance(100);
    expect(b.available()).toBeCloseTo(0);
    c.advance(10_000);
    expect(b.available()).toBe(2);
  });

  it('counts in any 1 s window never exceed qps + burst', () => {
    const due = schedule(20, 5, 200);
    for (const start of due) expect(due.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(25);
  });

  it('a cancelled reservation moves later ones up', () => {
    const c = clock();
    const b = checkedTokenBucket(10, 1, c.now);
    b.reserve();
    expect(b.reserve()).toBe(100);
    b.cancel();
    expect(b.reserve()).toBe(100);
  });

  it.each([
    [0, 1],
    [-1, 1],
    [Number.NaN, 1],
    [1, 0],
    [1, 1.5],
  ])('qps=%d burst=%d is a TypeError', (qps, burst) => {
    expect(() => checkedTokenBucket(qps, burst, Date.now)).toThrow(TypeError);
  });
});

describe('Limiters', () => {
  const sleeps: number[] = [];
  const sleep = (ms: number, signal: AbortSignal): Promise<void> => {
    sleeps.push(ms);
    return new Promise((resolve, reject) => {
      if (ms < 1000) resolve();
      else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  };

  it('none is never limited; default and events have their own buckets', async () => {
    sleeps.length = 0;
    const c = clock();
    const l = new Limiters({ qps: 1, burst: 1, eventQps: 2, eventBurst: 1 }, c.now, sleep);
    const signal = new AbortController().signal;
    for (let i = 0; i < 5; i++) await l.take('none', signal);
    await l.take('default', signal);
    await l.take('events', signal);
    await l.take('events', signal);
    expect(sleeps).toEqual([500]);
  });

  it('an aborted wait rejects with the reason and gives its token back', async () => {
    sleeps.length = 0;
    const c = clock();
    const l = new Limiters({ qps: 1, burst: 1, eventQps: 1, eventBurst: 1 }, c.now, sleep);
    const ac = new AbortController();
    await l.take('default', ac.signal);
    const waiting = l.take('default', ac.signal);
    ac.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await expect(l.take('default', ac.signal)).rejects.toThrow('stop');
    // The token came back: the next waiter is due after one interval, not two.
    const last = new AbortController();
    const next = l.take('default', last.signal);
    expect(sleeps.at(-1)).toBe(1000);
    last.abort(new Error('done'));
    await expect(next).rejects.toThrow('done');
  });

  it('names the options in its TypeError', () => {
    expect(() => new Limiters({ qps: 5, burst: 10, eventQps: 0, eventBurst: 1 }, Date.now, sleep)).toThrow(/eventQps\/eventBurst: qps must be a positive number/);
  });
});
