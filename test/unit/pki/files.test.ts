import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uncoveredHosts, writeAtomic } from '../../../src/pki/files.js';
import { generateKeyPair, issueCertificate } from '../../../src/pki/x509.js';

describe('uncoveredHosts', () => {
  const k = generateKeyPair();
  const cert = new X509Certificate(issueCertificate({ subject: { commonName: 'n' }, publicKey: k.publicKey, selfKey: k.privateKey, notBefore: new Date(), notAfter: new Date(Date.now() + 60_000), isCA: false, hosts: ['node1', '10.0.0.1', '::1'] }));
  it.each<[string[], string[]]>([
    [['node1', '10.0.0.1', '::1'], []],
    [['node2', '10.0.0.2', '::2'], ['node2', '10.0.0.2', '::2']],
    [['NODE1'], []],
    [[], []],
  ])('%j → %j', (hosts, want) => {
    expect(uncoveredHosts(cert, hosts)).toEqual(want);
  });
});

describe('writeAtomic', () => {
  it('writes the whole text with the mode and leaves no temporary file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pki-files-'));
    try {
      await writeAtomic(join(dir, 'k.pem'), 'secret', 0o600);
      await writeAtomic(join(dir, 'k.pem'), 'secret2', 0o600);
      expect(await readFile(join(dir, 'k.pem'), 'utf8')).toBe('secret2');
      expect((await stat(join(dir, 'k.pem'))).mode & 0o777).toBe(0o600);
      expect(await readdir(dir)).toEqual(['k.pem']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
