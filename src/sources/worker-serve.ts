// The worker side of a lane (worker-lane.ts): answers one job per message, in
// order, off the agent's event loop. Used by the manifest parser's worker
// (parse-worker.ts) and the URL source's (url-worker.ts).
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { LaneReply, LaneRequest } from './worker-lane.js';

const collect = (globalThis as { gc?: () => void }).gc;

/** Serves `handle` on this thread's port; `name` is for the error when loaded outside a worker. */
export function serveJobs<J, O>(name: string, handle: (job: J) => O | Promise<O>): void {
  const port = parentPort;
  if (port === null) throw new Error(`${name} runs only as a worker thread`);
  // The lowest CPU priority, for this thread alone (Linux keeps a nice value per
  // thread; pid 0 is the calling thread): on a busy node a long job takes the
  // cycles the agent's event loop and the runtime leave, not theirs.
  try {
    setPriority(0, 19);
  } catch {
    // Not permitted or not supported: the job still runs, at the agent's priority.
  }
  // Jobs run one at a time even when one awaits (a fetch): the lane sends the
  // next only after this one's answer, but a chain keeps the order regardless.
  let chain: Promise<void> = Promise.resolve();
  port.on('message', (req: LaneRequest<J>) => {
    chain = chain.then(async () => {
      const reply: LaneReply<O> = { id: req.id, out: await handle(req.job) };
      port.postMessage(reply);
      // A large job leaves tens of MB of garbage; with the agent's --expose-gc
      // (a V8 flag, so the worker's too) it goes now, not after the next few jobs.
      collect?.();
    }).catch((e: unknown) => {
      // A handler that throws is a bug: end the thread, and the lane fails the job.
      setImmediate(() => {
        throw e;
      });
    });
  });
}
