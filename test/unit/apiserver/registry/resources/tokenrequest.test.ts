import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../../src/api/errors.js';
import { createTokenRequest } from '../../../../../src/apiserver/registry/resources/tokenrequest.js';
import type { TokenRequestDeps } from '../../../../../src/apiserver/registry/resources/tokenrequest.js';
import type { ApiObject } from '../../../../../src/apiserver/registry/types.js';
import { ServiceAccountTokenAuthenticator } from '../../../../../src/apiserver/serviceaccount/authenticator.js';
import { signingKey } from '../../../../../src/apiserver/serviceaccount/jwt.js';

const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const NOW = Date.UTC(2026, 0, 1);
const objects: Record<string, ApiObject> = {
  'serviceaccounts/ns/sa': { metadata: { name: 'sa', namespace: 'ns', uid: 'sa-uid' } },
  'pods/ns/p': { metadata: { name: 'p', namespace: 'ns', uid: 'pod-uid' }, spec: { serviceAccountName: 'sa' } },
};
const deps: TokenRequestDeps = {
  get: (r, ns, n) => Promise.resolve(objects[`${r}/${ns}/${n}`]),
  signer: signingKey(pair.privateKey),
  settings: { issuer: 'https://platform.default.svc', apiAudiences: ['https://platform.default.svc'], maxExpirationSeconds: 0, extendExpiration: true },
  clock: { now: () => NOW },
};
const signal = new AbortController().signal;
const podRef = { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'pod-uid' };

describe('createTokenRequest', () => {
  it('issues a pod-bound token the authenticator accepts, with the requested expiry in status', async () => {
    const { object, warnings } = await createTokenRequest(deps, { namespace: 'ns', name: 'sa' }, { spec: { expirationSeconds: 3607, boundObjectRef: podRef } }, signal);
    expect(warnings).toEqual([]);
    expect(object).toMatchObject({ apiVersion: 'authentication.platform.io/v1', kind: 'TokenRequest', metadata: { name: 'sa', namespace: 'ns' }, spec: { audiences: ['https://platform.default.svc'], expirationSeconds: 3607 }, status: { expirationTimestamp: '2026-01-01T01:00:07Z' } });
    const token = (object.status as { token: string }).token;
    const authn = new ServiceAccountTokenAuthenticator(
      { keys: [pair.publicKey], issuers: ['https://platform.default.svc'], audiences: ['https://platform.default.svc'], clock: { now: () => NOW + 3608 * 1000 } },
      { serviceAccountUid: () => Promise.resolve('sa-uid'), pod: () => Promise.resolve({ uid: 'pod-uid' }), secretUid: () => Promise.resolve(undefined) },
    );
    // Past the requested 3607 s the extended token still authenticates (warn-only window).
    expect(await authn.authenticate(token, signal)).toMatchObject({ name: 'system:serviceaccount:ns:sa', extra: { 'authentication.platform.io/pod-name': ['p'] } });
  });

  it.each<[string, { namespace: string; name: string }, Record<string, unknown>, number]>([
    ['missing account', { namespace: 'ns', name: 'nope' }, {}, 404],
    ['missing pod', { namespace: 'ns', name: 'sa' }, { boundObjectRef: { ...podRef, name: 'gone' } }, 404],
    ['stale pod uid', { namespace: 'ns', name: 'sa' }, { boundObjectRef: { ...podRef, uid: 'old' } }, 409],
    ['too short', { namespace: 'ns', name: 'sa' }, { expirationSeconds: 60 }, 422],
    ['node binding', { namespace: 'ns', name: 'sa' }, { boundObjectRef: { apiVersion: 'v1', kind: 'Node', name: 'n' } }, 400],
  ])('%s → %i', async (_n, url, spec, code) => {
    const e: unknown = await createTokenRequest(deps, url, { spec }, signal).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe(code);
  });

  it('passes the shortening warning on', async () => {
    const { warnings } = await createTokenRequest({ ...deps, settings: { ...deps.settings, maxExpirationSeconds: 3600 } }, { namespace: 'ns', name: 'sa' }, { spec: { expirationSeconds: 7200 } }, signal);
    expect(warnings).toEqual(['requested expiration of 7200 seconds shortened to 3600 seconds']);
  });
});
