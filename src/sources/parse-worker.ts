// The body of the manifest parser's worker thread (see parser.ts): parses one
// manifest per message, off the agent's event loop. Built as its own entry
// (dist/bundle/manifest-worker.cjs; dist/sources/parse-worker.js from tsc).
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { parseManifest } from './manifest.js';
import type { WorkerJob, WorkerReply } from './parser.js';

const collect = (globalThis as { gc?: () => void }).gc;
const port = parentPort;
if (port === null) throw new Error('parse-worker.ts runs only as a worker thread');
// The lowest CPU priority, for this thread alone (Linux keeps a nice value per
// thread; pid 0 is the calling thread): on a busy node a long parse takes the
// cycles the agent's event loop and the runtime leave, not theirs.
try {
  setPriority(0, 19);
} catch {
  // Not permitted or not supported: the parse still runs, at the agent's priority.
}
port.on('message', (job: WorkerJob) => {
  const text = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength).toString('utf8');
  const result = parseManifest(job.kind, text, { ...job.ctx, now: new Date(job.ctx.nowMs) });
  const reply: WorkerReply = { id: job.id, result };
  port.postMessage(reply);
  // A large manifest leaves tens of MB of garbage; with the agent's --expose-gc
  // (a V8 flag, so the worker's too) it goes now, not after the next few jobs.
  collect?.();
});
