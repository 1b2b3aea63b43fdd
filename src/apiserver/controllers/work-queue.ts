// A de-duplicating work queue with one worker, as client-go's workqueue is
// used by kube-controller-manager's controllers: a key added while queued is
// queued once; a key that fails is retried after a per-key delay (0.1 s
// doubling to 10 s) unless added again sooner. `run(signal)` processes keys
// one at a time until `signal` aborts; retry timers are cleared then and
// nothing runs afterwards. `add` never blocks and is safe after the stop.
import { onAbort } from '../../lifecycle/abort.js';

export const RETRY_DELAY_MS = { initial: 100, max: 10_000 } as const;

export interface QueueLog {
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export class WorkQueue {
  readonly #pending = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #wake: (() => void) | undefined;
  #stopped = false;

  constructor(
    private readonly handle: (key: string, signal: AbortSignal) => Promise<void>,
    private readonly log: QueueLog,
  ) {}

  add(key: string): void {
    if (this.#stopped) return;
    this.#pending.add(key);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Keys waiting (tests). */
  get size(): number {
    return this.#pending.size;
  }

  async run(signal: AbortSignal): Promise<void> {
    const dispose = onAbort(signal, () => {
      this.#stopped = true;
      for (const t of this.#timers.values()) clearTimeout(t);
      this.#timers.clear();
      this.#pending.clear();
      const wake = this.#wake;
      this.#wake = undefined;
      wake?.();
    });
    try {
      while (!signal.aborted) {
        const key = this.#pending.values().next().value;
        if (key === undefined) {
          await new Promise<void>((resolve) => (this.#wake = resolve));
          continue;
        }
        this.#pending.delete(key);
        try {
          await this.handle(key, signal);
          this.#failures.delete(key);
        } catch (e) {
          if (signal.aborted) return;
          this.#retryLater(key, e);
        }
      }
    } finally {
      dispose();
    }
  }

  #retryLater(key: string, err: unknown): void {
    const n = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, n);
    const delay = Math.min(RETRY_DELAY_MS.initial * 2 ** (n - 1), RETRY_DELAY_MS.max);
    this.log.warn('sync failed; retrying', { key, attempt: n, delayMs: delay, err });
    clearTimeout(this.#timers.get(key));
    const t = setTimeout(() => {
      this.#timers.delete(key);
      this.add(key);
    }, delay);
    t.unref();
    this.#timers.set(key, t);
  }
}
