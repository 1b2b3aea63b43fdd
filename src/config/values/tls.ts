// Serving TLS settings: the Go names the kubelet accepts for
// `--tls-min-version` / `--tls-cipher-suites` (cliflag TLSVersion,
// TLSCipherSuites, InsecureTLSCiphers) and their Node.js/OpenSSL equivalents.
import { ValueError } from '../../errors.js';

export const TLS_VERSIONS = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'] as const;
export type TlsVersionName = (typeof TLS_VERSIONS)[number];
export type NodeTlsVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

const NODE_VERSION: ReadonlyMap<string, NodeTlsVersion> = new Map([
  ['VersionTLS10', 'TLSv1'],
  ['VersionTLS11', 'TLSv1.1'],
  ['VersionTLS12', 'TLSv1.2'],
  ['VersionTLS13', 'TLSv1.3'],
]);

/** Go suite name → OpenSSL name, for the suites Go considers secure. */
const SECURE: ReadonlyArray<readonly [string, string]> = [
  // TLS 1.3 suites keep their IANA names, which is what Node expects for them.
  ['TLS_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'],
  ['TLS_AES_256_GCM_SHA384', 'TLS_AES_256_GCM_SHA384'],
  ['TLS_CHACHA20_POLY1305_SHA256', 'TLS_CHACHA20_POLY1305_SHA256'],
  ['TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', 'ECDHE-ECDSA-AES128-SHA'],
  ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'ECDHE-ECDSA-AES128-GCM-SHA256'],
  ['TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA', 'ECDHE-ECDSA-AES256-SHA'],
  ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'ECDHE-ECDSA-AES256-GCM-SHA384'],
  ['TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305', 'ECDHE-ECDSA-CHACHA20-POLY1305'],
  ['TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305'],
  ['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 'ECDHE-RSA-AES128-SHA'],
  ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-RSA-AES128-GCM-SHA256'],
  ['TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA', 'ECDHE-RSA-AES256-SHA'],
  ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'ECDHE-RSA-AES256-GCM-SHA384'],
  ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305'],
  ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', 'ECDHE-RSA-CHACHA20-POLY1305'],
  ['TLS_RSA_WITH_AES_128_CBC_SHA', 'AES128-SHA'],
  ['TLS_RSA_WITH_AES_128_GCM_SHA256', 'AES128-GCM-SHA256'],
  ['TLS_RSA_WITH_AES_256_CBC_SHA', 'AES256-SHA'],
  ['TLS_RSA_WITH_AES_256_GCM_SHA384', 'AES256-GCM-SHA384'],
];

/** Accepted, with a warning. */
const INSECURE: ReadonlyArray<readonly [string, string]> = [
  ['TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256', 'ECDHE-ECDSA-AES128-SHA256'],
  ['TLS_ECDHE_ECDSA_WITH_RC4_128_SHA', 'ECDHE-ECDSA-RC4-SHA'],
  ['TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA', 'ECDHE-RSA-DES-CBC3-SHA'],
  ['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256', 'ECDHE-RSA-AES128-SHA256'],
  ['TLS_ECDHE_RSA_WITH_RC4_128_SHA', 'ECDHE-RSA-RC4-SHA'],
  ['TLS_RSA_WITH_3DES_EDE_CBC_SHA', 'DES-CBC3-SHA'],
  ['TLS_RSA_WITH_AES_128_CBC_SHA256', 'AES128-SHA256'],
  ['TLS_RSA_WITH_RC4_128_SHA', 'RC4-SHA'],
];

export const SECURE_CIPHERS: readonly string[] = SECURE.map(([go]) => go);
export const INSECURE_CIPHERS: readonly string[] = INSECURE.map(([go]) => go);
const OPENSSL_NAME: ReadonlyMap<string, string> = new Map([...SECURE, ...INSECURE]);

/** What this Node/OpenSSL build can negotiate (RC4 and 3DES are usually compiled out). */
let available: ReadonlySet<string> | undefined;
function isAvailable(goName: string): boolean {
  // node:tls costs several ms to load; only a configuration that names suites pays for it.
  available ??= new Set(process.getBuiltinModule('node:tls').getCiphers().map((c) => c.toUpperCase()));
  const name = OPENSSL_NAME.get(goName);
  return name !== undefined && available.has(name.toUpperCase());
}

/** Problems (fatal, as in the kubelet) and warnings for the serving TLS settings; '' means the default version. */
export function checkTls(minVersion: string, suites: readonly string[]): { problems: string[]; warnings: string[] } {
  const problems: string[] = [];
  const warnings: string[] = [];
  if (minVersion !== '' && !(TLS_VERSIONS as readonly string[]).includes(minVersion)) {
    problems.push(`unknown TLS version ${JSON.stringify(minVersion)} (use ${TLS_VERSIONS.join(', ')})`);
  }
  for (const suite of suites) {
    if (!OPENSSL_NAME.has(suite)) problems.push(`cipher suite ${JSON.stringify(suite)} is not supported or does not exist`);
    else if (!isAvailable(suite)) warnings.push(`cipher suite ${suite} is not available in this runtime and is ignored`);
    else if (INSECURE_CIPHERS.includes(suite)) warnings.push(`use of insecure cipher suite ${suite}`);
  }
  if (minVersion === 'VersionTLS13' && suites.length > 0) {
    warnings.push('TLS 1.3 cipher suites are not configurable; the configured cipher suites are ignored');
  }
  return { problems, warnings };
}

/** Node's `minVersion` for a Go version name; '' gives the kubelet's default, TLS 1.2. */
export function toNodeTlsVersion(name: string): NodeTlsVersion {
  if (name === '') return 'TLSv1.2';
  const v = NODE_VERSION.get(name);
  if (v === undefined) throw new ValueError(`unknown TLS version ${JSON.stringify(name)} (use ${TLS_VERSIONS.join(', ')})`);
  return v;
}

/**
 * Node's `ciphers` string for Go suite names, skipping suites this runtime
 * cannot offer (checkTls warns about those). Call after checkTls: an unknown name throws.
 */
export function toOpenSslCiphers(names: readonly string[]): string {
  const out: string[] = [];
  for (const goName of names) {
    const name = OPENSSL_NAME.get(goName);
    if (name === undefined) throw new ValueError(`cipher suite ${JSON.stringify(goName)} is not supported or does not exist`);
    if (isAvailable(goName) && !out.includes(name)) out.push(name);
  }
  return out.join(':');
}
