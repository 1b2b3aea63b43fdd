// The serving certificate: the operator's (--tls-cert-file/--tls-private-key-file)
// or one generated into --cert-dir with a self-signed CA on first start and
// reused on later starts while it is valid, readable and covers the hosts.
// Called once by the composition root before the server listens; does file
// I/O; idempotent (a second call reuses what the first wrote).
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { AgentError } from '../../errors.js';
import { uncoveredHosts, writeAtomic } from '../../pki/files.js';
import { generateKeyPair, issueCertificate, keyPairFromPem, privateKeyPem } from '../../pki/x509.js';

export { writeAtomic };

export const CA_CERT_FILE = 'apiserver-ca.crt';
export const CA_KEY_FILE = 'apiserver-ca.key';
export const CERT_FILE = 'apiserver.crt';
export const KEY_FILE = 'apiserver.key';

/** What the HTTPS server presents, and the CA a client should trust (for --admin-platformconfig). */
export interface ServingMaterial {
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem: string;
  /** How it was obtained, for the start-up log line. */
  readonly source: 'files' | 'reused' | 'generated';
}

export interface CertLog {
  info(msg: string, fields?: Record<string, unknown>): void;
}

const DAY_MS = 86_400_000;
/** Self-signed material lives a year, as kube-apiserver's; it is renewed a day before it ends. */
export const SELF_SIGNED_VALIDITY_MS = 365 * DAY_MS;
export const RENEW_BEFORE_MS = DAY_MS;

/** The names the generated certificate covers: the bind address (unless a wildcard), loopback, localhost and the host name. */
export function servingHosts(bindAddress: string, host: string = hostname()): string[] {
  const wildcard = bindAddress === '' || bindAddress === '0.0.0.0' || bindAddress === '::';
  return [...new Set([...(wildcard ? [] : [bindAddress]), '127.0.0.1', '::1', 'localhost', ...(host === '' ? [] : [host])])];
}

export interface ExistingFiles {
  caCert?: string;
  caKey?: string;
  cert?: string;
  key?: string;
}

/**
 * Whether the files found in the cert dir can be served again: the reason to
 * regenerate, or undefined to reuse. Pure (parsing only).
 */
export function regenerateReason(files: ExistingFiles, hosts: readonly string[], now: Date): string | undefined {
  const missing = (['caCert', 'caKey', 'cert', 'key'] as const).filter((f) => files[f] === undefined);
  if (missing.length === 4) return 'no certificate yet';
  if (missing.length > 0) return `unreadable: ${missing.join(', ')}`;
  let ca: X509Certificate;
  let cert: X509Certificate;
  try {
    ca = new X509Certificate(files.caCert!);
    cert = new X509Certificate(files.cert!);
  } catch (e) {
    return `certificate does not parse: ${(e as Error).message}`;
  }
  let keysMatch: boolean;
  try {
    const key = keyPairFromPem(files.key!);
    const caKey = keyPairFromPem(files.caKey!);
    keysMatch = cert.checkPrivateKey(key.privateKey) && ca.checkPrivateKey(caKey.privateKey);
  } catch (e) {
    return `key does not parse: ${(e as Error).message}`;
  }
  if (!keysMatch) return 'key does not match its certificate';
  if (!cert.verify(ca.publicKey)) return 'serving certificate is not signed by the CA';
  for (const c of [ca, cert]) {
    if (new Date(c.validFrom).getTime() > now.getTime()) return `${c === ca ? 'CA' : 'serving'} certificate is not valid yet`;
    if (new Date(c.validTo).getTime() - RENEW_BEFORE_MS <= now.getTime()) return `${c === ca ? 'CA' : 'serving'} certificate expired or expires within a day (${c.validTo})`;
  }
  const uncovered = uncoveredHosts(cert, hosts);
  if (uncovered.length > 0) return `serving certificate does not cover ${uncovered.join(', ')}`;
  return undefined;
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

function generate(hosts: readonly string[], now: Date): Required<ExistingFiles> {
  const notBefore = new Date(now.getTime() - 60_000); // tolerate a little clock skew between server and clients
  const notAfter = new Date(now.getTime() + SELF_SIGNED_VALIDITY_MS);
  const ca = generateKeyPair();
  const caSubject = { commonName: `platform-apiserver-ca@${Math.floor(now.getTime() / 1000)}` };
  const caCert = issueCertificate({ subject: caSubject, publicKey: ca.publicKey, selfKey: ca.privateKey, notBefore, notAfter, isCA: true });
  const leaf = generateKeyPair();
  const cert = issueCertificate({ subject: { commonName: 'platform-apiserver' }, publicKey: leaf.publicKey, issuer: { subject: caSubject, ...ca }, notBefore, notAfter, isCA: false, hosts, usage: 'server' });
  return { caCert, caKey: privateKeyPem(ca.privateKey), cert, key: privateKeyPem(leaf.privateKey) };
}

export interface ServingOptions {
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  certDir: string;
  hosts: readonly string[];
  log: CertLog;
  now?: () => Date;
}

export async function loadServingMaterial(opts: ServingOptions): Promise<ServingMaterial> {
  if (opts.tlsCertFile !== '') return fromFiles(opts.tlsCertFile, opts.tlsPrivateKeyFile);
  const now = (opts.now ?? (() => new Date()))();
  const paths = { caCert: join(opts.certDir, CA_CERT_FILE), caKey: join(opts.certDir, CA_KEY_FILE), cert: join(opts.certDir, CERT_FILE), key: join(opts.certDir, KEY_FILE) };
  const existing: ExistingFiles = {};
  for (const [k, p] of Object.entries(paths)) {
    const text = await readOptional(p);
    if (text !== undefined) existing[k as keyof ExistingFiles] = text;
  }
  const reason = regenerateReason(existing, opts.hosts, now);
  if (reason === undefined) {
    opts.log.info('Using the serving certificate in the cert dir', { certDir: opts.certDir });
    return { certPem: existing.cert!, keyPem: existing.key!, caPem: existing.caCert!, source: 'reused' };
  }
  const made = generate(opts.hosts, now);
  try {
    await mkdir(opts.certDir, { recursive: true, mode: 0o755 });
    await writeAtomic(paths.caKey, made.caKey, 0o600);
    await writeAtomic(paths.key, made.key, 0o600);
    await writeAtomic(paths.caCert, made.caCert, 0o644);
    await writeAtomic(paths.cert, made.cert, 0o644);
  } catch (e) {
    throw new AgentError('ESTARTUP', `cannot write the self-signed certificate to --cert-dir ${opts.certDir}: ${(e as Error).message}`, { flag: '--cert-dir', file: opts.certDir, cause: e });
  }
  opts.log.info('Generated a self-signed CA and serving certificate', { certDir: opts.certDir, reason, hosts: opts.hosts.join(',') });
  return { certPem: made.cert, keyPem: made.key, caPem: made.caCert, source: 'generated' };
}

/** The operator's certificate and key. The CA for clients is the last certificate of the file when it holds a chain, else the certificate itself. */
async function fromFiles(certFile: string, keyFile: string): Promise<ServingMaterial> {
  const read = async (path: string, flag: string): Promise<string> => {
    try {
      return await readFile(path, 'utf8');
    } catch (e) {
      throw new AgentError('ESTARTUP', `${flag} ${path}: ${(e as Error).message}`, { flag, file: path, cause: e });
    }
  };
  const certPem = await read(certFile, '--tls-cert-file');
  const keyPem = await read(keyFile, '--tls-private-key-file');
  const blocks = certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
  if (blocks.length === 0) throw new AgentError('ESTARTUP', `--tls-cert-file ${certFile}: no PEM CERTIFICATE block`, { flag: '--tls-cert-file', file: certFile });
  try {
    const cert = new X509Certificate(blocks[0]!);
    if (!cert.checkPrivateKey(keyPairFromPem(keyPem).privateKey)) throw new Error('the private key does not match the certificate');
  } catch (e) {
    throw new AgentError('ESTARTUP', `--tls-cert-file ${certFile} / --tls-private-key-file ${keyFile}: ${(e as Error).message}`, { flag: '--tls-private-key-file', file: keyFile, cause: e });
  }
  const caPem = blocks[blocks.length - 1]!;
  return { certPem, keyPem, caPem: caPem.endsWith('\n') ? caPem : `${caPem}\n`, source: 'files' };
}
