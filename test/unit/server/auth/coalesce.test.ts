import { describe, expect, it } from 'vitest';
import { createAuthenticator, createAuthorizer } from '../../../../src/server/auth/index.js';
import { Coalescer } from '../../../../src/server/auth/coalesce.js';
import { testLogger } from '../../../helpers/test-logger.js';

/** A call that settles when told to, recording the signal it got. */
function deferred<V>() {
  let resolve!: (v: V) => void;
  const signals: AbortSignal[] = [];
  let calls = 0;
  const promise = new Promise<V>((r) => (resolve = r));
  const call = (s: AbortSignal): Promise<V> => {
    calls++;
    signals.push(s);
    return new Promise<V>((res, rej) => {
      s.addEventListener('abort', () => rej(new Error('aborted')), { once: true });
      void promise.then(res);
    });
  };
  return { call, resolve, signals, calls: () => calls };
}

describe('Coalescer', () => {
  it('concurrent runs of one key share one call; the next run after it settles calls again', async () => {
    const c = new Coalescer<number>();
    const d = deferred<number>();
    const a = c.run('k', new AbortController().signal, d.call);
    const b = c.run('k', new AbortController().signal, d.call);
    d.resolve(7);
    expect(await Promise.all([a, b])).toEqual([7, 7]);
    expect(d.calls()).toBe(1);
    expect(c.size).toBe(0);
    await c.run('k', new AbortController().signal, d.call);
    expect(d.calls()).toBe(2);
  });

  it('the shared call is aborted only when every waiter has gone', async () => {
    const c = new Coalescer<number>();
    const d = deferred<number>();
    const one = new AbortController();
    const two = new AbortController();
    const a = c.run('k', one.signal, d.call).catch((e: Error) => e.message);
    const b = c.run('k', two.signal, d.call).catch((e: Error) => e.message);
    await Promise.resolve();
    await Promise.resolve();
    one.abort();
    expect(d.signals[0]?.aborted).toBe(false);
    two.abort();
    expect(d.signals[0]?.aborted).toBe(true);
    expect(await Promise.all([a, b])).toEqual(['aborted', 'aborted']);
    expect(c.size).toBe(0);
  });
});

describe('reviews are coalesced', () => {
  it('a burst of requests with one new token makes one token review', async () => {
    const d = deferred<{ authenticated: boolean; user?: { name: string; groups: string[] } }>();
    const authn = createAuthenticator({ anonymous: false, clientCA: false, tokenReview: (_t, s) => d.call(s), cacheTtlMs: 60_000, log: testLogger() });
    const asks = Array.from({ length: 5 }, () => authn.authenticate({ clientCertificate: undefined, clientCertificateError: undefined, authorization: 'Bearer t' }, new AbortController().signal));
    d.resolve({ authenticated: true, user: { name: 'u', groups: [] } });
    const results = await Promise.all(asks);
    expect(results.every((r) => r.kind === 'user')).toBe(true);
    expect(d.calls()).toBe(1);
  });

  it('a burst of one question makes one access review', async () => {
    const d = deferred<{ allowed: boolean; reason: string }>();
    const authz = createAuthorizer({ mode: 'Webhook', accessReview: (_a, s) => d.call(s), authorizedTtlMs: 60_000, unauthorizedTtlMs: 1_000, log: testLogger() });
    const attrs = { user: { name: 'u', groups: [] }, verb: 'get', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: 'stats', name: 'n', path: '/stats' } as const;
    const asks = Array.from({ length: 5 }, () => authz.authorize(attrs, new AbortController().signal));
    d.resolve({ allowed: true, reason: '' });
    expect(await Promise.all(asks)).toEqual(Array.from({ length: 5 }, () => ({ allowed: true })));
    expect(d.calls()).toBe(1);
  });
});
