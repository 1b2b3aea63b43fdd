// The token manager over a fake transport: one TokenRequest per pod, account,
// audience and lifetime; the cached token reused until 80 % of its lifetime,
// then renewed; an unexpired token still served when the renewal fails; a
// pod's tokens forgotten when it goes.
import { describe, expect, it } from 'vitest';
import type { ApiClient, TransportRequest } from '../../../src/client/index.js';
import { TokenManager } from '../../../src/api-objects/tokens.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function fakeClient(): { client: ApiClient; requests: Array<{ path: string; body: unknown }>; fail: { next: boolean }; clock: { now: number } } {
  const requests: Array<{ path: string; body: unknown }> = [];
  const fail = { next: false };
  const clock = { now: T0 };
  const request = (req: TransportRequest) => {
    requests.push({ path: req.path, body: JSON.parse(String(req.body)) });
    if (fail.next) return Promise.reject(new Error('connection refused'));
    const exp = (JSON.parse(String(req.body)) as { spec: { expirationSeconds: number } }).spec.expirationSeconds;
    const body = { spec: { expirationSeconds: exp }, status: { token: `t${requests.length}`, expirationTimestamp: new Date(clock.now + exp * 1000).toISOString() } };
    return Promise.resolve({ status: 201, headers: {}, body: Buffer.from(JSON.stringify(body)) });
  };
  return { client: { transport: { request } } as unknown as ApiClient, requests, fail, clock };
}

const REQ = { namespace: 'ns', serviceAccount: 'sa', audience: 'vault', expirationSeconds: 1000, pod: { name: 'p', uid: 'u1' } };
const signal = new AbortController().signal;

describe('TokenManager', () => {
  it('requests, reuses, renews past 80 %, serves the old token while renewal fails, forgets a pod', async () => {
    const f = fakeClient();
    const m = new TokenManager(f.client, () => f.clock.now, () => 0);
    expect((await m.token(REQ, signal)).token).toBe('t1');
    expect(f.requests[0]!.path).toBe('/api/v1/namespaces/ns/serviceaccounts/sa/token');
    expect(f.requests[0]!.body).toMatchObject({ spec: { audiences: ['vault'], expirationSeconds: 1000, boundObjectRef: { kind: 'Pod', name: 'p', uid: 'u1' } } });
    f.clock.now = T0 + 790_000;
    expect((await m.token(REQ, signal)).token).toBe('t1');
    expect((await m.token({ ...REQ, audience: 'other' }, signal)).token).toBe('t2');
    f.clock.now = T0 + 801_000;
    f.fail.next = true;
    expect((await m.token(REQ, signal)).token).toBe('t1');
    f.fail.next = false;
    expect((await m.token(REQ, signal)).token).toBe('t4');
    m.forgetPod('u1');
    expect((await m.token(REQ, signal)).token).toBe('t5');
    f.clock.now = T0 + 10_000_000;
    f.fail.next = true;
    await expect(m.token(REQ, signal)).rejects.toThrow('connection refused');
  });
});
