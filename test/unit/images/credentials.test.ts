import { chmodSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { authsFor, configFileCandidates, credentialLookup, imageRegistry, loadKeyring, matchesImage, registryKey } from '../../../src/images/credentials.js';
import { CredentialPlugins, loadProviderConfig } from '../../../src/images/credential-plugins.js';
import { tempDir } from '../../helpers/agent-process.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('docker config credentials', () => {
  it.each([
    ['busybox', 'docker.io'],
    ['library/busybox:1', 'docker.io'],
    ['127.0.0.1:5002/test/busybox:v2', '127.0.0.1:5002'],
    ['localhost/busybox', 'localhost'],
    ['registry.example.com/a/b@sha256:00', 'registry.example.com'],
  ])('registry of %s is %s', (image, reg) => expect(imageRegistry(image)).toBe(reg));

  it('finds the first config file in the kubelet order and matches by registry', async () => {
    const root = `${tmp.dir}/root`;
    tmp.write('root/config.json', JSON.stringify({ auths: { 'http://127.0.0.1:5002': { auth: Buffer.from('user:pa:ss').toString('base64') }, 'index.docker.io': { username: 'u', password: 'p' } } }));
    tmp.write('home/.docker/config.json', JSON.stringify({ auths: { 'other.io': { username: 'x', password: 'y' } } }));
    const { keyring, file } = await loadKeyring(configFileCandidates(root, `${tmp.dir}/cwd`, `${tmp.dir}/home`));
    expect(file).toBe(`${root}/config.json`);
    expect(authsFor('127.0.0.1:5002/test/busybox:v2', keyring)).toEqual([{ username: 'user', password: 'pa:ss' }]);
    expect(authsFor('busybox', keyring)).toEqual([{ username: 'u', password: 'p' }]);
    expect(authsFor('other.io/x', keyring)).toEqual([]);
  });

  it('passes over a file that does not parse, saying why, and uses the next one', async () => {
    tmp.write('bad/root/config.json', '{"auths": {');
    tmp.write('bad/cwd/config.json', JSON.stringify({ auths: [] }));
    tmp.write('bad/home/.docker/config.json', JSON.stringify({ auths: { 'reg.io': { username: 'h', password: 'p' } } }));
    const got = await loadKeyring(configFileCandidates(`${tmp.dir}/bad/root`, `${tmp.dir}/bad/cwd`, `${tmp.dir}/bad/home`));
    expect(got.file).toBe(`${tmp.dir}/bad/home/.docker/config.json`);
    expect(got.skipped.map((s) => s.file)).toEqual([`${tmp.dir}/bad/root/config.json`, `${tmp.dir}/bad/cwd/config.json`]);
    expect(got.skipped[0]!.reason).toMatch(/JSON/);
    expect(got.skipped[1]!.reason).toBe('"auths" is not an object');
    expect(authsFor('reg.io/app', got.keyring)).toEqual([{ username: 'h', password: 'p' }]);
  });

  it('looks up docker config credentials first, then the plugin, and reports a bad file once', async () => {
    tmp.write('lookup/root/config.json', '{not json');
    tmp.write('lookup/home/.docker/config.json', JSON.stringify({ auths: { 'reg.io': { username: 'file', password: 'p' } } }));
    const records: LogRecord[] = [];
    const plugin = { lookup: async (image: string) => (image.startsWith('reg.io/') ? { username: 'plugin', password: 'p' } : undefined) };
    const lookup = credentialLookup(configFileCandidates(`${tmp.dir}/lookup/root`, `${tmp.dir}/lookup/cwd`, `${tmp.dir}/lookup/home`), plugin, testLogger(records));
    expect((await lookup('reg.io/app:1')).map((a) => a.username)).toEqual(['file', 'plugin']);
    expect(await lookup('other.io/app:1')).toEqual([]);
    expect(records.filter((r) => r.level === 'warn').map((r) => r.fields['file'])).toEqual([`${tmp.dir}/lookup/root/config.json`]);
  });

  it.each([
    ['https://127.0.0.1:5002/v2/', '127.0.0.1:5002'],
    ['http://reg.io/v1/', 'reg.io'],
    ['reg.io/team/', 'reg.io/team'],
    ['https://index.docker.io/v1/', 'docker.io'],
    ['reg.io/v2team', 'reg.io/v2team'],
  ])('keyring key of %s is %s', (key, want) => expect(registryKey(key)).toBe(want));

  it('matches keys as the kubelet keyring does: globs, ports, path prefixes, most specific first', () => {
    const keyring = new Map([
      ['*.reg.io', { username: 'glob', password: 'p' }],
      ['eu.reg.io/team', { username: 'team', password: 'p' }],
      ['eu.reg.io', { username: 'host', password: 'p' }],
      ['eu.reg.io:5000', { username: 'port', password: 'p' }],
    ]);
    expect(authsFor('eu.reg.io/team/app:1', keyring).map((a) => a.username)).toEqual(['team', 'host', 'glob']);
    expect(authsFor('eu.reg.io/other/app:1', keyring).map((a) => a.username)).toEqual(['host', 'glob']);
    expect(authsFor('eu.reg.io:5000/app', keyring).map((a) => a.username)).toEqual(['port']);
    expect(authsFor('reg.io/app', keyring)).toEqual([]);
  });
});

describe('credential provider plugins', () => {
  it.each([
    ['*.registry.io', 'eu.registry.io/app:1', true],
    ['*.registry.io', 'registry.io/app:1', false],
    ['registry.io:5000', 'registry.io:5000/x', true],
    ['registry.io:5000', 'registry.io/x', false],
    ['registry.io/team', 'registry.io/team/app:1', true],
    ['registry.io/team', 'registry.io/other/app:1', false],
    ['https://127.0.0.1:5002', '127.0.0.1:5002/test/busybox:v2', true],
  ])('%s matches %s: %s', (pattern, image, want) => expect(matchesImage(pattern, image)).toBe(want));

  it('runs the plugin with the request on stdin and caches its answer', async () => {
    const count = `${tmp.dir}/calls`;
    const plugin = tmp.write('bin/fake-creds', `#!/bin/sh\necho x >> ${count}\nread req\necho "$req" | grep -q '"image":"127.0.0.1:5002/test/app:1"' || exit 3\necho '{"apiVersion":"credentialprovider.agent.platform.io/v1","kind":"CredentialProviderResponse","cacheKeyType":"Registry","cacheDuration":"1m","auth":{"127.0.0.1:5002":{"username":"bob","password":"secret"}}}'\n`);
    chmodSync(plugin, 0o755);
    const cfg = tmp.write('creds.yaml', 'apiVersion: agent.config.platform.io/v1\nkind: CredentialProviderConfig\nproviders:\n  - name: fake-creds\n    matchImages: ["127.0.0.1:5002"]\n    defaultCacheDuration: 10m\n    apiVersion: credentialprovider.agent.platform.io/v1\n');
    const plugins = new CredentialPlugins(await loadProviderConfig(cfg), `${tmp.dir}/bin`, testLogger());
    expect(await plugins.lookup('127.0.0.1:5002/test/app:1')).toEqual({ username: 'bob', password: 'secret' });
    expect(await plugins.lookup('127.0.0.1:5002/test/other:2')).toEqual({ username: 'bob', password: 'secret' });
    expect(await plugins.lookup('docker.io/library/busybox')).toBeUndefined();
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(count, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('rejects a config naming the plugin API wrongly', async () => {
    const cfg = tmp.write('bad.yaml', 'apiVersion: agent.config.platform.io/v1\nkind: CredentialProviderConfig\nproviders:\n  - name: x\n    matchImages: ["a.io"]\n    defaultCacheDuration: 1m\n    apiVersion: credentialprovider.kubelet.k8s.io/v1\n');
    await expect(loadProviderConfig(cfg)).rejects.toThrow('providers[0].apiVersion: must be "credentialprovider.agent.platform.io/v1"');
  });
});
