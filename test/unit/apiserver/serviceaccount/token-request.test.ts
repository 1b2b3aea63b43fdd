import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/api/errors.js';
import { boundTarget, planToken, validateTokenRequest } from '../../../../src/apiserver/serviceaccount/token-request.js';
import type { BoundObject, TokenPlan, TokenRequestBody } from '../../../../src/apiserver/serviceaccount/token-request.js';

const url = { namespace: 'ns', name: 'sa' };
const account = { namespace: 'ns', name: 'sa', uid: 'sa-uid' };
const settings = { issuer: 'https://iss', apiAudiences: ['https://platform.default.svc'], maxExpirationSeconds: 0, extendExpiration: true };
const pod: BoundObject = { kind: 'Pod', name: 'p', uid: 'pod-uid', serviceAccountName: 'sa' };
const podRef = { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'pod-uid' };

describe('validateTokenRequest', () => {
  it.each<[string, TokenRequestBody, number | undefined, string]>([
    ['empty body defaults', {}, undefined, ''],
    ['600 ok', { spec: { expirationSeconds: 600 } }, undefined, ''],
    ['599', { spec: { expirationSeconds: 599 } }, 422, 'TokenRequest.authentication.platform.io "sa" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes'],
    ['2^32 ok', { spec: { expirationSeconds: 2 ** 32 } }, undefined, ''],
    ['2^32+1', { spec: { expirationSeconds: 2 ** 32 + 1 } }, 422, 'TokenRequest.authentication.platform.io "sa" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds'],
    ['name mismatch', { metadata: { name: 'other' } }, 422, 'TokenRequest.authentication.platform.io "sa" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified'],
    ['namespace mismatch', { metadata: { namespace: 'x' } }, 422, 'TokenRequest.authentication.platform.io "sa" is invalid: metadata.namespace: Invalid value: "x": must match the service account namespace if specified'],
    ['matching names', { metadata: { name: 'sa', namespace: 'ns' } }, undefined, ''],
  ])('%s', (_n, body, code, message) => {
    const e = validateTokenRequest(body, url);
    expect(e?.code).toBe(code);
    expect(e?.message ?? '').toBe(message);
  });
});

describe('boundTarget', () => {
  it.each<[unknown, unknown]>([
    [undefined, undefined],
    [podRef, { kind: 'Pod', name: 'p' }],
    [{ apiVersion: 'v1', kind: 'Secret', name: 's' }, { kind: 'Secret', name: 's' }],
  ])('%j', (ref, want) => expect(boundTarget({ spec: { boundObjectRef: ref as never } })).toEqual(want));
  it('refuses other kinds with 400', () => {
    const e = boundTarget({ spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Node', name: 'n' } } });
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe(400);
    expect((e as ApiError).message).toBe('cannot bind token to object of type /v1, Kind=Node');
  });
});

describe('planToken', () => {
  const plan = (body: TokenRequestBody, bound: BoundObject | undefined = undefined, s = settings): TokenPlan => {
    const p = planToken(body, account, bound, s);
    if (p instanceof ApiError) throw p;
    return p;
  };
  it('defaults audiences to the API audiences and expiration to 3600', () => {
    expect(plan({})).toEqual({ claims: { issuer: 'https://iss', audiences: ['https://platform.default.svc'], namespace: 'ns', serviceAccount: { name: 'sa', uid: 'sa-uid' }, expirationSeconds: 3600 }, statusExpirationSeconds: 3600, warnings: [] });
  });
  it('extends a pod-bound 3607 s token for the API audiences to a year, status says 3607', () => {
    const p = plan({ spec: { expirationSeconds: 3607, boundObjectRef: podRef } }, pod);
    expect(p.claims).toMatchObject({ expirationSeconds: 365 * 86400, warnAfterSeconds: 3607, pod: { name: 'p', uid: 'pod-uid' } });
    expect(p.statusExpirationSeconds).toBe(3607);
  });
  it.each<[string, TokenRequestBody, BoundObject | undefined, typeof settings]>([
    ['not bound', { spec: { expirationSeconds: 3607 } }, undefined, settings],
    ['other audience', { spec: { expirationSeconds: 3607, audiences: ['vault'], boundObjectRef: podRef } }, pod, settings],
    ['extension off', { spec: { expirationSeconds: 3607, boundObjectRef: podRef } }, pod, { ...settings, extendExpiration: false }],
  ])('no extension when %s', (_n, body, bound, s) => expect(plan(body, bound, s).claims.expirationSeconds).toBe(3607));
  it('shortens to the maximum with a warning', () => {
    const p = plan({ spec: { expirationSeconds: 86400 } }, undefined, { ...settings, maxExpirationSeconds: 7200 });
    expect(p.claims.expirationSeconds).toBe(7200);
    expect(p.statusExpirationSeconds).toBe(7200);
    expect(p.warnings).toEqual(['requested expiration of 86400 seconds shortened to 7200 seconds']);
  });
  it('refuses a pod running as another account (400) and a stale uid (409)', () => {
    const other = planToken({ spec: { boundObjectRef: podRef } }, account, { ...pod, serviceAccountName: 'default' }, settings) as ApiError;
    expect([other.code, other.message]).toEqual([400, 'cannot bind token for serviceaccount "sa" to pod running with different serviceaccount name.']);
    const stale = planToken({ spec: { boundObjectRef: { ...podRef, uid: 'old' } } }, account, pod, settings) as ApiError;
    expect([stale.code, stale.message]).toEqual([409, 'Operation cannot be fulfilled on Pod "p": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated']);
  });
});
