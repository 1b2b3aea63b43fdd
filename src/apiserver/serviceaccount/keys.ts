// The service-account key material: the signing key from
// --service-account-signing-key-file, the verification keys from
// --service-account-key-file (one or more PEM public or private keys; the
// signing key's public half is always accepted too). When no signing key is
// given the server generates an EC P-256 key in memory at start: tokens it
// issues then stop verifying after a restart, and several servers over one
// etcd do not accept each other's tokens. Called once at start; reads files.
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ConfigFileError } from '../../errors.js';
import { signingKey } from './jwt.js';
import type { SigningKey } from './jwt.js';

export interface ServiceAccountKeys {
  signing: SigningKey;
  verifying: readonly KeyObject[];
  /** True when the signing key was generated in memory. */
  generated: boolean;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** The public keys of every PEM key block of a file's text (private keys give their public half). */
export function publicKeysFromPem(text: string, file: string): KeyObject[] {
  const out: KeyObject[] = [];
  for (const m of text.matchAll(PEM_BLOCK)) {
    const type = m[1] ?? '';
    if (type === 'CERTIFICATE') continue;
    try {
      out.push(type.includes('PRIVATE') ? createPublicKey(createPrivateKey(m[0])) : createPublicKey(m[0]));
    } catch (cause) {
      throw new ConfigFileError(`${file}: cannot parse ${type} block`, { file, cause });
    }
  }
  if (out.length === 0) throw new ConfigFileError(`${file}: no public or private key found`, { file });
  return out;
}

export async function loadServiceAccountKeys(opts: { signingKeyFile?: string; keyFiles?: readonly string[] }): Promise<ServiceAccountKeys> {
  let signing: SigningKey;
  let generated = false;
  if (opts.signingKeyFile !== undefined && opts.signingKeyFile !== '') {
    const file = opts.signingKeyFile;
    try {
      signing = signingKey(createPrivateKey(await readFile(file, 'utf8')));
    } catch (cause) {
      throw new ConfigFileError(`${file}: cannot load the service account signing key`, { file, cause, flag: '--service-account-signing-key-file' });
    }
  } else {
    signing = signingKey(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
    generated = true;
  }
  const verifying: KeyObject[] = [createPublicKey(signing.privateKey)];
  for (const file of opts.keyFiles ?? []) verifying.push(...publicKeysFromPem(await readFile(file, 'utf8'), file));
  return { signing, verifying, generated };
}
