import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentError } from '../../../../src/errors.js';
import { generateKeyPair, issueCertificate, privateKeyPem } from '../../../../src/pki/x509.js';
import { CERT_FILE, KEY_FILE, loadAgentServingMaterial, regenerateReason } from '../../../../src/server/tls/index.js';
import { testLogger } from '../../../helpers/test-logger.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tls-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const base = (over: Partial<Parameters<typeof loadAgentServingMaterial>[0]> = {}) => ({ certDir: join(dir, 'pki'), tlsCertFile: '', tlsPrivateKeyFile: '', hostnames: ['node1'], addresses: ['127.0.0.1', '10.0.0.7'], log: testLogger(), ...over });

describe('loadAgentServingMaterial: self-signed in --cert-dir', () => {
  it('generates once: a CA-signed certificate for the names and addresses, the key 0600', async () => {
    const m = await loadAgentServingMaterial(base());
    expect(m.generated).toBe(true);
    const blocks = m.cert.match(/-----BEGIN CERTIFICATE-----/g) ?? [];
    expect(blocks).toHaveLength(2);
    const leaf = new X509Certificate(m.cert);
    expect(leaf.subject).toMatch(/^CN=node1@\d+$/);
    expect(leaf.issuer).toMatch(/^CN=node1-ca@\d+$/);
    expect(leaf.checkHost('node1', { subject: 'never' })).toBe('node1');
    expect(leaf.checkIP('10.0.0.7')).toBe('10.0.0.7');
    expect(await readFile(join(dir, 'pki', CERT_FILE), 'utf8')).toBe(m.cert);
    expect((await stat(join(dir, 'pki', KEY_FILE))).mode & 0o777).toBe(0o600);
  });

  it('reuses the files on the next start', async () => {
    const first = await loadAgentServingMaterial(base());
    const log = testLogger();
    const second = await loadAgentServingMaterial(base({ log }));
    expect(second).toEqual({ cert: first.cert, key: first.key, generated: false });
    expect(log.records.map((r) => r.msg)).toEqual(['Using the self-signed serving certificate in the cert dir']);
  });

  it('regenerates, with a log line, when the node gains an address', async () => {
    const first = await loadAgentServingMaterial(base());
    const log = testLogger();
    const second = await loadAgentServingMaterial(base({ addresses: ['127.0.0.1', '10.0.0.8'], log }));
    expect(second.generated).toBe(true);
    expect(second.cert).not.toBe(first.cert);
    expect(log.records[0]).toMatchObject({ msg: 'Generated a self-signed serving certificate', fields: { reason: 'does not cover 10.0.0.8' } });
  });

  it('regenerates when the certificate nears its end', async () => {
    await loadAgentServingMaterial(base());
    const later = new Date(Date.now() + 365 * 86_400_000);
    const m = await loadAgentServingMaterial(base({ now: () => later }));
    expect(m.generated).toBe(true);
  });

  it('cannot write the cert dir → ESTARTUP naming --cert-dir', async () => {
    await writeFile(join(dir, 'file'), 'x');
    await expect(loadAgentServingMaterial(base({ certDir: join(dir, 'file', 'pki') }))).rejects.toMatchObject({ code: 'ESTARTUP', flag: '--cert-dir' });
  });
});

describe('regenerateReason', () => {
  const now = new Date();
  it.each<[string, { cert?: string; key?: string }, RegExp | undefined]>([
    ['nothing', {}, /no certificate yet/],
    ['key only', { key: 'x' }, /missing agent.crt/],
    ['garbage', { cert: 'nope', key: 'nope' }, /no PEM certificate/],
  ])('%s', (_n, files, want) => {
    const r = regenerateReason(files, ['node1'], now);
    if (want === undefined) expect(r).toBeUndefined();
    else expect(r).toMatch(want);
  });

  it('a key of another certificate', () => {
    const k = generateKeyPair();
    const other = generateKeyPair();
    const cert = issueCertificate({ subject: { commonName: 'x' }, publicKey: k.publicKey, selfKey: k.privateKey, notBefore: new Date(now.getTime() - 1000), notAfter: new Date(now.getTime() + 10 * 86_400_000), isCA: false, hosts: ['node1'] });
    expect(regenerateReason({ cert, key: privateKeyPem(other.privateKey) }, ['node1'], now)).toMatch(/does not match/);
    expect(regenerateReason({ cert, key: privateKeyPem(k.privateKey) }, ['node1'], now)).toBeUndefined();
  });
});

describe('loadAgentServingMaterial: the operator files', () => {
  it('serves them as given', async () => {
    const k = generateKeyPair();
    const cert = issueCertificate({ subject: { commonName: 'node1' }, publicKey: k.publicKey, selfKey: k.privateKey, notBefore: new Date(), notAfter: new Date(Date.now() + 86_400_000), isCA: false });
    await writeFile(join(dir, 'c.crt'), cert);
    await writeFile(join(dir, 'c.key'), privateKeyPem(k.privateKey));
    const m = await loadAgentServingMaterial(base({ tlsCertFile: join(dir, 'c.crt'), tlsPrivateKeyFile: join(dir, 'c.key') }));
    expect(m).toEqual({ cert, key: privateKeyPem(k.privateKey), generated: false });
  });

  it.each<[string, string, string]>([
    ['only the certificate', 'c.crt', ''],
    ['a missing file', 'missing.crt', 'c.key'],
  ])('%s → ESTARTUP naming the flag', async (_n, c, k) => {
    const err = await loadAgentServingMaterial(base({ tlsCertFile: c === '' ? '' : join(dir, c), tlsPrivateKeyFile: k === '' ? '' : join(dir, k) })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect((err as AgentError).flag).toMatch(/^--tls-(cert|private-key)-file$/);
  });
});
