// The body of the URL source's worker thread (see url-fetch.ts, url-poll.ts): one poll per
// job (GET, bounded read, hash, parse of a new body), off the agent's event
// loop. Built as its own entry (dist/bundle/url-worker.cjs; dist/sources/url-worker.js from tsc).
import { parseManifest } from './manifest.js';
import { fetchAndParse, type UrlFetchJob, type UrlFetchOutcome } from './url-poll.js';
import { serveJobs } from './worker-serve.js';

// Nothing aborts a poll from inside: the agent ends the thread instead.
const never = new AbortController().signal;

serveJobs<UrlFetchJob, UrlFetchOutcome>('url-worker.ts', (job) =>
  fetchAndParse(job, never, (body) => parseManifest('url', body.toString('utf8'), { node: job.node, source: 'http', location: job.url, now: new Date(job.nowMs), sidecars: job.sidecars === true })),
);
