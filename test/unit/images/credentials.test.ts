import { chmodSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { authFor, configFileCandidates, imageRegistry, loadKeyring } from '../../../src/images/credentials.js';
import { CredentialPlugins, loadProviderConfig, matchesImage } from '../../../src/images/credential-plugins.js';
import { tempDir } from '../../helpers/agent-process.js';
import { testLogger } from '../../helpers/test-logger.js';

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
    expect(authFor('127.0.0.1:5002/test/busybox:v2', keyring)).toEqual({ username: 'user', password: 'pa:ss' });
    expect(authFor('busybox', keyring)).toEqual({ username: 'u', password: 'p' });
    expect(authFor('other.io/x', keyring)).toBeUndefined();
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
