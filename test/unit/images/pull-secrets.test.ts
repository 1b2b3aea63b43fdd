// A pod's imagePullSecrets as a keyring: dockerconfigjson and dockercfg
// secrets by type, other types and bad content ignored, the first secret
// winning a registry, and the pod's credentials tried before the node's.
import { describe, expect, it } from 'vitest';
import type { SecretData } from '../../../src/api-objects/index.js';
import { authsFor } from '../../../src/images/credentials.js';
import { pullSecretsKeyring } from '../../../src/images/pull-secrets.js';

const s = (type: string, key: string, json: unknown): SecretData => ({ type, data: { [key]: new Uint8Array(Buffer.from(typeof json === 'string' ? json : JSON.stringify(json))) } });

describe('pullSecretsKeyring', () => {
  it.each<[string, SecretData[], Record<string, unknown>]>([
    ['dockerconfigjson', [s('platform.io/dockerconfigjson', '.dockerconfigjson', { auths: { 'https://reg.io/v2/': { username: 'u', password: 'p' } } })], { 'reg.io': { username: 'u', password: 'p' } }],
    ['dockercfg', [s('platform.io/dockercfg', '.dockercfg', { 'reg.io:5000': { auth: 'dTpw' } })], { 'reg.io:5000': { auth: 'dTpw' } }],
    ['a type that does not match its key', [s('Opaque', '.dockerconfigjson', { auths: { 'reg.io': {} } })], {}],
    ['content that does not parse', [s('platform.io/dockerconfigjson', '.dockerconfigjson', '{nope')], {}],
    [
      'the first secret wins a registry',
      [s('platform.io/dockerconfigjson', '.dockerconfigjson', { auths: { 'reg.io': { username: 'first' } } }), s('platform.io/dockerconfigjson', '.dockerconfigjson', { auths: { 'reg.io': { username: 'second' }, 'other.io': { username: 'o' } } })],
      { 'reg.io': { username: 'first' }, 'other.io': { username: 'o' } },
    ],
  ])('%s', (_n, secrets, want) => expect(Object.fromEntries(pullSecretsKeyring(secrets))).toEqual(want));

  it('gives CRI credentials for matching images', () => {
    const k = pullSecretsKeyring([s('platform.io/dockerconfigjson', '.dockerconfigjson', { auths: { 'reg.io': { auth: Buffer.from('u:p').toString('base64') } } })]);
    expect(authsFor('reg.io/app:1', k)).toEqual([{ username: 'u', password: 'p' }]);
    expect(authsFor('other.io/app:1', k)).toEqual([]);
  });
});
