import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CA_KEY_FILE, CERT_FILE, KEY_FILE, loadServingMaterial, regenerateReason, servingHosts, type ExistingFiles } from '../../../../src/apiserver/certs/serving.js';
import { generateKeyPair, issueCertificate, privateKeyPem } from '../../../../src/pki/x509.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'apiserver-certs-'));
  dirs.push(d);
  return d;
}
function recorder() {
  const lines: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  return { lines, log: { info: (msg: string, fields?: Record<string, unknown>) => void lines.push(fields === undefined ? { msg } : { msg, fields }) } };
}
const HOSTS = ['127.0.0.1', '::1', 'localhost'];

describe('servingHosts', () => {
  it.each([
    ['0.0.0.0', 'node1', ['127.0.0.1', '::1', 'localhost', 'node1']],
    ['::', 'node1', ['127.0.0.1', '::1', 'localhost', 'node1']],
    ['10.0.0.5', 'node1', ['10.0.0.5', '127.0.0.1', '::1', 'localhost', 'node1']],
    ['127.0.0.1', '', ['127.0.0.1', '::1', 'localhost']],
  ])('bind %s host %s', (bind, host, want) => {
    expect(servingHosts(bind, host)).toEqual(want);
  });
});

function material(now: Date, hosts: readonly string[], lifeMs = 365 * 86_400_000): Required<ExistingFiles> {
  const ca = generateKeyPair();
  const leaf = generateKeyPair();
  const notAfter = new Date(now.getTime() + lifeMs);
  const caCert = issueCertificate({ subject: { commonName: 'ca' }, publicKey: ca.publicKey, selfKey: ca.privateKey, notBefore: now, notAfter, isCA: true });
  const cert = issueCertificate({ subject: { commonName: 's' }, publicKey: leaf.publicKey, issuer: { subject: { commonName: 'ca' }, ...ca }, notBefore: now, notAfter, isCA: false, hosts });
  return { caCert, caKey: privateKeyPem(ca.privateKey), cert, key: privateKeyPem(leaf.privateKey) };
}

describe('regenerateReason', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const good = material(now, HOSTS);
  const other = material(now, HOSTS);
  it.each<[string, ExistingFiles, Date, RegExp | undefined]>([
    ['valid and covering: reuse', good, now, undefined],
    ['nothing there', {}, now, /no certificate yet/],
    ['a file missing', { ...good, key: undefined } as ExistingFiles, now, /unreadable: key/],
    ['garbage certificate', { ...good, cert: 'junk' }, now, /does not parse/],
    ['garbage key', { ...good, key: 'junk' }, now, /key does not parse/],
    ['key of another certificate', { ...good, key: other.key }, now, /does not match/],
    ['signed by another CA', { ...good, caCert: other.caCert, caKey: other.caKey }, now, /not signed by the CA/],
    ['expired', good, new Date(now.getTime() + 366 * 86_400_000), /expired/],
    ['expires within a day', good, new Date(now.getTime() + 364.5 * 86_400_000), /expires within a day/],
    ['not valid yet', good, new Date(now.getTime() - 86_400_000), /not valid yet/],
  ])('%s', (_name, files, at, want) => {
    const r = regenerateReason(files, HOSTS, at);
    if (want === undefined) expect(r).toBeUndefined();
    else expect(r).toMatch(want);
  });
  it('a host the certificate does not cover', () => {
    expect(regenerateReason(good, [...HOSTS, '10.1.2.3', 'node9'], now)).toBe('serving certificate does not cover 10.1.2.3, node9');
  });
});

describe('loadServingMaterial', () => {
  it('generates into the cert dir with 0600 keys, then reuses it; regenerates when expired or unreadable', async () => {
    const dir = join(tmp(), 'certs');
    const r1 = recorder();
    const first = await loadServingMaterial({ tlsCertFile: '', tlsPrivateKeyFile: '', certDir: dir, hosts: HOSTS, log: r1.log });
    expect(first.source).toBe('generated');
    expect(statSync(join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, CA_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(new X509Certificate(first.certPem).verify(new X509Certificate(first.caPem).publicKey)).toBe(true);
    expect(r1.lines[0]?.msg).toMatch(/Generated a self-signed CA/);

    const second = await loadServingMaterial({ tlsCertFile: '', tlsPrivateKeyFile: '', certDir: dir, hosts: HOSTS, log: recorder().log });
    expect(second.source).toBe('reused');
    expect(second.certPem).toBe(first.certPem);

    const r3 = recorder();
    const future = new Date(Date.now() + 400 * 86_400_000);
    const third = await loadServingMaterial({ tlsCertFile: '', tlsPrivateKeyFile: '', certDir: dir, hosts: HOSTS, log: r3.log, now: () => future });
    expect(third.source).toBe('generated');
    expect(r3.lines[0]?.fields?.['reason']).toMatch(/expired/);

    writeFileSync(join(dir, KEY_FILE), 'broken');
    const r4 = recorder();
    const fourth = await loadServingMaterial({ tlsCertFile: '', tlsPrivateKeyFile: '', certDir: dir, hosts: HOSTS, log: r4.log });
    expect(fourth.source).toBe('generated');
    expect(r4.lines[0]?.fields?.['reason']).toMatch(/key does not parse/);
    expect(readFileSync(join(dir, CERT_FILE), 'utf8')).toBe(fourth.certPem);
  });
  it('serves given files; the CA for clients is the last certificate of a chain', async () => {
    const d = tmp();
    const m = material(new Date(), HOSTS);
    writeFileSync(join(d, 'tls.crt'), m.cert + m.caCert);
    writeFileSync(join(d, 'tls.key'), m.key);
    const got = await loadServingMaterial({ tlsCertFile: join(d, 'tls.crt'), tlsPrivateKeyFile: join(d, 'tls.key'), certDir: '', hosts: HOSTS, log: recorder().log });
    expect(got.source).toBe('files');
    expect(got.caPem.trim()).toBe(m.caCert.trim());
  });
  it('names the flag and file when a given file is missing or the key does not match', async () => {
    const d = tmp();
    const m = material(new Date(), HOSTS);
    writeFileSync(join(d, 'tls.crt'), m.cert);
    writeFileSync(join(d, 'tls.key'), m.caKey);
    await expect(loadServingMaterial({ tlsCertFile: join(d, 'nope.crt'), tlsPrivateKeyFile: join(d, 'tls.key'), certDir: '', hosts: HOSTS, log: recorder().log })).rejects.toThrow(/--tls-cert-file .*nope\.crt/);
    await expect(loadServingMaterial({ tlsCertFile: join(d, 'tls.crt'), tlsPrivateKeyFile: join(d, 'tls.key'), certDir: '', hosts: HOSTS, log: recorder().log })).rejects.toThrow(/does not match/);
  });
});
