// GET /containerLogs/{namespace}/{pod}/{container}: one container's log as
// the kubelet serves it (what `kubectl logs` reaches through the API
// server's pods/log proxy). The pod comes from the status store, the
// instance from its status (locate.ts), the file from the runtime's
// ContainerStatus.logPath, or the /var/log/pods layout when the runtime no
// longer knows the container. Answers: 400/422 for a bad query, 404 for an
// unknown pod or container, 400 when the log cannot be read, else 200 with
// the text streamed (follow: until the client goes or the container stops).
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import type { RuntimeService } from '../../cri/types.js';
import type { AgentLogger } from '../../log/index.js';
import type { RouteContext } from '../types.js';
import { logFiles } from './files.js';
import { locateContainer, type PodView } from './locate.js';
import { parseLogQuery } from './options.js';
import { readLogs, type LogSink } from './reader.js';

export interface ContainerLogsDeps {
  readonly status: { all(): readonly PodView[] };
  readonly runtime: Pick<RuntimeService, 'containerStatus'>;
  readonly podLogsDir: string;
  readonly log: AgentLogger;
  /** Tests shorten these; see ReadLogsInput. */
  readonly stateCheckMs?: number;
  readonly pollMs?: number;
  readonly now?: () => number;
}

export const CONTAINER_LOGS_PREFIX = '/containerLogs/';

/** A plain-text error answer, as the kubelet's restful WriteError. */
export function answer(res: ServerResponse, status: number, message: string): void {
  const body = `${message}\n`;
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

/** The three path segments, decoded; a string is the 4xx to give. */
export function containerLogsPath(pathname: string): { namespace: string; pod: string; container: string } | { status: 400 | 404; message: string } {
  if (!pathname.startsWith(CONTAINER_LOGS_PREFIX)) return { status: 404, message: '404 page not found' };
  const parts = pathname.slice(CONTAINER_LOGS_PREFIX.length).split('/');
  if (parts.length !== 3) return { status: 404, message: '404 page not found' };
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    return { status: 400, message: `invalid path ${JSON.stringify(pathname)}: bad percent-encoding` };
  }
  const [namespace, pod, container] = decoded as [string, string, string];
  if (namespace === '') return { status: 400, message: 'Missing podNamespace.' };
  if (pod === '') return { status: 400, message: 'Missing podID.' };
  if (container === '') return { status: 400, message: 'Missing container name.' };
  return { namespace, pod, container };
}

/** Writes to the response with back-pressure, cutting at limitBytes; false once nothing more is wanted. */
function responseSink(res: ServerResponse, limitBytes: number | undefined, signal: AbortSignal): LogSink {
  let left = limitBytes ?? Number.POSITIVE_INFINITY;
  return {
    async write(b) {
      if (signal.aborted || res.destroyed || left <= 0) return false;
      const chunk = b.length > left ? b.subarray(0, left) : b;
      left -= chunk.length;
      if (!res.write(chunk)) {
        await once(res, 'drain', { signal }).catch(() => undefined);
      }
      return left > 0 && !signal.aborted && !res.destroyed;
    },
  };
}

export async function serveContainerLogs(d: ContainerLogsDeps, ctx: RouteContext): Promise<void> {
  const { res, url, signal } = ctx;
  const where = containerLogsPath(url.pathname);
  if ('status' in where) return answer(res, where.status, where.message);
  const parsed = parseLogQuery(url.searchParams, (d.now ?? Date.now)());
  if (!parsed.ok) return answer(res, parsed.status, parsed.message);
  const opts = parsed.options;
  const loc = locateContainer(d.status.all(), { ...where, previous: opts.previous });
  if (loc.kind === 'error') return answer(res, loc.status, loc.message);

  const fallback = join(d.podLogsDir, loc.podDir, where.container, `${loc.attempt}.log`);
  let logPath = '';
  try {
    logPath = (await d.runtime.containerStatus(loc.containerId, signal)).logPath;
  } catch (err) {
    // Removed from the runtime (an old instance collected): its file may still be there.
    d.log.v(4)?.info('container status for logs failed; using the pod log layout', { containerId: loc.containerId, error: String(err) });
  }
  if (logPath === '' && existsSync(fallback)) logPath = fallback;
  if (logPath === '') return answer(res, 400, `failed to get the log path of container "${where.container}" (${loc.containerId}) in pod "${where.namespace}/${where.pod}"`);

  if (ctx.req.method === 'HEAD') {
    // The headers a GET would get, without reading (a follow would never end).
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end();
    return;
  }
  let started = false;
  const start = (): void => {
    if (started) return;
    started = true;
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    // Follow may wait long before the first line: the client learns now that the request was accepted.
    res.flushHeaders();
  };
  const sink = responseSink(res, opts.limitBytes, signal);
  try {
    await readLogs({
      files: await logFiles(logPath),
      options: opts,
      sink: { write: (b) => (start(), sink.write(b)) },
      signal,
      isRunning: async () => (await d.runtime.containerStatus(loc.containerId, signal)).state === 'RUNNING',
      opened: start,
      ...(d.stateCheckMs !== undefined ? { stateCheckMs: d.stateCheckMs } : {}),
      ...(d.pollMs !== undefined ? { pollMs: d.pollMs } : {}),
    });
  } catch (err) {
    if (!started) return answer(res, 400, `failed to read the log of container "${where.container}" in pod "${where.namespace}/${where.pod}": ${(err as Error).message}`);
    d.log.warn('container log stream failed', { pod: `${where.namespace}/${where.pod}`, container: where.container, error: String(err) });
    res.destroy();
    return;
  }
  start();
  if (!res.destroyed) res.end();
}
