// component-base's `caller` key (zap's ShortCallerEncoder: `dir/file:line`) for
// JSON records, taken from the call stack. In the bundled binary the frame is
// the bundle's own line unless Node maps stacks (--enable-source-maps, or
// NODE_OPTIONS), which then names src/<dir>/<file>.ts: the key is there either
// way, so log pipelines that parse the kubelet's records parse the agent's.

/** `    at fn (file:///a/b/src/pods/sync-pod.ts:12:5)` → `pods/sync-pod.ts:12`; undefined for a line that names no file. Pure. */
export function shortCaller(frame: string | undefined): string | undefined {
  if (frame === undefined) return undefined;
  const m = /(?:\(|at )([^()\s]+):(\d+):\d+\)?\s*$/.exec(frame);
  if (!m) return undefined;
  const file = m[1]!.replace(/^file:\/\//, '');
  const parts = file.split('/').filter((p) => p !== '');
  return `${parts.slice(-2).join('/')}:${m[2]}`;
}

/**
 * The caller of the logging method that called `below` (one frame further
 * out than `below`'s caller: `below` is the logger's internal emit, its
 * caller is info/warn/error or a V-level closure). Costs one two-frame stack
 * capture; synchronous; never throws.
 */
export function callerOf(below: (...args: never[]) => unknown): string | undefined {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 2;
    Error.captureStackTrace(holder, below);
  } catch {
    return undefined;
  } finally {
    Error.stackTraceLimit = limit;
  }
  // Line 0 is the holder's own header; line 1 the logging method; line 2 its caller.
  return shortCaller(holder.stack?.split('\n')[2]);
}
