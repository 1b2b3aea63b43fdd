import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ServiceAccountTokenAuthenticator, checkToken } from '../../../../src/apiserver/serviceaccount/authenticator.js';
import type { ServiceAccountLookup } from '../../../../src/apiserver/serviceaccount/authenticator.js';
import { buildClaims } from '../../../../src/apiserver/serviceaccount/claims.js';
import type { ClaimsInput } from '../../../../src/apiserver/serviceaccount/claims.js';
import { signJwt, signingKey } from '../../../../src/apiserver/serviceaccount/jwt.js';

const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const key = signingKey(pair.privateKey);
const NOW = 1_700_000_000;
const settings = { keys: [pair.publicKey], issuers: ['https://issuer'], audiences: ['api'], clock: { now: () => NOW * 1000 } };
const base: ClaimsInput = { issuer: 'https://issuer', audiences: ['api'], namespace: 'ns', serviceAccount: { name: 'sa', uid: 'sa-uid' }, pod: { name: 'p', uid: 'pod-uid' }, now: NOW - 10, expirationSeconds: 3600 };
const tok = (o: Partial<ClaimsInput> = {}): string => signJwt(buildClaims({ ...base, ...o }), key);

const lookup = (o: { sa?: string; pod?: { uid: string; deletionTimestamp?: string }; secret?: string } = {}): ServiceAccountLookup => ({
  serviceAccountUid: () => Promise.resolve('sa' in o ? o.sa : 'sa-uid'),
  pod: () => Promise.resolve('pod' in o ? o.pod : { uid: 'pod-uid' }),
  secretUid: () => Promise.resolve('secret' in o ? o.secret : 's-uid'),
});

describe('checkToken', () => {
  it.each([
    ['expired', tok({ now: NOW - 4000 }), 'service account token has expired'],
    ['wrong audience', tok({ audiences: ['other'] }), 'token audiences is invalid'],
    ['wrong issuer', tok({ issuer: 'https://else' }), 'token issuer is not accepted'],
    ['not yet valid', tok({ now: NOW + 3600 }), 'service account token is not valid yet'],
    ['foreign key', signJwt(buildClaims(base), signingKey(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey)), 'invalid signature'],
  ])('%s', (_n, token, error) => expect(checkToken(token, settings)).toEqual({ error }));
});

describe('ServiceAccountTokenAuthenticator', () => {
  const signal = new AbortController().signal;
  it('maps a valid pod-bound token to the account user', async () => {
    const user = await new ServiceAccountTokenAuthenticator(settings, lookup()).authenticate(tok(), signal);
    expect(user).toEqual({
      name: 'system:serviceaccount:ns:sa',
      uid: 'sa-uid',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'],
      extra: { 'authentication.platform.io/pod-name': ['p'], 'authentication.platform.io/pod-uid': ['pod-uid'] },
    });
  });
  it.each([
    ['account gone', lookup({ sa: undefined }), 'serviceaccounts "sa" not found'],
    ['account recreated', lookup({ sa: 'new' }), 'service account UID (new) does not match claim (sa-uid)'],
    ['pod gone', lookup({ pod: undefined }), 'pods "p" not found'],
    ['pod recreated', lookup({ pod: { uid: 'x' } }), 'pod UID (x) does not match claim (pod-uid)'],
    ['pod deleted over a minute ago', lookup({ pod: { uid: 'pod-uid', deletionTimestamp: new Date((NOW - 61) * 1000).toISOString() } }), 'service account token has been invalidated (pod deleted)'],
  ])('%s', async (_n, l, error) => {
    const a = new ServiceAccountTokenAuthenticator(settings, l);
    expect(await a.review(tok(), signal)).toEqual({ error });
    expect(await a.authenticate(tok(), signal)).toBeUndefined();
  });
  it('keeps a terminating pod\'s token valid through its grace period', async () => {
    const a = new ServiceAccountTokenAuthenticator(settings, lookup({ pod: { uid: 'pod-uid', deletionTimestamp: new Date((NOW + 30) * 1000).toISOString() } }));
    expect(await a.authenticate(tok(), signal)).toBeDefined();
  });
  it('checks a bound secret', async () => {
    const t = signJwt(buildClaims({ ...base, pod: undefined, secret: { name: 's', uid: 's-uid' } } as ClaimsInput), key);
    expect(await new ServiceAccountTokenAuthenticator(settings, lookup()).review(t, signal)).toMatchObject({ user: { name: 'system:serviceaccount:ns:sa', extra: {} } });
    expect(await new ServiceAccountTokenAuthenticator(settings, lookup({ secret: undefined })).review(t, signal)).toEqual({ error: 'secrets "s" not found' });
  });
});
