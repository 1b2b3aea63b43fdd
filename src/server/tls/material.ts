// The main port's serving certificate: the operator's (--tls-cert-file +
// --tls-private-key-file), or a self-signed one generated into --cert-dir as
// the kubelet's cert.GenerateSelfSignedCertKey does (a throwaway CA
// `<host>-ca@<unix>` signs `<host>@<unix>` for the node's names and
// addresses; agent.crt holds the certificate then the CA, agent.key the key,
// 0600). Beyond the kubelet, which keeps whatever it finds: reused on restart
// only while valid and covering every name and address, else regenerated with
// a log line. Called once by the composition root before the server listens;
// file I/O; idempotent.
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { uncoveredHosts, writeAtomic } from '../../pki/files.js';
import { AgentError } from '../../errors.js';
import { generateKeyPair, issueCertificate, keyPairFromPem, privateKeyPem } from '../../pki/x509.js';
import type { AuthLog } from '../auth/log.js';

export const CERT_FILE = 'agent.crt';
export const KEY_FILE = 'agent.key';

export interface ServingMaterial {
  /** PEM: the serving certificate, then its chain. */
  cert: string;
  key: string;
  /** Made (now) by this call, rather than read from the operator's files or reused from --cert-dir. */
  generated: boolean;
}

export interface MaterialOptions {
  certDir: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  /** DNS names; the first names the certificate (the node's hostname). */
  hostnames: readonly string[];
  addresses: readonly string[];
  log: Pick<AuthLog, 'info'>;
  now?: () => Date;
}

const DAY_MS = 86_400_000;
/** As GenerateSelfSignedCertKey: a year. */
export const VALIDITY_MS = 365 * DAY_MS;
/** Regenerated this long before the end, so a restart never serves a certificate about to lapse. */
export const RENEW_BEFORE_MS = DAY_MS;

const firstCert = (pem: string): string | undefined => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)?.[0];

/** Why the files in --cert-dir cannot be served again, or undefined to reuse them. Pure. */
export function regenerateReason(files: { cert?: string; key?: string }, hosts: readonly string[], now: Date): string | undefined {
  if (files.cert === undefined && files.key === undefined) return 'no certificate yet';
  if (files.cert === undefined || files.key === undefined) return `missing ${files.cert === undefined ? CERT_FILE : KEY_FILE}`;
  const leaf = firstCert(files.cert);
  if (leaf === undefined) return `${CERT_FILE} holds no PEM certificate`;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(leaf);
    if (!cert.checkPrivateKey(keyPairFromPem(files.key).privateKey)) return 'the key does not match the certificate';
  } catch (e) {
    return `unreadable: ${(e as Error).message}`;
  }
  if (new Date(cert.validFrom).getTime() > now.getTime()) return `not valid before ${cert.validFrom}`;
  if (new Date(cert.validTo).getTime() - RENEW_BEFORE_MS <= now.getTime()) return `expired or expiring (${cert.validTo})`;
  const uncovered = uncoveredHosts(cert, hosts);
  if (uncovered.length > 0) return `does not cover ${uncovered.join(', ')}`;
  return undefined;
}

/** A self-signed CA and a serving certificate it signs; the CA key is discarded, as upstream. */
export function generateSelfSigned(hostnames: readonly string[], addresses: readonly string[], now: Date): { cert: string; key: string } {
  const host = hostnames[0] ?? addresses[0] ?? 'localhost';
  const unix = Math.floor(now.getTime() / 1000);
  const notBefore = new Date(now.getTime() - 60_000); // a little clock skew between node and clients
  const notAfter = new Date(now.getTime() + VALIDITY_MS);
  const ca = generateKeyPair();
  const caSubject = { commonName: `${host}-ca@${unix}` };
  const caCert = issueCertificate({ subject: caSubject, publicKey: ca.publicKey, selfKey: ca.privateKey, notBefore, notAfter, isCA: true });
  const leaf = generateKeyPair();
  const hosts = [...new Set([...hostnames, ...addresses])];
  const cert = issueCertificate({ subject: { commonName: `${host}@${unix}` }, publicKey: leaf.publicKey, issuer: { subject: caSubject, ...ca }, notBefore, notAfter, isCA: false, hosts, usage: 'server' });
  return { cert: cert + caCert, key: privateKeyPem(leaf.privateKey) };
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

async function readFlag(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new AgentError('ESTARTUP', `${flag} ${path}: ${(e as Error).message}`, { flag, file: path, cause: e });
  }
}

async function fromFiles(certFile: string, keyFile: string): Promise<ServingMaterial> {
  if (certFile === '' || keyFile === '') {
    const missing = certFile === '' ? '--tls-cert-file' : '--tls-private-key-file';
    throw new AgentError('ESTARTUP', `${missing} is required when ${missing === '--tls-cert-file' ? '--tls-private-key-file' : '--tls-cert-file'} is set`, { flag: missing });
  }
  const cert = await readFlag(certFile, '--tls-cert-file');
  const key = await readFlag(keyFile, '--tls-private-key-file');
  const leaf = firstCert(cert);
  if (leaf === undefined) throw new AgentError('ESTARTUP', `--tls-cert-file ${certFile}: no PEM CERTIFICATE block`, { flag: '--tls-cert-file', file: certFile });
  try {
    if (!new X509Certificate(leaf).checkPrivateKey(keyPairFromPem(key).privateKey)) throw new Error('the private key does not match the certificate');
  } catch (e) {
    throw new AgentError('ESTARTUP', `--tls-cert-file ${certFile} / --tls-private-key-file ${keyFile}: ${(e as Error).message}`, { flag: '--tls-private-key-file', file: keyFile, cause: e });
  }
  return { cert, key, generated: false };
}

export async function loadAgentServingMaterial(o: MaterialOptions): Promise<ServingMaterial> {
  if (o.tlsCertFile !== '' || o.tlsPrivateKeyFile !== '') return fromFiles(o.tlsCertFile, o.tlsPrivateKeyFile);
  const now = (o.now ?? (() => new Date()))();
  const certPath = join(o.certDir, CERT_FILE);
  const keyPath = join(o.certDir, KEY_FILE);
  const existing = { cert: await readOptional(certPath), key: await readOptional(keyPath) };
  const hosts = [...o.hostnames, ...o.addresses];
  const reason = regenerateReason(existing, hosts, now);
  if (reason === undefined) {
    o.log.info('Using the self-signed serving certificate in the cert dir', { certDir: o.certDir });
    return { cert: existing.cert!, key: existing.key!, generated: false };
  }
  const made = generateSelfSigned(o.hostnames, o.addresses, now);
  try {
    await mkdir(o.certDir, { recursive: true, mode: 0o755 });
    await writeAtomic(keyPath, made.key, 0o600);
    await writeAtomic(certPath, made.cert, 0o644);
  } catch (e) {
    throw new AgentError('ESTARTUP', `cannot write the self-signed serving certificate to --cert-dir ${o.certDir}: ${(e as Error).message}`, { flag: '--cert-dir', file: o.certDir, cause: e });
  }
  o.log.info('Generated a self-signed serving certificate', { certDir: o.certDir, reason, hosts: hosts.join(',') });
  return { ...made, generated: true };
}
