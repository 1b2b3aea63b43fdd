import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, backoffDelay, decideRetry, parseRetryAfter, type AttemptOutcome, type RetryState } from '../../../../src/client/transport/retry.js';

const P = DEFAULT_RETRY_POLICY;
const status = (s: number, retryAfterSeconds?: number): AttemptOutcome => ({ kind: 'status', status: s, retryAfterSeconds });
const conn = (sent: boolean, fatal = false): AttemptOutcome => ({ kind: 'connection', sent, fatal });
const st = (o: Partial<RetryState> = {}): RetryState => ({ idempotent: true, tooManyRequests: 0, others: 0, elapsedMs: 0, ...o });

describe('decideRetry', () => {
  it.each<[string, AttemptOutcome, RetryState, ReturnType<typeof decideRetry>]>([
    ['429 with Retry-After, GET', status(429, 3), st(), { retry: true, delayMs: 3000, counts: 'tooManyRequests' }],
    ['429 without Retry-After waits 1 s', status(429), st(), { retry: true, delayMs: 1000, counts: 'tooManyRequests' }],
    ['429 for a POST too', status(429, 2), st({ idempotent: false }), { retry: true, delayMs: 2000, counts: 'tooManyRequests' }],
    ['429 after 10 retries: no more', status(429, 1), st({ tooManyRequests: 10 }), { retry: false }],
    ['429 after 9 retries: one more', status(429, 0), st({ tooManyRequests: 9 }), { retry: true, delayMs: 0, counts: 'tooManyRequests' }],
    ['500 GET: back-off', status(500), st(), { retry: true, delayMs: 100, counts: 'others' }],
    ['503 GET, third retry: wider window', status(503), st({ others: 3 }), { retry: true, delayMs: 800, counts: 'others' }],
    ['503 GET with Retry-After: it wins', status(503, 2), st({ others: 3 }), { retry: true, delayMs: 2000, counts: 'others' }],
    ['504 GET', status(504), st(), { retry: true, delayMs: 100, counts: 'others' }],
    ['500 POST: never', status(500), st({ idempotent: false }), { retry: false }],
    ['503 POST with Retry-After: never', status(503, 1), st({ idempotent: false }), { retry: false }],
    ['501: never', status(501), st(), { retry: false }],
    ['404: never', status(404), st(), { retry: false }],
    ['409: never', status(409), st(), { retry: false }],
    ['410: never', status(410), st(), { retry: false }],
    ['500 after maxRetries', status(500), st({ others: 5 }), { retry: false }],
    ['500 past the total time', status(500), st({ elapsedMs: 30_000 }), { retry: false }],
    ['reset GET', conn(true), st(), { retry: true, delayMs: 100, counts: 'others' }],
    ['reset POST: may have reached the server', conn(true), st({ idempotent: false }), { retry: false }],
    ['refused POST: never sent', conn(false), st({ idempotent: false }), { retry: true, delayMs: 100, counts: 'others' }],
    ['TLS verification: never', conn(false, true), st(), { retry: false }],
    ['refused after maxRetries', conn(false), st({ others: 5 }), { retry: false }],
    ['5xx and connection retries share the count', conn(false), st({ others: 4, tooManyRequests: 9 }), { retry: true, delayMs: 1600, counts: 'others' }],
  ])('%s', (_name, outcome, state, expected) => {
    expect(decideRetry(outcome, state, P, 0.5)).toEqual(expected);
  });
});

describe('backoffDelay (full jitter)', () => {
  it.each([
    [0, 0, 0],
    [0, 0.999, 199],
    [1, 0.5, 200],
    [4, 0.999, 3196],
    [5, 0.999, 4995],
    [50, 0.5, 2500],
  ])('retry %d, random %d → %d ms', (n, r, ms) => {
    expect(backoffDelay(n, P, r)).toBe(ms);
  });
  it('the longest possible schedule is bounded', () => {
    let total = 0;
    for (let n = 0; n < P.maxRetries; n++) total += backoffDelay(n, P, 0.999999);
    expect(total).toBeLessThan(P.maxTotalMs);
  });
});

describe('parseRetryAfter', () => {
  it.each<[string | string[] | undefined, number | undefined]>([
    ['1', 1],
    [' 30 ', 30],
    ['0', 0],
    [['5', '7'], 5],
    [undefined, undefined],
    ['', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['Wed, 21 Oct 2015 07:28:00 GMT', undefined],
    ['99999999999999999999', undefined],
  ])('%j → %j', (v, n) => {
    expect(parseRetryAfter(v)).toBe(n);
  });
});
