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

function send(ctx: RouteContext, code: number, contentType: string, body: string | Buffer): void {
  ctx.res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  ctx.res.end(body);
}

const text = (ctx: RouteContext, code: number, msg: string): void => send(ctx, code, 'text/plain; charset=utf-8', `${msg}\n`);

type Snapshot = NonNullable<ReturnType<StatsProvider['snapshot']>>;
type Rendering = 'summary' | 'cpuAndMemory' | 'resource' | 'cadvisor';

export function statsRoutes(p: StatsProvider): Route[] {
  const common = { readOnly: true, debugging: false, methods: ['GET'] } as const;
  // Each snapshot is rendered at most once per form: scrapers and a flood of
  // /stats/summary then cost a lookup, not a stringify of every pod. Keyed by
  // the snapshot object, which the provider replaces on each refresh.
  const rendered = new WeakMap<Snapshot, Map<Rendering, Buffer>>();
  const render = (snap: Snapshot, form: Rendering, make: () => string): Buffer => {
    let forms = rendered.get(snap);
    if (forms === undefined) rendered.set(snap, (forms = new Map()));
    let body = forms.get(form);
    if (body === undefined) forms.set(form, (body = Buffer.from(make())));
    return body;
  };
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
        const body = render(snap, only ? 'cpuAndMemory' : 'summary', () => `${JSON.stringify(only ? snap.cpuAndMemory : snap.summary, null, 2)}\n`);
        send(ctx, 200, 'application/json', body);
        return Promise.resolve();
      },
    },
    {
      ...common,
      path: '/metrics/resource',
      handle(ctx) {
        const snap = p.snapshot();
        send(ctx, 200, EXPOSITION_CONTENT_TYPE, snap === undefined ? resourceMetrics(undefined, true) : render(snap, 'resource', () => resourceMetrics(snap.summary, snap.scrapeError)));
        return Promise.resolve();
      },
    },
    {
      ...common,
      path: '/metrics/cadvisor',
      handle(ctx) {
        const snap = p.snapshot();
        send(ctx, 200, EXPOSITION_CONTENT_TYPE, snap === undefined ? cadvisorMetrics(undefined) : render(snap, 'cadvisor', () => cadvisorMetrics(snap)));
        return Promise.resolve();
      },
    },
  ];
}
