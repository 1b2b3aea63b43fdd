import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ApiError } from '../../../src/api/errors.js';
import { parseCsr } from '../../../src/apiserver/controllers/pkcs10.js';
import { bootstrapClientCertificate, type BootstrapOptions } from '../../../src/certificates/bootstrap.js';
import { nodeClientCsr } from '../../../src/certificates/csr.js';
import { CLIENT_PAIR_PREFIX, pairPaths } from '../../../src/certificates/layout.js';
import { writePair } from '../../../src/certificates/store.js';
import type { ApiClient } from '../../../src/client/index.js';
import type { ApiObject, ClientLog } from '../../../src/client/types.js';
import { generateKeyPair, issueCertificate, keyPairFromPem, privateKeyPem } from '../../../src/pki/x509.js';

const CA = generateKeyPair();
const caPem = issueCertificate({ subject: { commonName: 'ca' }, publicKey: CA.publicKey, selfKey: CA.privateKey, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000), isCA: true });
const sign = (pub: ReturnType<typeof generateKeyPair>['publicKey'], cn: string, notAfter = Date.now() + 3_600_000): string =>
  issueCertificate({ subject: { commonName: cn, organizations: ['system:nodes'] }, publicKey: pub, issuer: { subject: { commonName: 'ca' }, ...CA }, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(notAfter), isCA: false, usage: 'client' });

/** A bootstrap client whose CSR store refuses the first `down` creates (server down) and then signs at once. */
function fakeClient(down: number, opts: { createError?: Error } = {}) {
  const objects = new Map<string, ApiObject>();
  const stats = { creates: 0, closed: 0, names: [] as string[] };
  const csrs = {
    async create(obj: ApiObject): Promise<ApiObject> {
      stats.creates++;
      if (opts.createError) throw opts.createError;
      if (stats.creates <= down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      const name = (obj.metadata as { name: string }).name;
      stats.names.push(name);
      const p = parseCsr(Buffer.from((obj.spec as { request: string }).request, 'base64').toString('latin1'));
      objects.set(name, { ...obj, status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: Buffer.from(sign(p.publicKey, p.commonName)).toString('base64') } });
      return obj;
    },
    async get(name: string): Promise<ApiObject> {
      const o = objects.get(name);
      if (!o) throw new ApiError(404, 'NotFound', 'nf');
      return o;
    },
  };
  const client = { rest: { resource: () => csrs }, close: async () => void stats.closed++ } as unknown as ApiClient;
  return { stats, factory: async () => client };
}

const quiet = (): ClientLog & { warns: string[] } => {
  const warns: string[] = [];
  return { warns, info: () => {}, warn: (m) => warns.push(m), error: () => {} };
};

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function setup(): Promise<Omit<BootstrapOptions, 'log' | 'bootstrapClient'>> {
  const dir = await mkdtemp(join(tmpdir(), 'boot-'));
  dirs.push(dir);
  const bootstrap = join(dir, 'bootstrap.conf');
  await writeFile(bootstrap, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:6443\n    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}\n    tls-server-name: api.local\nusers:\n- name: b\n  user:\n    token: abcdef.0123456789abcdef\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: b\ncurrent-context: c\n`);
  return { platformconfig: join(dir, 'etc', 'agent.conf'), bootstrapPlatformconfig: bootstrap, certDir: join(dir, 'pki'), nodeName: 'n1', signal: new AbortController().signal, random: () => 0 };
}

describe('bootstrapClientCertificate', () => {
  it('retries while the server is down (logged once), then writes the pair and a platformconfig with the bootstrap server and CA', async () => {
    const o = await setup();
    const { stats, factory } = fakeClient(3);
    const log = quiet();
    const delays: number[] = [];
    await bootstrapClientCertificate({ ...o, log, bootstrapClient: factory, sleep: async (ms) => void delays.push(ms) });
    expect(stats.creates).toBe(4);
    expect(delays).toEqual([2_000, 4_000, 8_000]);
    expect(stats.closed).toBe(1);
    expect(log.warns).toEqual(['Cannot request the client certificate; retrying']);
    expect((await readdir(o.certDir)).sort()).toEqual([expect.stringMatching(/^agent-client-[\d-]+\.pem$/), 'agent-client-current.pem']);
    const conf = parse(await readFile(o.platformconfig, 'utf8')) as { clusters: Array<{ cluster: Record<string, unknown> }>; users: Array<{ user: Record<string, unknown> }>; 'current-context': string };
    expect(conf.clusters[0]!.cluster).toEqual({ server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from(caPem).toString('base64'), 'tls-server-name': 'api.local' });
    const current = pairPaths(o.certDir, CLIENT_PAIR_PREFIX).current;
    expect(conf.users[0]!.user).toEqual({ 'client-certificate': current, 'client-key': current });
    // Valid now: a second call does nothing.
    const again = fakeClient(0);
    await bootstrapClientCertificate({ ...o, log: quiet(), bootstrapClient: again.factory });
    expect(again.stats.creates).toBe(0);
  });

  it('with no --bootstrap-platformconfig does nothing', async () => {
    const o = await setup();
    const { stats, factory } = fakeClient(0);
    await bootstrapClientCertificate({ ...o, bootstrapPlatformconfig: '', log: quiet(), bootstrapClient: factory });
    expect(stats.creates).toBe(0);
  });

  it('reuses a still-valid current pair of the cert dir without asking, and re-asks for an expired one', async () => {
    const o = await setup();
    const paths = pairPaths(o.certDir, CLIENT_PAIR_PREFIX);
    const k = generateKeyPair();
    await writePair(paths, o.certDir, { cert: sign(k.publicKey, 'system:node:n1'), key: privateKeyPem(k.privateKey) }, new Date());
    const first = fakeClient(0);
    await bootstrapClientCertificate({ ...o, log: quiet(), bootstrapClient: first.factory });
    expect(first.stats.creates).toBe(0);
    expect(await readFile(o.platformconfig, 'utf8')).toContain(paths.current);

    await writePair(paths, o.certDir, { cert: sign(k.publicKey, 'system:node:n1', Date.now() - 1_000), key: privateKeyPem(k.privateKey) }, new Date(Date.now() + 1_000));
    const second = fakeClient(0);
    await bootstrapClientCertificate({ ...o, log: quiet(), bootstrapClient: second.factory });
    expect(second.stats.creates).toBe(1);
  });

  it('keeps the pending key in agent-client.key.tmp, so an interrupted bootstrap asks again under the same CSR name; removes it on success', async () => {
    const o = await setup();
    const ac = new AbortController();
    const down = fakeClient(1_000);
    const log = quiet();
    const interrupted = bootstrapClientCertificate({ ...o, signal: ac.signal, log: { ...log, warn: (m) => (log.warns.push(m), ac.abort(new Error('stopped'))) }, bootstrapClient: down.factory });
    await expect(interrupted).rejects.toThrow('stopped');
    const keyTmp = pairPaths(o.certDir, CLIENT_PAIR_PREFIX).keyTmp;
    const pending = await readFile(keyTmp, 'utf8');
    const up = fakeClient(0);
    await bootstrapClientCertificate({ ...o, log: quiet(), bootstrapClient: up.factory });
    expect(up.stats.names).toEqual([nodeClientCsr('n1', keyPairFromPem(pending)).name]);
    await expect(readFile(keyTmp, 'utf8')).rejects.toThrow(/ENOENT/);
    expect(await readFile(pairPaths(o.certDir, CLIENT_PAIR_PREFIX).current, 'utf8')).toContain(pending.trim());
  });

  it('a request the server refuses as invalid ends the bootstrap at once', async () => {
    const o = await setup();
    const { stats, factory } = fakeClient(0, { createError: new ApiError(422, 'Invalid', 'bad name') });
    await expect(bootstrapClientCertificate({ ...o, log: quiet(), bootstrapClient: factory })).rejects.toThrow('bad name');
    expect(stats.creates).toBe(1);
  });
});
