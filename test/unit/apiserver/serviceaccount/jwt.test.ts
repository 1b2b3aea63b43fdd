import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildClaims, parseClaims } from '../../../../src/apiserver/serviceaccount/claims.js';
import { decodeJwt, signJwt, signingKey, verifyJwt } from '../../../../src/apiserver/serviceaccount/jwt.js';
import { loadServiceAccountKeys, publicKeysFromPem } from '../../../../src/apiserver/serviceaccount/keys.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const otherEc = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

describe('JWT', () => {
  const cases = [
    ['RS256', rsa],
    ['ES256', ec],
  ] as const;
  it.each(cases)('%s round trip', (alg, pair) => {
    const key = signingKey(pair.privateKey);
    expect(key.alg).toBe(alg);
    const token = signJwt({ sub: 'x', n: 1 }, key);
    const v = verifyJwt(token, [otherEc.publicKey, pair.publicKey]);
    expect(v).toMatchObject({ ok: true, header: { alg, kid: key.kid }, claims: { sub: 'x', n: 1 } });
  });

  it('rejects a tampered payload, a wrong key, alg none and garbage', () => {
    const key = signingKey(ec.privateKey);
    const token = signJwt({ sub: 'x' }, key);
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'y' })).toString('base64url')}.${s}`;
    expect(verifyJwt(forged, [ec.publicKey])).toEqual({ ok: false, error: 'invalid signature' });
    expect(verifyJwt(token, [otherEc.publicKey, rsa.publicKey])).toEqual({ ok: false, error: 'invalid signature' });
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.`;
    expect(verifyJwt(none, [ec.publicKey])).toEqual({ ok: false, error: 'unsupported signing algorithm "none"' });
    expect(decodeJwt('abc')).toEqual({ ok: false, error: 'not a compact JWS' });
    expect(decodeJwt('a.b.c')).toEqual({ ok: false, error: 'malformed JWS' });
  });

  it('rejects unsupported key types', () => {
    expect(() => signingKey(generateKeyPairSync('ed25519').privateKey)).toThrow(/not supported/);
  });
});

describe('claims', () => {
  it('writes and reads back upstream-shaped claims', () => {
    const c = buildClaims({ issuer: 'https://platform.default.svc', audiences: ['api'], namespace: 'ns', serviceAccount: { name: 'sa', uid: 'u1' }, pod: { name: 'p', uid: 'u2' }, now: 1000, expirationSeconds: 3600, warnAfterSeconds: 3607 });
    expect(c).toEqual({ aud: ['api'], exp: 4600, iat: 1000, nbf: 1000, iss: 'https://platform.default.svc', sub: 'system:serviceaccount:ns:sa', 'platform.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'u1' }, pod: { name: 'p', uid: 'u2' }, warnafter: 4607 } });
    expect(parseClaims(c)).toMatchObject({ namespace: 'ns', serviceAccount: { name: 'sa', uid: 'u1' }, pod: { name: 'p', uid: 'u2' }, exp: 4600 });
  });
  it.each([
    [{ exp: 1, 'platform.io': {} }, 'token has no issuer'],
    [{ iss: 'i', 'platform.io': {} }, 'token has no expiration'],
    [{ iss: 'i', exp: 1 }, 'token lacks the service account claims'],
    [{ iss: 'i', exp: 1, sub: 'system:serviceaccount:ns:other', 'platform.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'u' } } }, 'token subject does not match its service account'],
  ])('%j → %s', (claims, error) => expect(parseClaims(claims)).toEqual({ error }));
});

describe('keys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sa-keys-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads a signing key and extra verification keys, or generates one', async () => {
    const signing = join(dir, 'sa.key');
    writeFileSync(signing, rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const pub = join(dir, 'sa.pub');
    writeFileSync(pub, `${String(otherEc.publicKey.export({ type: 'spki', format: 'pem' }))}${String(ec.privateKey.export({ type: 'sec1', format: 'pem' }))}`);
    const keys = await loadServiceAccountKeys({ signingKeyFile: signing, keyFiles: [pub] });
    expect(keys.generated).toBe(false);
    expect(keys.signing.alg).toBe('RS256');
    expect(keys.verifying).toHaveLength(3);
    const gen = await loadServiceAccountKeys({});
    expect(gen.generated).toBe(true);
    expect(gen.signing.alg).toBe('ES256');
  });

  it('names the file it cannot use', async () => {
    const bad = join(dir, 'bad.pem');
    writeFileSync(bad, 'nothing here');
    expect(() => publicKeysFromPem('nothing', bad)).toThrow(`${bad}: no public or private key found`);
    await expect(loadServiceAccountKeys({ signingKeyFile: bad })).rejects.toThrow(`${bad}: cannot load the service account signing key`);
  });
});
