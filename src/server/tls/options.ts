// node:tls options of the main port from --tls-min-version,
// --tls-cipher-suites and --client-ca-file. Client certificates are requested
// but not enforced by the handshake (rejectUnauthorized false): the
// authenticator sees the TLS layer's verdict and answers 401, as the kubelet
// does. Called once at start-up; reads the CA file; an unknown version or
// suite is a start-up error naming the flag and the value.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { TlsOptions } from 'node:tls';
import { checkTls, toNodeTlsVersion, toOpenSslCiphers } from '../../config/values/tls.js';
import { AgentError } from '../../errors.js';
import type { ServingMaterial } from './material.js';

/** Go negotiates every TLS 1.3 suite whatever CipherSuites says; so does the agent. */
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

export interface TlsSettings {
  minVersion: string;
  cipherSuites: readonly string[];
}

/** Version and cipher options for the settings, and the warnings to log. Pure (bar node:tls's cipher list). */
export function tlsVersionAndCiphers(s: TlsSettings): { options: Pick<TlsOptions, 'minVersion' | 'ciphers'>; warnings: string[] } {
  const { problems, warnings } = checkTls(s.minVersion, s.cipherSuites);
  if (problems.length > 0) {
    const versionBad = problems.some((p) => p.startsWith('unknown TLS version'));
    throw new AgentError('ESTARTUP', `${versionBad ? '--tls-min-version' : '--tls-cipher-suites'}: ${problems.join('; ')}`, { flag: versionBad ? '--tls-min-version' : '--tls-cipher-suites' });
  }
  let minVersion = toNodeTlsVersion(s.minVersion);
  // OpenSSL 3 refuses TLS 1.0 and 1.1 below security level 0; Go serves them when asked, so lower it only then.
  const legacy = minVersion === 'TLSv1' || minVersion === 'TLSv1.1';
  if (legacy) warnings.push(`--tls-min-version ${s.minVersion} lowers OpenSSL's security level to 0 so that TLS 1.0/1.1 clients can connect`);
  if (s.cipherSuites.length === 0) {
    return { options: legacy ? { minVersion, ciphers: `${process.getBuiltinModule('node:tls').DEFAULT_CIPHERS}:@SECLEVEL=0` } : { minVersion }, warnings };
  }
  const tls12 = toOpenSslCiphers(s.cipherSuites)
    .split(':')
    .filter((c) => c !== '' && !c.startsWith('TLS_'));
  if (tls12.length === 0 && minVersion !== 'TLSv1.3') {
    // Go offers a TLS 1.2 client nothing then; Node would fall back to its defaults, so refuse below 1.3 instead.
    warnings.push('--tls-cipher-suites names no TLS 1.2 suite this runtime offers: only TLS 1.3 is served');
    minVersion = 'TLSv1.3';
  }
  return { options: { minVersion, ciphers: [...TLS13_SUITES, ...tls12, ...(legacy ? ['@SECLEVEL=0'] : [])].join(':') }, warnings };
}

/** The certificates of a PEM bundle, each checked to parse; the message names the flag and file. */
async function readClientCA(file: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (e) {
    throw new AgentError('ESTARTUP', `--client-ca-file ${file}: ${(e as Error).message}`, { flag: '--client-ca-file', file, cause: e });
  }
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new AgentError('ESTARTUP', `--client-ca-file ${file}: no PEM CERTIFICATE block`, { flag: '--client-ca-file', file });
  for (const [i, b] of blocks.entries()) {
    try {
      new X509Certificate(b);
    } catch (e) {
      throw new AgentError('ESTARTUP', `--client-ca-file ${file}: certificate ${i + 1} does not parse: ${(e as Error).message}`, { flag: '--client-ca-file', file, cause: e });
    }
  }
  return blocks.join('\n') + '\n';
}

/**
 * `material` undefined: no certificate yet (--rotate-server-certificates
 * before the first is issued): the options carry none, handshakes fail until
 * the server's setServingCertificate gives one.
 */
export async function mainTlsOptions(o: { material: Pick<ServingMaterial, 'cert' | 'key'> | undefined; clientCAFile: string; tlsMinVersion: string; tlsCipherSuites: readonly string[] }): Promise<{ options: TlsOptions; warnings: string[] }> {
  const { options, warnings } = tlsVersionAndCiphers({ minVersion: o.tlsMinVersion, cipherSuites: o.tlsCipherSuites });
  const base: TlsOptions = o.material === undefined ? { ...options } : { cert: o.material.cert, key: o.material.key, ...options };
  if (o.clientCAFile === '') return { options: base, warnings };
  const ca = await readClientCA(o.clientCAFile);
  return { options: { ...base, ca, requestCert: true, rejectUnauthorized: false }, warnings };
}
