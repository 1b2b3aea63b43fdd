// How a thrown value in the `err` field is shown. Text and the JSON `err` key
// get one string (what klog prints for `ErrorS(err, ...)`); JSON additionally
// gets `errDetails`, because JS causes are not folded into the message the way
// Go's `%w` wrapping folds them.

const MAX_CAUSE_DEPTH = 5;
const DETAIL_KEYS = ['code', 'flag', 'field', 'file', 'line'] as const;

export interface ErrorDetails {
  type: string;
  message: string;
  code?: string | number;
  flag?: string | number;
  field?: string | number;
  file?: string | number;
  line?: string | number;
  stack?: string;
  cause?: ErrorDetails;
}

/** Something thrown that is not an Error: objects as JSON rather than `[object Object]`. */
function thrownText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * `outer: inner: innermost`, skipping a cause whose message the outer one
 * already contains (callers often interpolate it themselves).
 */
export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return thrownText(err);
  let text = err.message;
  const seen = new Set<unknown>([err]);
  let cause: unknown = err.cause;
  for (let depth = 0; cause !== undefined && !seen.has(cause) && depth < MAX_CAUSE_DEPTH; depth++) {
    seen.add(cause);
    const msg = cause instanceof Error ? cause.message : thrownText(cause);
    if (msg !== '' && !text.includes(msg)) text += `: ${msg}`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}

/**
 * Type, message, stack and cause chain, plus the AgentError context fields
 * (and Node's system-error `code`) when present. Duck-typed so it works for
 * errors from any layer without importing them.
 */
export function errorDetails(err: unknown, depth = 0, seen = new Set<unknown>()): ErrorDetails {
  if (!(err instanceof Error)) return { type: typeof err, message: thrownText(err) };
  seen.add(err);
  const out: ErrorDetails = { type: err.name || 'Error', message: err.message };
  const bag = err as unknown as Record<string, unknown>;
  for (const key of DETAIL_KEYS) {
    const value = bag[key];
    if (typeof value === 'string' || typeof value === 'number') out[key] = value;
  }
  if (err.stack !== undefined) out.stack = err.stack;
  const cause = err.cause;
  if (cause !== undefined && !seen.has(cause) && depth < MAX_CAUSE_DEPTH) {
    out.cause = errorDetails(cause, depth + 1, seen);
  }
  return out;
}
