// The body of the manifest parser's worker thread (see parser.ts): parses one
// manifest per message, off the agent's event loop. Built as its own entry
// (dist/bundle/manifest-worker.cjs; dist/sources/parse-worker.js from tsc).
import { parentPort } from 'node:worker_threads';
import { parseManifest } from './manifest.js';
import type { WorkerJob, WorkerReply } from './parser.js';

const port = parentPort;
if (port === null) throw new Error('parse-worker.ts runs only as a worker thread');
port.on('message', (job: WorkerJob) => {
  const text = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength).toString('utf8');
  const result = parseManifest(job.kind, text, { ...job.ctx, now: new Date(job.ctx.nowMs) });
  const reply: WorkerReply = { id: job.id, result };
  port.postMessage(reply);
});
