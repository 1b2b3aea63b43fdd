import { describe, expect, it } from 'vitest';
import { Semaphore, SlotHold, TokenBucket } from '../../../src/util/rate-limit.js';

describe('Semaphore', () => {
  it('never lets more than the limit run, and serves waiters in order', async () => {
    const s = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    const gates = Array.from({ length: 5 }, () => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    });
    const runs = gates.map((g, i) =>
      s.run(async () => {
        active++;
        peak = Math.max(peak, active);
        order.push(i);
        await g.promise;
        active--;
      }),
    );
    await Promise.resolve();
    expect(order).toEqual([0, 1]);
    for (const g of gates) g.resolve();
    await Promise.all(runs);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });
  it('serves a higher priority first, in order within a priority', async () => {
    const s = new Semaphore(1);
    let release!: () => void;
    const held = s.run(() => new Promise<void>((r) => (release = r)));
    const order: string[] = [];
    const runs = [
      s.run(async () => void order.push('sandbox-a'), 0),
      s.run(async () => void order.push('sandbox-b'), 0),
      s.run(async () => void order.push('create-a'), 1),
      s.run(async () => void order.push('start-a'), 2),
      s.run(async () => void order.push('create-b'), 1),
    ];
    await Promise.resolve();
    expect(order).toEqual([]);
    release();
    await Promise.all([held, ...runs]);
    expect(order).toEqual(['start-a', 'create-a', 'create-b', 'sandbox-a', 'sandbox-b']);
  });
  it('acquire holds a place until released; a second release of the same place frees nothing', async () => {
    const s = new Semaphore(1);
    const first = await s.acquire();
    let second: (() => void) | undefined;
    const waiting = s.acquire().then((r) => (second = r));
    await Promise.resolve();
    expect(second).toBeUndefined();
    first();
    await waiting;
    first();
    let third: (() => void) | undefined;
    void s.acquire().then((r) => (third = r));
    await new Promise((r) => setTimeout(r, 0));
    expect(third).toBeUndefined();
    second!();
    await new Promise((r) => setTimeout(r, 0));
    expect(third).toBeTypeOf('function');
  });
  it('releases on failure', async () => {
    const s = new Semaphore(1);
    await expect(s.run(async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await s.run(async () => 7)).toBe(7);
  });
});

describe('Semaphore: a waiter whose signal aborts', () => {
  it('leaves the queue at once and rejects with the reason; the place goes to the next waiter', async () => {
    const sem = new Semaphore(1);
    const release = await sem.acquire();
    const ac = new AbortController();
    const cancelled = sem.acquire(0, ac.signal);
    const next = sem.acquire(0);
    const reason = new Error('pod removed');
    ac.abort(reason);
    await expect(cancelled).rejects.toBe(reason);
    release();
    const releaseNext = await next;
    // The place is free again once the next waiter gives it back: nothing was taken by the cancelled one.
    releaseNext();
    const again = await sem.acquire();
    again();
  });

  it('an already aborted signal rejects without queueing', async () => {
    const sem = new Semaphore(1);
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    await expect(sem.acquire(0, ac.signal)).rejects.toThrow('gone');
    const r = await sem.acquire();
    r();
  });

  it('SlotHold.hold passes the signal on', async () => {
    const sem = new Semaphore(1);
    const busy = await sem.acquire();
    const ac = new AbortController();
    const hold = new SlotHold(sem).hold(0, ac.signal);
    ac.abort(new Error('stop'));
    await expect(hold).rejects.toThrow('stop');
    busy();
  });
});

describe('TokenBucket', () => {
  it('TokenBucket allows a burst, then qps', () => {
    let now = 0;
    const b = new TokenBucket(2, 3, () => now);
    expect([b.tryTake(), b.tryTake(), b.tryTake(), b.tryTake()]).toEqual([true, true, true, false]);
    now = 500;
    expect([b.tryTake(), b.tryTake()]).toEqual([true, false]);
  });
});

describe('SlotHold', () => {
  it('holds one place however often it is taken, gives it back once, and may take it again', async () => {
    const s = new Semaphore(1);
    const hold = new SlotHold(s);
    await hold.hold(0);
    await hold.hold(1);
    const other = new SlotHold(s);
    let otherHeld = false;
    const waiting = other.hold(0).then(() => (otherHeld = true));
    await Promise.resolve();
    expect(otherHeld).toBe(false);
    hold.release();
    hold.release();
    await waiting;
    expect(otherHeld).toBe(true);
    const again = hold.hold(0);
    other.release();
    await again;
    hold.release();
    expect(await s.run(async () => 'free')).toBe('free');
  });
  it('without a semaphore, holding never waits', async () => {
    const hold = new SlotHold(undefined);
    await hold.hold(0);
    hold.release();
    hold.release();
  });
});
