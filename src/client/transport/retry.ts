// When the transport sends a request again, and after how long: pure
// decisions (no timers, no I/O) on what one attempt came back with, table-
// tested. The rules (client-go's rest.Request and with_retry.go, and issue
// 17): a 429 is retried for every request — the server did not act on it —
// after its Retry-After (else 1 s), up to 10 times; a 5xx (but 501) and a
// connection error are retried only for an idempotent request, with
// exponential back-off and full jitter, bounded in count and total time, a
// 5xx's Retry-After winning over the back-off; a connection that was never
// made (refused, DNS, connect timeout) may be retried for any request, since
// nothing reached the server; a TLS verification failure is never retried.

export interface RetryPolicy {
  /** Retries of 429 answers (client-go's maxRetries). */
  readonly maxTooManyRequests: number;
  /** Retries of 5xx answers and connection errors together. */
  readonly maxRetries: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  /** No 5xx/connection retry starts later than this after the first attempt. */
  readonly maxTotalMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxTooManyRequests: 10, maxRetries: 5, initialBackoffMs: 200, maxBackoffMs: 5_000, maxTotalMs: 30_000 };

/** Retry-After when a 429 carries none (seconds). */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** What one attempt came back with. */
export type AttemptOutcome =
  | { readonly kind: 'status'; readonly status: number; readonly retryAfterSeconds: number | undefined }
  /** `sent`: the request may have reached the server; `fatal`: retrying cannot help (TLS verification). */
  | { readonly kind: 'connection'; readonly sent: boolean; readonly fatal: boolean };

export interface RetryState {
  readonly idempotent: boolean;
  /** 429 retries made so far. */
  readonly tooManyRequests: number;
  /** 5xx and connection retries made so far. */
  readonly others: number;
  /** Since the first attempt. */
  readonly elapsedMs: number;
}

export type RetryDecision = { readonly retry: false } | { readonly retry: true; readonly delayMs: number; readonly counts: 'tooManyRequests' | 'others' };

const NO: RetryDecision = { retry: false };

/** Full jitter: uniform in [0, min(max, initial·2^n)). `random` in [0, 1). */
export function backoffDelay(retriesSoFar: number, policy: RetryPolicy, random: number): number {
  const ceiling = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** Math.min(retriesSoFar, 30));
  return Math.floor(ceiling * random);
}

export function decideRetry(outcome: AttemptOutcome, state: RetryState, policy: RetryPolicy, random: number): RetryDecision {
  if (outcome.kind === 'status') {
    if (outcome.status === 429) {
      if (state.tooManyRequests >= policy.maxTooManyRequests) return NO;
      return { retry: true, delayMs: (outcome.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000, counts: 'tooManyRequests' };
    }
    if (outcome.status < 500 || outcome.status === 501 || !state.idempotent) return NO;
    if (state.others >= policy.maxRetries || state.elapsedMs >= policy.maxTotalMs) return NO;
    const delayMs = outcome.retryAfterSeconds !== undefined ? outcome.retryAfterSeconds * 1000 : backoffDelay(state.others, policy, random);
    return { retry: true, delayMs, counts: 'others' };
  }
  if (outcome.fatal || (outcome.sent && !state.idempotent)) return NO;
  if (state.others >= policy.maxRetries || state.elapsedMs >= policy.maxTotalMs) return NO;
  return { retry: true, delayMs: backoffDelay(state.others, policy, random), counts: 'others' };
}

/** Retry-After as client-go reads it: whole non-negative seconds; an HTTP-date or garbage is ignored. */
export function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return undefined;
  const n = Number(v.trim());
  return Number.isSafeInteger(n) ? n : undefined;
}
