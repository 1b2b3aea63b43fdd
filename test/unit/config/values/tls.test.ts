import { describe, expect, it } from 'vitest';
import { getCiphers } from 'node:tls';
import {
  INSECURE_CIPHERS,
  SECURE_CIPHERS,
  TLS_VERSIONS,
  checkTls,
  toNodeTlsVersion,
  toOpenSslCiphers,
} from '../../../../src/config/values/tls.js';
import { ValueError } from '../../../../src/errors.js';

const runtimeHas = (openssl: string): boolean => getCiphers().includes(openssl.toLowerCase());

describe('tables', () => {
  it('lists the spec versions and suites', () => {
    expect(TLS_VERSIONS).toEqual(['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13']);
    expect(SECURE_CIPHERS).toHaveLength(19);
    expect(INSECURE_CIPHERS).toEqual([
      'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
      'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA',
      'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
      'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
      'TLS_ECDHE_RSA_WITH_RC4_128_SHA',
      'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
      'TLS_RSA_WITH_AES_128_CBC_SHA256',
      'TLS_RSA_WITH_RC4_128_SHA',
    ]);
    expect(SECURE_CIPHERS).toContain('TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305');
    expect(SECURE_CIPHERS).toContain('TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256');
  });
});

describe('checkTls', () => {
  it.each([
    ['', []],
    ['VersionTLS12', ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256']],
    ['VersionTLS10', []],
    ['VersionTLS13', []],
  ])('accepts %j with %j', (version, suites) => {
    expect(checkTls(version, suites)).toEqual({ problems: [], warnings: [] });
  });

  it.each([
    ['TLS1.2', [], ['unknown TLS version "TLS1.2" (use VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13)']],
    ['VersionTLS12', ['TLS_FOO'], ['cipher suite "TLS_FOO" is not supported or does not exist']],
    ['VersionTLS12', ['ECDHE-RSA-AES128-GCM-SHA256'], ['cipher suite "ECDHE-RSA-AES128-GCM-SHA256" is not supported or does not exist']],
  ])('reports %j with %j', (version, suites, problems) => {
    expect(checkTls(version, suites).problems).toEqual(problems);
  });

  it('warns about insecure suites', () => {
    const suite = 'TLS_RSA_WITH_AES_128_CBC_SHA256';
    expect(runtimeHas('AES128-SHA256')).toBe(true);
    expect(checkTls('', [suite])).toEqual({ problems: [], warnings: [`use of insecure cipher suite ${suite}`] });
  });

  it('warns that suites do not apply with TLS 1.3', () => {
    expect(checkTls('VersionTLS13', ['TLS_AES_128_GCM_SHA256'])).toEqual({
      problems: [],
      warnings: ['TLS 1.3 cipher suites are not configurable; the configured cipher suites are ignored'],
    });
  });

  it('warns about suites this runtime cannot offer', () => {
    const warnings = checkTls('', ['TLS_RSA_WITH_RC4_128_SHA']).warnings;
    if (runtimeHas('RC4-SHA')) expect(warnings).toEqual(['use of insecure cipher suite TLS_RSA_WITH_RC4_128_SHA']);
    else expect(warnings).toEqual(['cipher suite TLS_RSA_WITH_RC4_128_SHA is not available in this runtime and is ignored']);
  });
});

describe('toNodeTlsVersion', () => {
  it.each([
    ['', 'TLSv1.2'],
    ['VersionTLS10', 'TLSv1'],
    ['VersionTLS11', 'TLSv1.1'],
    ['VersionTLS12', 'TLSv1.2'],
    ['VersionTLS13', 'TLSv1.3'],
  ])('maps %j to %j', (name, node) => {
    expect(toNodeTlsVersion(name)).toBe(node);
  });

  it('rejects unknown versions', () => {
    expect(() => toNodeTlsVersion('SSLv3')).toThrow(ValueError);
    expect(() => toNodeTlsVersion('SSLv3')).toThrow('unknown TLS version "SSLv3"');
  });
});

describe('toOpenSslCiphers', () => {
  it.each([
    [[], ''],
    [['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'], 'ECDHE-RSA-AES128-GCM-SHA256'],
    [['TLS_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'], 'TLS_AES_128_GCM_SHA256:ECDHE-ECDSA-AES256-GCM-SHA384'],
    [['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256'], 'ECDHE-RSA-CHACHA20-POLY1305'],
    [['TLS_RSA_WITH_AES_256_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA'], 'AES256-SHA:ECDHE-RSA-AES128-SHA'],
  ])('maps %j to %j', (names, ciphers) => {
    expect(toOpenSslCiphers(names)).toBe(ciphers);
  });

  it('maps every secure suite to a cipher this runtime offers', () => {
    for (const suite of SECURE_CIPHERS) expect(toOpenSslCiphers([suite]), suite).not.toBe('');
  });

  it('rejects unknown names', () => {
    expect(() => toOpenSslCiphers(['TLS_FOO'])).toThrow('cipher suite "TLS_FOO" is not supported or does not exist');
  });
});
