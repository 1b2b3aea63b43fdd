// The health port's HTTP answers, served the way the platform's healthz
// handler answers so existing probes and scripts read it unchanged:
//
//   GET /healthz            200 "ok", or 500 with one "[+]name ok" /
//                           "[-]name failed: reason withheld" line per check and
//                           "healthz check failed" (reasons go to the log only:
//                           the endpoint is unauthenticated)
//   GET /healthz?verbose    the per-check lines on success too
//   GET /healthz?exclude=x  skips check x ("[+]x excluded: ok")
//   GET /healthz/<name>     one check: 200 "ok" or 500 "internal server error: <reason>"
//
// Used by the health port's worker thread (healthz-worker.ts) and, where no
// worker script exists, by the in-thread server (healthz.ts). Synchronous.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LifecycleLog } from '../lifecycle/component.js';
import { healthzReply, type LivenessView } from './routes/healthz-check.js';

/** Never mutated: the plain `/healthz` of a supervisor's probe needs no URL parse. */
const NO_PARAMS = new URLSearchParams();
const OK_BODY = Buffer.from('ok');
const OK_HEAD = ['Content-Type', 'text/plain; charset=utf-8', 'X-Content-Type-Options', 'nosniff', 'Content-Length', '2'];

/** Whether the request is one the health port answers from the checks (the rest is 404/405 without them). */
export function needsVerdicts(req: IncomingMessage): boolean {
  const raw = req.url ?? '/';
  return (raw === '/healthz' || raw.startsWith('/healthz/') || raw.startsWith('/healthz?')) && (req.method === 'GET' || req.method === 'HEAD');
}

export function handleHealthz(req: IncomingMessage, res: ServerResponse, liveness: LivenessView, log: Pick<LifecycleLog, 'info'>): void {
  const raw = req.url ?? '/';
  let url: URL | undefined;
  try {
    url = raw === '/healthz' ? undefined : new URL(raw, 'http://healthz.invalid');
  } catch {
    reply(res, 400, '400 bad request\n');
    return;
  }
  const path = url?.pathname ?? '/healthz';
  if (path !== '/healthz' && !path.startsWith('/healthz/')) {
    reply(res, 404, '404 page not found\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    reply(res, 405, 'method not allowed\n');
    return;
  }
  const r = healthzReply(liveness, path.slice('/healthz/'.length), url?.searchParams ?? NO_PARAMS, log);
  if (r.status === 200 && r.body === 'ok') return replyOk(res);
  reply(res, r.status, r.body);
}

/** The healthy answer, a supervisor's probe many times a second under a flood: one prepared head and body. */
export function replyOk(res: ServerResponse): void {
  res.writeHead(200, OK_HEAD);
  res.end(OK_BODY);
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  // node drops the body itself for HEAD.
  res.end(body);
}
