// The body of the manifest parser's worker thread (see parser.ts): parses one
// manifest per job, off the agent's event loop. Built as its own entry
// (dist/bundle/manifest-worker.cjs; dist/sources/parse-worker.js from tsc).
import { parseManifest, type ManifestResult } from './manifest.js';
import { readAndParse, type FileParse } from './file-parse.js';
import type { ParseJob } from './parser.js';
import { serveJobs } from './worker-serve.js';

serveJobs<ParseJob, ManifestResult | FileParse>('parse-worker.ts', (job) => {
  if ('file' in job) return readAndParse(job.file, job.maxBytes, { ...job.ctx, now: new Date(job.ctx.nowMs) });
  const text = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength).toString('utf8');
  return parseManifest(job.kind, text, { ...job.ctx, now: new Date(job.ctx.nowMs) });
});
