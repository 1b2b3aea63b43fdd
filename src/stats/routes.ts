// The stats endpoints of the node's HTTP surface: /stats/summary,
// /metrics/resource and /metrics/cadvisor. Each answers from the provider's
// last snapshot (never measures per request), on both the main and the
// read-only port, as the kubelet serves them.
import type { Route, RouteContext } from '../server/types.js';
import { cadvisorMetrics, EXPOSITION_CONTENT_TYPE, resourceMetrics } from './exposition.js';
import type { StatsProvider } from './provider.js';

/** Go's strconv.ParseBool spellings, which the kubelet accepts for only_cpu_and_memory. Pure. */
export function parseGoBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

function send(ctx: RouteContext, code: number, contentType: string, body: string): void {
  ctx.res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  ctx.res.end(body);
}

const text = (ctx: RouteContext, code: number, msg: string): void => send(ctx, code, 'text/plain; charset=utf-8', `${msg}\n`);

export function statsRoutes(p: StatsProvider): Route[] {
  const common = { readOnly: true, debugging: false, methods: ['GET'] } as const;
  return [
    {
      ...common,
      path: '/stats/summary',
      handle(ctx) {
        const values = ctx.url.searchParams.getAll('only_cpu_and_memory');
        let only = false;
        if (values.length > 1) return Promise.resolve(text(ctx, 400, 'query parameter only_cpu_and_memory given more than once'));
        if (values.length === 1) {
          const b = parseGoBool(values[0] ?? '');
          if (b === undefined) return Promise.resolve(text(ctx, 400, `query parameter only_cpu_and_memory: invalid boolean ${JSON.stringify(values[0])}`));
          only = b;
        }
        const snap = p.snapshot();
        if (snap === undefined) return Promise.resolve(text(ctx, 503, 'stats summary not yet available: the first stats refresh has not completed'));
        send(ctx, 200, 'application/json', `${JSON.stringify(only ? snap.cpuAndMemory : snap.summary, null, 2)}\n`);
        return Promise.resolve();
      },
    },
    {
      ...common,
      path: '/metrics/resource',
      handle(ctx) {
        const snap = p.snapshot();
        send(ctx, 200, EXPOSITION_CONTENT_TYPE, resourceMetrics(snap?.summary, snap?.scrapeError ?? true));
        return Promise.resolve();
      },
    },
    {
      ...common,
      path: '/metrics/cadvisor',
      handle(ctx) {
        send(ctx, 200, EXPOSITION_CONTENT_TYPE, cadvisorMetrics(p.snapshot()));
        return Promise.resolve();
      },
    },
  ];
}
