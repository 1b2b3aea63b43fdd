import type { PeerCertificate } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { bearerToken, createAuthenticator, type TokenReviewer } from '../../../../src/server/auth/index.js';
import type { AuthnRequest, AuthnResult } from '../../../../src/server/types.js';
import { testLogger } from '../../../helpers/test-logger.js';

const signal = new AbortController().signal;
const VALID = { valid_from: 'Jan  1 00:00:00 2020 GMT', valid_to: 'Jan  1 00:00:00 2100 GMT' };
const cert = (cn: string, o?: string | string[], dates: { valid_from: string; valid_to: string } = VALID): PeerCertificate => ({ subject: { CN: cn, ...(o === undefined ? {} : { O: o }) }, ...dates }) as unknown as PeerCertificate;
const req = (p: Partial<AuthnRequest>): AuthnRequest => ({ clientCertificate: undefined, clientCertificateError: undefined, authorization: undefined, ...p });

/** Knows one good token; counts its calls. */
function reviewer(): TokenReviewer & { calls: number } {
  const f = Object.assign(
    async (token: string) => {
      f.calls++;
      if (token === 'down') throw new Error('connection refused');
      return token === 'good' ? { authenticated: true, user: { name: 'alice', uid: 'u1', groups: ['devs'] } } : { authenticated: false, error: 'unknown token' };
    },
    { calls: 0 },
  );
  return f;
}

const kindOf = (r: AuthnResult): string => (r.kind === 'user' ? `${r.via}:${r.user.name}:${r.user.groups.join(',')}` : 'unauthorized');

describe('createAuthenticator: who sent the request', () => {
  it.each<[string, { anonymous: boolean; clientCA: boolean; token: boolean }, Partial<AuthnRequest>, string]>([
    ['verified certificate → CN and O', { anonymous: false, clientCA: true, token: true }, { clientCertificate: cert('jane', ['ops', 'dev']) }, 'x509:jane:ops,dev,system:authenticated'],
    ['certificate with one O', { anonymous: false, clientCA: true, token: false }, { clientCertificate: cert('jane', 'ops') }, 'x509:jane:ops,system:authenticated'],
    ['certificate wins over a token', { anonymous: false, clientCA: true, token: true }, { clientCertificate: cert('jane'), authorization: 'Bearer good' }, 'x509:jane:system:authenticated'],
    ['expired certificate (a keep-alive connection outlived it) → 401 even with a good token', { anonymous: true, clientCA: true, token: true }, { clientCertificate: cert('jane', 'ops', { valid_from: 'Jan  1 00:00:00 2020 GMT', valid_to: 'Jan  1 00:00:00 2021 GMT' }), authorization: 'Bearer good' }, 'unauthorized'],
    ['certificate not valid yet → 401', { anonymous: true, clientCA: true, token: false }, { clientCertificate: cert('jane', 'ops', { valid_from: 'Jan  1 00:00:00 2099 GMT', valid_to: 'Jan  1 00:00:00 2100 GMT' }) }, 'unauthorized'],
    ['unverified certificate → 401 even with a good token', { anonymous: true, clientCA: true, token: true }, { clientCertificateError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', authorization: 'Bearer good' }, 'unauthorized'],
    ['certificate without CN → next method', { anonymous: true, clientCA: true, token: false }, { clientCertificate: cert('') }, 'anonymous:system:anonymous:system:unauthenticated'],
    ['certificates ignored without a client CA', { anonymous: true, clientCA: false, token: false }, { clientCertificate: cert('jane') }, 'anonymous:system:anonymous:system:unauthenticated'],
    ['good token', { anonymous: false, clientCA: true, token: true }, { authorization: 'Bearer good' }, 'token:alice:devs,system:authenticated'],
    ['scheme is case-insensitive', { anonymous: false, clientCA: false, token: true }, { authorization: 'bearer good' }, 'token:alice:devs,system:authenticated'],
    ['refused token → 401 even with anonymous on', { anonymous: true, clientCA: false, token: true }, { authorization: 'Bearer bad' }, 'unauthorized'],
    ['empty bearer token → 401', { anonymous: true, clientCA: false, token: true }, { authorization: 'Bearer  abc' }, 'unauthorized'],
    ['a bare scheme is no token (upstream trims first)', { anonymous: true, clientCA: false, token: true }, { authorization: 'Bearer ' }, 'anonymous:system:anonymous:system:unauthenticated'],
    ['review fails → 401', { anonymous: true, clientCA: false, token: true }, { authorization: 'Bearer down' }, 'unauthorized'],
    ['another scheme is not a token', { anonymous: true, clientCA: false, token: true }, { authorization: 'Basic Zm9vOmJhcg==' }, 'anonymous:system:anonymous:system:unauthenticated'],
    ['token ignored without the webhook', { anonymous: true, clientCA: false, token: false }, { authorization: 'Bearer good' }, 'anonymous:system:anonymous:system:unauthenticated'],
    ['nothing, anonymous on', { anonymous: true, clientCA: true, token: true }, {}, 'anonymous:system:anonymous:system:unauthenticated'],
    ['nothing, anonymous off → 401', { anonymous: false, clientCA: true, token: true }, {}, 'unauthorized'],
  ])('%s', async (_name, opts, r, want) => {
    const a = createAuthenticator({ anonymous: opts.anonymous, clientCA: opts.clientCA, tokenReview: opts.token ? reviewer() : undefined, cacheTtlMs: 60_000, log: testLogger() });
    expect(kindOf(await a.authenticate(req(r), signal))).toBe(want);
  });
});

describe('bearerToken', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['Bearer abc', 'abc'],
    ['  Bearer abc  ', 'abc'],
    ['BEARER abc', 'abc'],
    ['Bearer', undefined],
    ['Bearer  abc', ''],
    ['Token abc', undefined],
  ])('%j → %j', (h, want) => {
    expect(bearerToken(h)).toBe(want);
  });
});

describe('token review cache', () => {
  function setup(ttl = 120_000) {
    let now = 1_000_000;
    const r = reviewer();
    const a = createAuthenticator({ anonymous: false, clientCA: false, tokenReview: r, cacheTtlMs: ttl, log: testLogger(), now: () => now });
    return { r, a, advance: (ms: number) => (now += ms) };
  }
  const ask = (a: ReturnType<typeof createAuthenticator>, token: string) => a.authenticate(req({ authorization: `Bearer ${token}` }), signal).then(kindOf);

  it('caches an accepted answer for the TTL, then asks again', async () => {
    const { r, a, advance } = setup();
    expect(await ask(a, 'good')).toMatch(/^token:alice/);
    expect(await ask(a, 'good')).toMatch(/^token:alice/);
    expect(r.calls).toBe(1);
    advance(119_999);
    await ask(a, 'good');
    expect(r.calls).toBe(1);
    advance(1);
    await ask(a, 'good');
    expect(r.calls).toBe(2);
  });

  it('caches a refusal too', async () => {
    const { r, a } = setup();
    expect(await ask(a, 'bad')).toBe('unauthorized');
    expect(await ask(a, 'bad')).toBe('unauthorized');
    expect(r.calls).toBe(1);
  });

  it('does not cache a failed review', async () => {
    const { r, a } = setup();
    await ask(a, 'down');
    await ask(a, 'down');
    expect(r.calls).toBe(2);
  });

  it('a zero TTL caches nothing', async () => {
    const { r, a } = setup(0);
    await ask(a, 'good');
    await ask(a, 'good');
    expect(r.calls).toBe(2);
  });

  it('keys by token: distinct tokens are distinct answers', async () => {
    const { r, a } = setup();
    expect(await ask(a, 'good')).toMatch(/^token:/);
    expect(await ask(a, 'bad')).toBe('unauthorized');
    expect(r.calls).toBe(2);
  });
});
