import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { parseCsr } from '../../../src/apiserver/controllers/pkcs10.js';
import { ClientCertificateExpiredError, EXPIRED_EXIT_AFTER_MS, createClientCertificateRotation } from '../../../src/certificates/rotation.js';
import { CLIENT_PAIR_PREFIX, pairPaths } from '../../../src/certificates/layout.js';
import { writePair } from '../../../src/certificates/store.js';
import type { ClientRotationOptions } from '../../../src/certificates/rotation.js';
import type { ApiObject, ClientLog, WatchStream } from '../../../src/client/types.js';
import { abortableSleep } from '../../../src/lifecycle/abort.js';
import { generateKeyPair, issueCertificate, privateKeyPem } from '../../../src/pki/x509.js';

const CA = generateKeyPair();
const CA_SUBJECT = { commonName: 'test-ca' };

function signFor(publicKey: ReturnType<typeof generateKeyPair>['publicKey'], commonName: string, notBefore: number, notAfter: number): string {
  return issueCertificate({ subject: { commonName, organizations: ['system:nodes'] }, publicKey, issuer: { subject: CA_SUBJECT, ...CA }, notBefore: new Date(notBefore), notAfter: new Date(notAfter), isCA: false, usage: 'client' });
}

/** A CSR store that fails the first `failCreates` creates (server down), then signs at once for an hour. */
function fakeCsrs(failCreates: number) {
  const objects = new Map<string, ApiObject>();
  let creates = 0;
  return {
    attempts: () => creates,
    client: {
      async create(obj: ApiObject): Promise<ApiObject> {
        creates++;
        if (creates <= failCreates) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
        const spec = obj.spec as { request: string };
        const parsed = parseCsr(Buffer.from(spec.request, 'base64').toString('latin1'));
        const cert = signFor(parsed.publicKey, parsed.commonName, Date.now() - 60_000, Date.now() + 3_600_000);
        const name = (obj.metadata as { name: string }).name;
        objects.set(name, { ...obj, status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: Buffer.from(cert).toString('base64') } });
        return obj;
      },
      async get(name: string): Promise<ApiObject> {
        const o = objects.get(name);
        if (o === undefined) throw new ApiError(404, 'NotFound', 'not found');
        return o;
      },
      async watch(): Promise<WatchStream> {
        throw new Error('unused');
      },
    },
  };
}

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('client certificate rotation', () => {
  it('renews a certificate past its deadline, retrying with back-off while the server is down, and hands the pair to the transport', async () => {
    const certDir = await mkdtemp(join(tmpdir(), 'rot-'));
    dirs.push(certDir);
    const paths = pairPaths(certDir, CLIENT_PAIR_PREFIX);
    const oldKey = generateKeyPair();
    // Issued an hour ago, expiring in a minute: far past the 70-90 % deadline.
    const old = { cert: signFor(oldKey.publicKey, 'system:node:n1', Date.now() - 3_600_000, Date.now() + 60_000), key: privateKeyPem(oldKey.privateKey) };
    await writePair(paths, certDir, old, new Date(Date.now() - 3_600_000));
    const csrs = fakeCsrs(2);
    const handed: Array<{ cert: string; key: string }> = [];
    const warnings: string[] = [];
    const log: ClientLog = { info: () => {}, warn: (m) => warnings.push(m), error: () => {} };
    const delays: number[] = [];
    let idle!: () => void;
    const idled = new Promise<void>((r) => (idle = r));
    const client = {
      rest: { resource: () => csrs.client },
      transport: { setClientCertificate: (c: { cert: string; key: string }) => handed.push(c) },
      connection: { clientCert: undefined },
    } as unknown as ClientRotationOptions['client'];
    const rotation = createClientCertificateRotation({
      client, certDir, nodeName: 'n1', log, random: () => 0,
      sleep: (ms, signal) => {
        if (ms < 60_000) {
          delays.push(ms);
          return Promise.resolve();
        }
        idle();
        return abortableSleep(ms, signal);
      },
    });
    const ac = new AbortController();
    const run = rotation.run(ac.signal).catch((e: unknown) => e);
    await idled;
    ac.abort(new Error('stop'));
    expect(((await run) as Error).message).toBe('stop');

    expect(csrs.attempts()).toBe(3);
    expect(delays).toEqual([2_000, 4_000]);
    expect(warnings).toEqual(['Cannot rotate the client certificate; retrying']);
    expect(handed).toHaveLength(1);
    const current = await readFile(paths.current, 'utf8');
    expect(current).toBe(`${handed[0]!.cert.trimEnd()}\n${handed[0]!.key.trimEnd()}\n`);
    const renewed = new X509Certificate(handed[0]!.cert);
    expect(renewed.subject).toContain('CN=system:node:n1');
    expect(handed[0]!.key).not.toBe(old.key);
    expect((await readdir(certDir)).filter((f) => f.endsWith('.pem'))).toHaveLength(3);
    // The new certificate's deadline is now known, 70 % into its hour.
    expect(rotation.current()?.notAfter.getTime()).toBe(new Date(renewed.validTo).getTime());
  });

  it('with no client certificate at all, waits quietly for the stop', async () => {
    const certDir = await mkdtemp(join(tmpdir(), 'rot-'));
    dirs.push(certDir);
    const warnings: string[] = [];
    const client = { rest: { resource: () => fakeCsrs(0).client }, transport: {}, connection: { clientCert: undefined } } as unknown as ClientRotationOptions['client'];
    let idle!: () => void;
    const idled = new Promise<void>((r) => (idle = r));
    const rotation = createClientCertificateRotation({ client, certDir, nodeName: 'n1', log: { info: () => {}, warn: (m) => warnings.push(m), error: () => {} }, sleep: (ms, s) => (idle(), abortableSleep(ms, s)) });
    const ac = new AbortController();
    const run = rotation.run(ac.signal).catch((e: unknown) => e);
    await rotation.ready;
    await idled;
    ac.abort(new Error('stop'));
    await run;
    expect(warnings).toEqual(['No client certificate to rotate: the platformconfig authenticates otherwise']);
  });
});

describe('an expired client certificate that cannot be renewed', () => {
  it('fails the rotation with ClientCertificateExpiredError once expired for 5 minutes, not before', async () => {
    const certDir = await mkdtemp(join(tmpdir(), 'rot-'));
    dirs.push(certDir);
    const paths = pairPaths(certDir, CLIENT_PAIR_PREFIX);
    const k = generateKeyPair();
    const notAfter = Date.now() - 1_000;
    await writePair(paths, certDir, { cert: signFor(k.publicKey, 'system:node:n1', notAfter - 3_600_000, notAfter), key: privateKeyPem(k.privateKey) }, new Date());
    const csrs = fakeCsrs(1_000_000);
    let clock = Date.now();
    const client = { rest: { resource: () => csrs.client }, transport: {}, connection: { clientCert: undefined } } as unknown as ClientRotationOptions['client'];
    const rotation = createClientCertificateRotation({
      client, certDir, nodeName: 'n1', log: { info: () => {}, warn: () => {}, error: () => {} }, now: () => clock,
      // Each retry wait moves the clock on by what it asked for.
      sleep: async (ms) => void (clock += ms),
    });
    const err = await rotation.run(new AbortController().signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientCertificateExpiredError);
    expect((err as ClientCertificateExpiredError).notAfter.getTime()).toBe(Math.floor(notAfter / 1000) * 1000);
    expect(clock - notAfter).toBeGreaterThan(EXPIRED_EXIT_AFTER_MS);
    expect(clock - notAfter).toBeLessThan(EXPIRED_EXIT_AFTER_MS + 40_000);
  });
});
