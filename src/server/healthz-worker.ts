// The health port's worker thread. The agent answers /healthz on a thread of
// its own: a supervisor's probe (or a flood of them) then never waits behind
// the sync loop, and the sync loop never waits behind it; and node's HTTP code
// on this thread serves one kind of answer, not the node servers' many (their
// bodies and headers make the shared code slower for everyone on a thread).
// The checks themselves run on the agent's thread: this one asks for their
// verdicts when its copy is older than `maxVerdictAgeMs`, and answers from
// its copy otherwise. Started and stopped by healthz.ts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { handleHealthz, needsVerdicts, replyOk } from './healthz-http.js';
import { listen } from './http/listen.js';
import { verdictView, type FromHealthzWorker, type HealthzWorkerData, type ToHealthzWorker } from './healthz-protocol.js';
import type { LivenessView } from './routes/healthz-check.js';

const port = parentPort;
if (port === null) throw new Error('healthz-worker runs only as a worker thread');
const data = workerData as HealthzWorkerData;
const send = (m: FromHealthzWorker): void => port.postMessage(m);
const log = { info: (msg: string, fields: Record<string, unknown> = {}) => send({ kind: 'log', msg, fields }) };

let view: LivenessView | undefined;
let viewAt = -Infinity;
/** Requests waiting for fresh verdicts; one refresh asked for all of them. */
let waiting: Array<() => void> = [];

function withVerdicts(go: (v: LivenessView) => void): void {
  if (view !== undefined && performance.now() - viewAt < data.maxVerdictAgeMs) return go(view);
  waiting.push(() => go(view as LivenessView));
  if (waiting.length === 1) send({ kind: 'refresh' });
}

/** Whether every check passed at the last evaluation: the plain probe is then answered without a parse. */
let allOk = false;

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  if (allOk && req.url === '/healthz' && req.method === 'GET' && performance.now() - viewAt < data.maxVerdictAgeMs) return replyOk(res);
  if (!needsVerdicts(req)) return handleHealthz(req, res, verdictView([]), log);
  withVerdicts((v) => handleHealthz(req, res, v, log));
});

port.on('message', (m: ToHealthzWorker) => {
  if (m.kind === 'verdicts') {
    view = verdictView(m.results);
    viewAt = performance.now();
    allOk = m.results.every((r) => r.ok);
    const ready = waiting;
    waiting = [];
    for (const go of ready) go();
    return;
  }
  // close(): stops accepting; closeAllConnections() ends keep-alive and half-sent requests at once.
  server.close(() => {
    send({ kind: 'closed' });
    port.close();
  });
  server.closeAllConnections();
});

listen(server, data.address, data.port).then(
  () => {
    server.on('error', (err) => log.info('healthz server error', { error: err.message }));
    send({ kind: 'listening', address: server.address() as AddressInfo });
  },
  (err: Error) => {
    send({ kind: 'listen-failed', message: err.message });
    port.close();
  },
);
