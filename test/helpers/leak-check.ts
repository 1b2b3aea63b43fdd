// The leak check of the unit and integration tiers (vitest.config.ts wires it
// as a setup file of those projects only; the e2e tier keeps its own). After
// each test file, it fails that file if the file left behind:
// - timers (setTimeout/setInterval, ref'd or unref'd) created while it ran
//   and neither fired nor cleared, each named by where it was created;
// - node resources (process.getActiveResourcesInfo(): sockets, servers, child
//   processes, pipes, file watchers, ref'd timers) beyond what the worker
//   held before the file was loaded: what vitest itself holds is in that
//   baseline, and so allowed.
// Resources that close asynchronously (a socket's close event) get a bounded
// wait. Fake timers (vi.useFakeTimers) are not real timers and are not counted.
import { afterAll } from 'vitest';

type Handle = ReturnType<typeof setTimeout>;

interface LiveTimer {
  kind: 'setTimeout' | 'setInterval';
  ms: number | undefined;
  created: Error;
}

const real = {
  setTimeout: globalThis.setTimeout,
  setInterval: globalThis.setInterval,
  clearTimeout: globalThis.clearTimeout,
  clearInterval: globalThis.clearInterval,
};

/** How long resources that close asynchronously get, after the file's last hook, before they count as leaked. */
const SETTLE_MS = 2_000;

const baseline = countResources();
const live = new Map<Handle, LiveTimer>();

globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): Handle => {
  const handle = real.setTimeout(
    (...a: unknown[]) => {
      live.delete(handle);
      fn(...a);
    },
    ms,
    ...args,
  );
  live.set(handle, { kind: 'setTimeout', ms, created: new Error('created here') });
  return handle;
}) as typeof setTimeout;
globalThis.setInterval = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): Handle => {
  const handle = real.setInterval(fn, ms, ...args);
  live.set(handle, { kind: 'setInterval', ms, created: new Error('created here') });
  return handle;
}) as typeof setInterval;
const clear = (handle: Handle | string | number | undefined): void => {
  if (handle !== undefined && typeof handle === 'object') live.delete(handle);
  real.clearTimeout(handle);
};
globalThis.clearTimeout = clear as typeof clearTimeout;
globalThis.clearInterval = clear as typeof clearInterval;

afterAll(async () => {
  // Resources first: closing a socket may clear its timers.
  const deadline = Date.now() + SETTLE_MS;
  let extra = excess(baseline, countResources());
  while ((extra.length > 0 || pendingTimers().length > 0) && Date.now() < deadline) {
    await new Promise<void>((resolve) => real.setTimeout(resolve, 10));
    extra = excess(baseline, countResources());
  }
  const timers = pendingTimers();
  // Cleared either way, so one file's leak does not become the next file's.
  for (const h of live.keys()) real.clearTimeout(h);
  live.clear();
  const problems = [...extra.map((e) => `${e} left open`), ...timers];
  if (problems.length > 0) throw new Error(`Leak check: this test file left behind:\n  ${problems.join('\n  ')}`);
});

/** The timers still pending, each with the first frame outside node and this file that created it. */
function pendingTimers(): string[] {
  return [...live.values()].map((t) => `${t.kind}(${t.ms ?? 0} ms) created at ${creationSite(t.created)}`);
}

function creationSite(e: Error): string {
  const frames = (e.stack ?? '').split('\n').slice(1).map((l) => l.trim());
  const own = frames.find((l) => !l.includes('leak-check') && !l.includes('node:') && !l.includes('node_modules/vitest') && !l.includes('@vitest'));
  return (own ?? frames[0] ?? 'unknown').replace(/^at /, '');
}

function countResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
}

/**
 * `n × Kind` for each kind of resource beyond the baseline. Ref'd timers that
 * pendingTimers() names are not counted again; others (node:timers/promises,
 * timers created before the patch) are.
 */
function excess(before: Map<string, number>, after: Map<string, number>): string[] {
  const out: string[] = [];
  const named = [...live.keys()].filter((h) => h.hasRef()).length;
  for (const [kind, n] of after) {
    const allowed = (before.get(kind) ?? 0) + (kind === 'Timeout' ? named : 0);
    if (n > allowed) out.push(`${n - allowed} × ${kind}${kind === 'Timeout' ? ' (not made by the global setTimeout/setInterval)' : ''}`);
  }
  return out;
}
