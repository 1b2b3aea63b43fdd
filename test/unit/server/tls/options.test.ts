import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPair, issueCertificate } from '../../../../src/pki/x509.js';
import { mainTlsOptions, tlsVersionAndCiphers } from '../../../../src/server/tls/index.js';

describe('tlsVersionAndCiphers', () => {
  it.each<[string, string[], string, string | undefined]>([
    ['', [], 'TLSv1.2', undefined],
    ['VersionTLS13', [], 'TLSv1.3', undefined],
    ['VersionTLS12', ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'], 'TLSv1.2', 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256'],
  ])('%j %j → %s', (v, suites, min, ciphers) => {
    const { options } = tlsVersionAndCiphers({ minVersion: v, cipherSuites: suites });
    expect(options.minVersion).toBe(min);
    expect(options.ciphers).toBe(ciphers);
  });

  it('TLS 1.0/1.1 as minimum: security level 0, with a warning', () => {
    const { options, warnings } = tlsVersionAndCiphers({ minVersion: 'VersionTLS11', cipherSuites: [] });
    expect(options.minVersion).toBe('TLSv1.1');
    expect(options.ciphers).toMatch(/:@SECLEVEL=0$/);
    expect(warnings.join('\n')).toMatch(/security level/);
    const withSuites = tlsVersionAndCiphers({ minVersion: 'VersionTLS10', cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA'] });
    expect(withSuites.options.ciphers).toBe('TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-SHA:@SECLEVEL=0');
  });

  it('an unknown suite is a start-up error naming it and the flag', () => {
    expect(() => tlsVersionAndCiphers({ minVersion: '', cipherSuites: ['TLS_NOPE'] })).toThrow(/--tls-cipher-suites: cipher suite "TLS_NOPE"/);
  });

  it('an unknown version is a start-up error naming the flag', () => {
    expect(() => tlsVersionAndCiphers({ minVersion: 'VersionTLS14', cipherSuites: [] })).toThrow(/--tls-min-version/);
  });

  it('an insecure suite is a warning', () => {
    const { warnings } = tlsVersionAndCiphers({ minVersion: '', cipherSuites: ['TLS_RSA_WITH_AES_128_CBC_SHA256', 'TLS_RSA_WITH_AES_128_GCM_SHA256'] });
    expect(warnings).toContain('use of insecure cipher suite TLS_RSA_WITH_AES_128_CBC_SHA256');
  });

  it('TLS 1.3 suites only: served as TLS 1.3 only, with a warning', () => {
    const { options, warnings } = tlsVersionAndCiphers({ minVersion: '', cipherSuites: ['TLS_AES_128_GCM_SHA256'] });
    expect(options.minVersion).toBe('TLSv1.3');
    expect(warnings.join('\n')).toMatch(/only TLS 1.3/);
  });
});

describe('mainTlsOptions: the client CA', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tlsopt-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const material = { cert: 'C', key: 'K', generated: false };

  it('no --client-ca-file: no certificate is requested', async () => {
    const { options } = await mainTlsOptions({ material, clientCAFile: '', tlsMinVersion: '', tlsCipherSuites: [] });
    expect(options).toEqual({ cert: 'C', key: 'K', minVersion: 'TLSv1.2' });
  });

  it('with it: certificates requested, verdict left to authentication', async () => {
    const k = generateKeyPair();
    const ca = issueCertificate({ subject: { commonName: 'ca' }, publicKey: k.publicKey, selfKey: k.privateKey, notBefore: new Date(), notAfter: new Date(Date.now() + 86_400_000), isCA: true });
    await writeFile(join(dir, 'ca.crt'), ca);
    const { options } = await mainTlsOptions({ material, clientCAFile: join(dir, 'ca.crt'), tlsMinVersion: '', tlsCipherSuites: [] });
    expect(options).toMatchObject({ requestCert: true, rejectUnauthorized: false });
    expect(String(options.ca)).toContain('BEGIN CERTIFICATE');
  });

  it.each([
    ['missing', undefined],
    ['no PEM', 'hello'],
  ])('a %s CA file is a start-up error naming --client-ca-file', async (_n, text) => {
    const f = join(dir, 'ca.crt');
    if (text !== undefined) await writeFile(f, text);
    await expect(mainTlsOptions({ material, clientCAFile: f, tlsMinVersion: '', tlsCipherSuites: [] })).rejects.toMatchObject({ code: 'ESTARTUP', flag: '--client-ca-file' });
  });
});
