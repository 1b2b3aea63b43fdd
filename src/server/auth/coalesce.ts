// One review in flight per question: concurrent cache misses for the same
// token or attributes share one call (upstream's token cache does the same),
// so a burst of requests with one new credential makes one review. The shared
// call is aborted only once every caller waiting on it has gone away.

export class Coalescer<V> {
  private readonly inflight = new Map<string, { promise: Promise<V>; waiters: number; ctl: AbortController }>();

  run(key: string, signal: AbortSignal, call: (signal: AbortSignal) => Promise<V>): Promise<V> {
    let entry = this.inflight.get(key);
    if (entry === undefined) {
      const ctl = new AbortController();
      const promise = Promise.resolve()
        .then(() => call(ctl.signal))
        .finally(() => this.inflight.delete(key));
      entry = { promise, waiters: 0, ctl };
      this.inflight.set(key, entry);
    }
    const e = entry;
    e.waiters++;
    const leave = (): void => {
      e.waiters--;
      if (e.waiters === 0) e.ctl.abort(signal.reason);
    };
    if (signal.aborted) leave();
    else signal.addEventListener('abort', leave, { once: true });
    return e.promise.finally(() => signal.removeEventListener('abort', leave));
  }

  get size(): number {
    return this.inflight.size;
  }
}
