import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPlatformConfig } from '../../../../src/client/config/index.js';
import { ClientConfigError } from '../../../../src/client/errors.js';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function conf(cluster: string, user: string): string {
  return `apiVersion: v1\nkind: Config\nclusters:\n- name: k\n  cluster:\n${cluster}\nusers:\n- name: u\n  user:\n${user}\ncontexts:\n- name: c\n  context:\n    cluster: k\n    user: u\ncurrent-context: c\n`;
}

describe('loadPlatformConfig reads the file and every file it names', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'client-config-'));
    await mkdir(join(dir, 'pki'));
    await writeFile(join(dir, 'pki/ca.crt'), CERT);
    await writeFile(join(dir, 'pki/client.crt'), CERT);
    await writeFile(join(dir, 'pki/client.key'), KEY);
    await writeFile(join(dir, 'token'), 'tok-1\n');
    await writeFile(join(dir, 'empty-token'), '\n');
    await writeFile(join(dir, 'not-a-cert'), 'hello');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const write = async (name: string, text: string): Promise<string> => {
    const p = join(dir, name);
    await writeFile(p, text);
    return p;
  };

  it('resolves relative paths against the file and reads them', async () => {
    const f = await write('ok.conf', conf('    server: https://h:1\n    certificate-authority: pki/ca.crt', '    client-certificate: pki/client.crt\n    client-key: pki/client.key\n    tokenFile: token'));
    const c = await loadPlatformConfig(f);
    expect(c).toEqual({
      server: 'https://h:1',
      ca: CERT,
      insecureSkipTlsVerify: false,
      tlsServerName: undefined,
      clientCert: { cert: CERT, key: KEY },
      token: undefined,
      tokenFile: join(dir, 'token'),
      namespace: 'default',
      source: { file: f, context: 'c' },
    });
  });

  it('inline data needs no file', async () => {
    const f = await write('inline.conf', conf(`    server: https://h:1\n    certificate-authority-data: ${b64(CERT)}`, `    client-certificate-data: ${b64(CERT)}\n    client-key-data: ${b64(KEY)}`));
    expect(await loadPlatformConfig(f)).toMatchObject({ ca: CERT, clientCert: { cert: CERT, key: KEY } });
  });

  it.each([
    ['a missing file', 'nope.conf', undefined, '', /cannot read the platformconfig: no such file/],
    ['a directory', 'pki', undefined, '', /cannot read the platformconfig: is a directory/],
    ['a missing CA file', 'ca-missing.conf', conf('    server: https://h:1\n    certificate-authority: pki/nope.crt', '    token: t'), 'clusters[0].cluster.certificate-authority', /cannot read .*pki\/nope.crt: no such file/],
    ['a CA file without a certificate', 'ca-bad.conf', conf('    server: https://h:1\n    certificate-authority: not-a-cert', '    token: t'), 'clusters[0].cluster.certificate-authority', /holds no PEM CERTIFICATE block/],
    ['a key file without a key', 'key-bad.conf', conf('    server: https://h:1', '    client-certificate: pki/client.crt\n    client-key: pki/client.crt'), 'users[0].user.client-key', /holds no PEM PRIVATE KEY block/],
    ['a missing token file', 'tok-missing.conf', conf('    server: https://h:1', '    tokenFile: nope'), 'users[0].user.tokenFile', /cannot read .*nope: no such file/],
    ['an empty token file', 'tok-empty.conf', conf('    server: https://h:1', '    tokenFile: empty-token'), 'users[0].user.tokenFile', /is empty/],
  ])('%s is a ClientConfigError naming the field', async (_n, name, text, field, message) => {
    const f = text === undefined ? join(dir, name) : await write(name, text);
    const err = await loadPlatformConfig(f).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientConfigError);
    expect((err as ClientConfigError).file).toBe(f);
    expect((err as ClientConfigError).field).toBe(field);
    expect((err as Error).message).toMatch(message);
  });

  it('an unreadable file (permission) says so', async () => {
    const err = await loadPlatformConfig('/x.conf', { readText: () => Promise.reject(Object.assign(new Error('EACCES'), { code: 'EACCES' })) }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('/x.conf: cannot read the platformconfig: permission denied');
  });
});
