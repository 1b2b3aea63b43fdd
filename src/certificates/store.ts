// The certificate files in --cert-dir (names in layout.ts): the bootstrap
// key kept until its request is signed, a new pair written beside the old
// ones and the `-current` symlink swapped in one rename, so a reader
// (the platformconfig points at the symlink) sees the old pair or the new
// one, never a mix. Called by bootstrap.ts and rotation.ts; each call is a
// few small file operations; idempotent where it says so.
import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { generateKeyPair, keyPairFromPem, privateKeyPem, type KeyPair } from '../pki/x509.js';
import { pemBlocks, privateKeyBlock, type PairPaths } from './layout.js';

/** The certificate chain and key of one pair file. */
export interface CertKeyPair {
  readonly cert: string;
  readonly key: string;
}

/** A pair file that exists but cannot be used; `field` is what is missing. */
export class CertificateFileError extends Error {
  constructor(
    readonly path: string,
    readonly field: 'certificate' | 'key',
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'CertificateFileError';
  }
}

/** Splits a pair file's text; throws CertificateFileError naming the part that is missing. */
export function splitPair(path: string, text: string): CertKeyPair {
  const certs = pemBlocks(text, 'CERTIFICATE');
  if (certs.length === 0) throw new CertificateFileError(path, 'certificate', 'holds no CERTIFICATE block');
  const key = privateKeyBlock(text);
  if (key === undefined) throw new CertificateFileError(path, 'key', 'holds no PRIVATE KEY block');
  return { cert: certs.join(''), key };
}

/** The current pair, or undefined when the symlink (or its target) does not exist. Throws CertificateFileError for a broken file. */
export async function readCurrentPair(paths: PairPaths): Promise<CertKeyPair | undefined> {
  let text: string;
  try {
    text = await readFile(paths.current, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return splitPair(paths.current, text);
}

/**
 * The bootstrap key: the one in `<prefix>.key.tmp` when it parses, else a new
 * ECDSA P-256 key written there (0600) — so a restart while the request is
 * pending asks again with the same key, under the same CSR name.
 */
export async function loadOrGenerateKey(paths: PairPaths, certDir: string): Promise<KeyPair> {
  try {
    return keyPairFromPem(await readFile(paths.keyTmp, 'utf8'));
  } catch {
    // Missing or unreadable: a fresh key replaces it.
  }
  const key = generateKeyPair();
  await mkdir(certDir, { recursive: true, mode: 0o755 });
  await writeFile(paths.keyTmp, privateKeyPem(key.privateKey), { mode: 0o600 });
  return key;
}

export async function removeKeyTmp(paths: PairPaths): Promise<void> {
  await rm(paths.keyTmp, { force: true });
}

/**
 * Writes `<prefix>-<now>.pem` (0600, certificate chain then key) and points
 * `<prefix>-current.pem` at it through a `.updated` symlink renamed over the
 * old one (atomic). Returns the new file's path.
 */
export async function writePair(paths: PairPaths, certDir: string, pair: CertKeyPair, now: Date): Promise<string> {
  await mkdir(certDir, { recursive: true, mode: 0o755 });
  const file = paths.dated(now);
  await writeFile(file, `${pair.cert.trimEnd()}\n${pair.key.trimEnd()}\n`, { mode: 0o600 });
  const updated = `${paths.current}.updated`;
  await rm(updated, { force: true });
  // Relative target: the directory can move (a container's mount) without breaking the link.
  await symlink(basename(file), updated);
  await rename(updated, paths.current);
  return file;
}
