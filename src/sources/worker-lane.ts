// One worker thread that runs jobs one at a time, in arrival order, for the
// sources: the manifest parser's (parser.ts) and the URL source's fetcher
// (url-fetch.ts). What a lane guarantees its caller:
// - run() never rejects: a job past its deadline, a worker out of memory, a
//   worker that died or a lane closed under it resolves as { failed: why };
// - a job that fails that way ends the worker, and the next job gets a new one;
// - an idle worker is ended after `idleMs` (Infinity: kept until close()), so
//   the memory a large job took goes back to the system;
// - the worker never keeps the process alive, and close() ends it.
// The worker side is worker-serve.ts.
import { Worker } from 'node:worker_threads';

/** A message to the worker: one job. */
export interface LaneRequest<J> {
  readonly id: number;
  readonly job: J;
}

/** The worker's answer to one job. */
export interface LaneReply<O> {
  readonly id: number;
  readonly out: O;
}

/** Why a job has no answer: past its deadline, out of the heap cap, the worker died (`detail`), or the lane closed. */
export interface LaneFailure {
  readonly reason: 'deadline' | 'memory' | 'crashed' | 'closed';
  readonly detail?: string;
}

export type LaneOutcome<O> = { readonly out: O } | { readonly failed: LaneFailure };

export interface WorkerLane<J, O> {
  /** Runs `job` in the worker; `transfer`: buffers handed over without a copy (detached here). */
  run(job: J, opts: { readonly transfer?: ArrayBuffer[]; readonly deadlineMs: number }): Promise<LaneOutcome<O>>;
  /** Ends the worker; jobs still queued resolve as failed. Idempotent. */
  close(): Promise<void>;
}

export interface WorkerLaneOptions {
  readonly script: URL;
  /** The worker's old-generation heap: a job that needs more fails. */
  readonly heapMb: number;
  /** The worker is ended after this long without a job; Infinity keeps it until close(). */
  readonly idleMs: number;
}

export { findScript } from '../util/worker-script.js';

const CLOSED: LaneFailure = { reason: 'closed' };

interface Pending<J, O> {
  readonly req: LaneRequest<J>;
  readonly transfer: ArrayBuffer[];
  readonly deadlineMs: number;
  readonly resolve: (r: LaneOutcome<O>) => void;
}

export function createWorkerLane<J, O>(opts: WorkerLaneOptions): WorkerLane<J, O> {
  const queue: Pending<J, O>[] = [];
  let worker: Worker | undefined;
  let current: { pending: Pending<J, O>; timer: NodeJS.Timeout } | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let nextId = 1;
  let closed = false;

  function finish(result: LaneOutcome<O>): void {
    if (!current) return;
    clearTimeout(current.timer);
    const { resolve } = current.pending;
    current = undefined;
    resolve(result);
    pump();
  }

  function stopWorker(): void {
    const w = worker;
    worker = undefined;
    clearTimeout(idleTimer);
    idleTimer = undefined;
    if (w) void w.terminate();
  }

  function startWorker(): Worker {
    const w = new Worker(opts.script, {
      resourceLimits: { maxOldGenerationSizeMb: opts.heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      // The agent's own flags (--max-semi-space-size, --expose-gc) are not the worker's business.
      execArgv: [],
      stdout: false,
      stderr: false,
    });
    // The worker must not keep the process alive; the agent's own loop does.
    w.unref();
    w.on('message', (reply: LaneReply<O>) => {
      if (current?.pending.req.id === reply.id) finish({ out: reply.out });
    });
    w.on('error', (e: Error & { code?: string }) => {
      if (worker === w) worker = undefined;
      finish({ failed: e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { reason: 'memory' } : { reason: 'crashed', detail: e.message } });
    });
    w.on('exit', () => {
      if (worker === w) worker = undefined;
      // An exit with a job in flight and no error event (killed from outside): fail the job, not the caller.
      if (current && worker === undefined) finish({ failed: { reason: 'crashed', detail: 'the thread exited' } });
    });
    return w;
  }

  function pump(): void {
    if (current || closed) return;
    const pending = queue.shift();
    clearTimeout(idleTimer);
    idleTimer = undefined;
    if (!pending) {
      if (Number.isFinite(opts.idleMs) && worker) {
        idleTimer = setTimeout(stopWorker, opts.idleMs);
        idleTimer.unref();
      }
      return;
    }
    worker ??= startWorker();
    const timer = setTimeout(() => {
      stopWorker();
      finish({ failed: { reason: 'deadline' } });
    }, pending.deadlineMs);
    timer.unref();
    current = { pending, timer };
    worker.postMessage(pending.req, pending.transfer);
  }

  return {
    run(job, { transfer = [], deadlineMs }) {
      if (closed) return Promise.resolve({ failed: CLOSED });
      return new Promise((resolve) => {
        queue.push({ req: { id: nextId++, job }, transfer, deadlineMs, resolve });
        pump();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const p of queue.splice(0)) p.resolve({ failed: CLOSED });
      if (current) finish({ failed: CLOSED });
      const w = worker;
      worker = undefined;
      clearTimeout(idleTimer);
      if (w) await w.terminate();
    },
  };
}
