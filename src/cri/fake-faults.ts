// The fault injection of FakeRuntime (fake-runtime.ts): the call log, failures
// queued per method, down mode, and calls held until released. FakeRuntime
// passes every call through enter(); tests reach these through FakeRuntime.

import { onAbort } from '../lifecycle/abort.js';
import { CriError, type GrpcStatusName } from './errors.js';
import type { CriMethod } from './methods.js';

export interface FakeCall {
  method: CriMethod;
  args: unknown[];
}

/** A call held by block(): `arrived` resolves when it comes in, `release()` lets it proceed, `cancelled` resolves if its signal aborts. */
export interface FakeBlock {
  readonly arrived: Promise<void>;
  readonly cancelled: Promise<unknown>;
  release(): void;
}

interface PendingBlock {
  arrivedResolve(): void;
  cancelledResolve(reason: unknown): void;
  released: Promise<void>;
}

export class FakeFaults {
  /** Every call, in order, with its arguments (the signal left out), including calls that failed. */
  readonly calls: FakeCall[] = [];
  private readonly failures = new Map<CriMethod, CriError[]>();
  private readonly blocks = new Map<CriMethod, PendingBlock[]>();
  private down = false;

  /** The next `times` calls of `method` fail with `error` (a CriError, or a status with a stock message). */
  failNext(method: CriMethod, error: CriError | GrpcStatusName, times = 1): void {
    const e = typeof error === 'string' ? new CriError(error, `injected ${error} for ${method}`) : error;
    const q = this.failures.get(method) ?? [];
    for (let i = 0; i < times; i++) q.push(e);
    this.failures.set(method, q);
  }

  /** Runtime down: while set, every call fails with UNAVAILABLE, as when the socket is gone. State is kept. */
  setDown(down: boolean): void {
    this.down = down;
  }

  /** Holds the next call of `method` until released (or until its signal aborts). */
  block(method: CriMethod): FakeBlock {
    let arrivedResolve!: () => void;
    let cancelledResolve!: (reason: unknown) => void;
    let release!: () => void;
    const arrived = new Promise<void>((r) => (arrivedResolve = r));
    const cancelled = new Promise<unknown>((r) => (cancelledResolve = r));
    const released = new Promise<void>((r) => (release = r));
    const q = this.blocks.get(method) ?? [];
    q.push({ arrivedResolve, cancelledResolve, released });
    this.blocks.set(method, q);
    return { arrived, cancelled, release };
  }

  /**
   * Called by FakeRuntime at the start of every method: records the call, then
   * applies (in order) abort, down mode, an injected failure, a block. Blocks
   * only while a block() of the method holds it; rejects as the call should.
   */
  async enter(method: CriMethod, args: unknown[], signal: AbortSignal | undefined): Promise<void> {
    this.calls.push({ method, args: structuredClone(args) });
    if (signal?.aborted === true) throw signal.reason;
    if (this.down) throw new CriError('UNAVAILABLE', 'connection error: dial unix: connect: no such file or directory (fake runtime is down)');
    const failure = this.failures.get(method)?.shift();
    if (failure !== undefined) throw failure;
    const block = this.blocks.get(method)?.shift();
    if (block !== undefined) {
      block.arrivedResolve();
      await new Promise<void>((resolve, reject) => {
        const detach = signal === undefined ? () => {} : onAbort(signal, (reason) => {
          block.cancelledResolve(reason);
          reject(reason);
        });
        void block.released.then(() => {
          detach();
          resolve();
        });
      });
    }
  }
}
