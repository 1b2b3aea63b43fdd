// The serving certificate rotation with a fake CSR store and a fake clock:
// a stored pair is served at once, a missing one is asked for (retried while
// the server is down), written into --cert-dir and handed to the listeners;
// a changed address asks again; nothing is asked while no address is known.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { AGENT_SERVING_SIGNER } from '../../../src/api/signers.js';
import { parseCsr } from '../../../src/apiserver/controllers/pkcs10.js';
import { SERVER_PAIR_PREFIX, pairPaths } from '../../../src/certificates/layout.js';
import { createServingCertificateRotation, type ServingRotationOptions } from '../../../src/certificates/serving.js';
import type { StatusAddress } from '../../../src/certificates/serving-csr.js';
import { writePair } from '../../../src/certificates/store.js';
import type { ApiObject, ClientLog, WatchStream } from '../../../src/client/types.js';
import { abortableSleep } from '../../../src/lifecycle/abort.js';
import { generateKeyPair, issueCertificate, privateKeyPem } from '../../../src/pki/x509.js';

const CA = generateKeyPair();
const T0 = Date.parse('2026-03-01T00:00:00Z');

function sign(pub: ReturnType<typeof generateKeyPair>['publicKey'], hosts: readonly string[], notBefore: number, notAfter: number): string {
  return issueCertificate({ subject: { commonName: 'system:node:n1', organizations: ['system:nodes'] }, publicKey: pub, issuer: { subject: { commonName: 'ca' }, ...CA }, notBefore: new Date(notBefore), notAfter: new Date(notAfter), isCA: false, hosts });
}

/** Fails the first `down` creates, then signs each request at once for 1000 s from the fake clock. */
function fakeCsrs(down: number, clock: () => number) {
  const created: ApiObject[] = [];
  const objects = new Map<string, ApiObject>();
  let attempts = 0;
  return {
    created,
    client: {
      async create(obj: ApiObject): Promise<ApiObject> {
        if (++attempts <= down) throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
        created.push(obj);
        const p = parseCsr(Buffer.from((obj.spec as { request: string }).request, 'base64').toString('latin1'));
        const cert = sign(p.publicKey, [...p.dnsNames, ...p.ipAddresses], clock(), clock() + 1_000_000);
        objects.set(String((obj.metadata as { name?: string } | undefined)?.name ?? ''), { ...obj, status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: Buffer.from(cert).toString('base64') } });
        return obj;
      },
      async get(name: string): Promise<ApiObject> {
        const o = objects.get(name);
        if (o === undefined) throw new ApiError(404, 'NotFound', 'not found');
        return o;
      },
      async watch(): Promise<WatchStream> {
        throw new Error('unused: the fake signs at once');
      },
    },
  };
}

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

interface Harness {
  certDir: string;
  served: string[];
  warnings: string[];
  sleeps: number[];
  run(untilServed: number): Promise<void>;
}

async function harness(o: { down?: number; addresses: () => StatusAddress[] | undefined; stored?: { hosts: string[]; notBefore: number; notAfter: number }; maxSleeps?: number }): Promise<Harness & { csrs: ReturnType<typeof fakeCsrs> }> {
  const certDir = await mkdtemp(join(tmpdir(), 'serving-'));
  dirs.push(certDir);
  let clock = T0;
  if (o.stored !== undefined) {
    const k = generateKeyPair();
    await writePair(pairPaths(certDir, SERVER_PAIR_PREFIX), certDir, { cert: sign(k.publicKey, o.stored.hosts, o.stored.notBefore, o.stored.notAfter), key: privateKeyPem(k.privateKey) }, new Date(T0 - 1000));
  }
  const csrs = fakeCsrs(o.down ?? 0, () => clock);
  const served: string[] = [];
  const warnings: string[] = [];
  const sleeps: number[] = [];
  const log: ClientLog = { info: () => {}, warn: (m) => warnings.push(m), error: () => {} };
  const client = { rest: { resource: () => csrs.client } } as unknown as ServingRotationOptions['client'];
  return {
    certDir, served, warnings, sleeps, csrs,
    async run(untilServed) {
      const ac = new AbortController();
      const rotation = createServingCertificateRotation({
        client, certDir, nodeName: 'n1', addresses: o.addresses, log, random: () => 0, now: () => clock, addressCheckMs: 60_000,
        sleep: async (ms, signal) => {
          sleeps.push(ms);
          clock += ms;
          if (sleeps.length >= (o.maxSleeps ?? 20)) ac.abort(new Error('too many sleeps'));
          await abortableSleep(0, signal);
        },
      });
      rotation.onRotate((p) => {
        served.push(p.cert);
        if (served.length >= untilServed) ac.abort(new Error('done'));
      });
      await rotation.run(ac.signal).catch((e: Error) => {
        if (e.message !== 'done' && e.message !== 'too many sleeps') throw e;
      });
    },
  };
}

const ADDRS: StatusAddress[] = [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'n1' }];
const sanOf = (pem: string): string | undefined => new X509Certificate(pem).subjectAltName;

describe('serving certificate rotation', () => {
  it('without a certificate asks for one, retrying while the server is down, then writes and serves it', async () => {
    const h = await harness({ down: 2, addresses: () => ADDRS });
    await h.run(1);
    expect(h.served).toHaveLength(1);
    expect(sanOf(h.served[0]!)).toBe('DNS:n1, IP Address:10.0.0.5');
    expect(h.csrs.created.map((c) => (c.spec as { signerName: string }).signerName)).toEqual([AGENT_SERVING_SIGNER]);
    expect(h.sleeps.slice(0, 2)).toEqual([2_000, 4_000]);
    expect(h.warnings).toEqual(['Cannot rotate the serving certificate; retrying']);
    const files = (await readdir(h.certDir)).sort();
    expect(files).toEqual(['agent-server-2026-03-01-00-00-06.pem', 'agent-server-current.pem']);
    expect(await readFile(join(h.certDir, 'agent-server-current.pem'), 'utf8')).toContain(h.served[0]!.trim());
  });

  it('serves a stored unexpired pair at once, then renews it at the deadline', async () => {
    // Valid from T0-1000 s to T0+1000 s: the 70 % deadline (random 0) is T0+400 s.
    const h = await harness({ addresses: () => ADDRS, stored: { hosts: ['n1', '10.0.0.5'], notBefore: T0 - 1_000_000, notAfter: T0 + 1_000_000 } });
    await h.run(2);
    expect(h.csrs.created).toHaveLength(1);
    expect(h.sleeps.reduce((a, b) => a + b, 0)).toBe(400_000);
    expect(h.sleeps.every((s) => s <= 60_000)).toBe(true);
    expect(new X509Certificate(h.served[1]!).serialNumber).not.toBe(new X509Certificate(h.served[0]!).serialNumber);
  });

  it('a stored pair that no longer covers the node addresses is replaced at once', async () => {
    const h = await harness({ addresses: () => ADDRS, stored: { hosts: ['n1', '10.0.0.4'], notBefore: T0 - 1_000, notAfter: T0 + 1_000_000 } });
    await h.run(2);
    expect(h.sleeps).toEqual([]);
    expect(sanOf(h.served[1]!)).toBe('DNS:n1, IP Address:10.0.0.5');
  });

  it('an expired stored pair is not served', async () => {
    const h = await harness({ addresses: () => ADDRS, stored: { hosts: ['n1', '10.0.0.5'], notBefore: T0 - 2_000_000, notAfter: T0 - 1_000 } });
    await h.run(1);
    expect(h.served).toHaveLength(1);
    expect(new Date(new X509Certificate(h.served[0]!).validTo).getTime()).toBeGreaterThan(T0);
  });

  it('asks nothing while no address is known, and asks once one is', async () => {
    let known: StatusAddress[] | undefined;
    const h = await harness({
      addresses: () => {
        const now = known;
        known = ADDRS;
        return now;
      },
    });
    await h.run(1);
    expect(h.sleeps).toEqual([60_000]);
    expect(h.served).toHaveLength(1);
  });
});
