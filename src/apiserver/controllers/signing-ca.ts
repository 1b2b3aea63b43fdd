// The CA the node client signer signs with: --cluster-signing-cert-file and
// --cluster-signing-key-file (kube-controller-manager's flags) when given,
// else the CA platform-apiserver generated into --cert-dir
// (apiserver-ca.crt/.key, written by certs/serving.ts before this is read).
// Read once at start; an unusable file is a start-up error naming the flag.
import { X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, type Name } from '@peculiar/asn1-x509';
import { AgentError } from '../../errors.js';
import { CA_CERT_FILE, CA_KEY_FILE } from '../certs/serving.js';
import { keyPairFromPem } from '../../pki/x509.js';

export interface SigningCa {
  /** The CA certificate (PEM): what client certificates it issued are verified against. */
  readonly certPem: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** The CA's subject exactly as encoded, the issuer of what it signs. */
  readonly subjectName: Name;
  /** Its expiry (ms): issued certificates end no later. */
  readonly notAfter: number;
}

export interface SigningCaFiles {
  clusterSigningCertFile: string;
  clusterSigningKeyFile: string;
  certDir: string;
}

async function read(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new AgentError('ESTARTUP', `${flag} ${path}: ${(e as Error).message}`, { flag, file: path, cause: e });
  }
}

/** Parses a CA certificate and its key. Throws an AgentError naming `flag` and `file`. */
export function signingCaFromPem(certPem: string, keyPem: string, where: { flag: string; file: string }): SigningCa {
  try {
    const first = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/.exec(certPem)?.[0];
    if (first === undefined) throw new Error('no PEM CERTIFICATE block');
    const cert = new X509Certificate(first);
    if (!cert.ca) throw new Error('the certificate is not a CA (basic constraints)');
    const { privateKey, publicKey } = keyPairFromPem(keyPem);
    if (!cert.checkPrivateKey(privateKey)) throw new Error('the private key does not match the certificate');
    const subjectName = AsnConvert.parse(cert.raw, Certificate).tbsCertificate.subject;
    return { certPem: first.endsWith('\n') ? first : `${first}\n`, privateKey, publicKey, subjectName, notAfter: new Date(cert.validTo).getTime() };
  } catch (e) {
    throw new AgentError('ESTARTUP', `${where.flag} ${where.file}: cannot sign with it: ${(e as Error).message}`, { flag: where.flag, file: where.file, cause: e });
  }
}

export async function loadSigningCa(f: SigningCaFiles): Promise<SigningCa> {
  if (f.clusterSigningCertFile !== '') {
    const certPem = await read(f.clusterSigningCertFile, '--cluster-signing-cert-file');
    const keyPem = await read(f.clusterSigningKeyFile, '--cluster-signing-key-file');
    return signingCaFromPem(certPem, keyPem, { flag: '--cluster-signing-cert-file', file: f.clusterSigningCertFile });
  }
  const certFile = join(f.certDir, CA_CERT_FILE);
  const certPem = await read(certFile, '--cert-dir');
  const keyPem = await read(join(f.certDir, CA_KEY_FILE), '--cert-dir');
  return signingCaFromPem(certPem, keyPem, { flag: '--cert-dir', file: certFile });
}
