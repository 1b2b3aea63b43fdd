// Authentication over real TLS on loopback: the material and options of
// src/server/tls behind a node:https server whose handler does what the HTTP
// core does per request (authnRequestOf, then authenticate). Client
// certificates of the configured CA, of another CA and none; anonymous on and
// off; a client below --tls-min-version.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, issueCertificate, privateKeyPem, type KeyPair } from '../../../src/pki/x509.js';
import { authnRequestOf, createAuthenticator } from '../../../src/server/auth/index.js';
import { loadAgentServingMaterial, mainTlsOptions } from '../../../src/server/tls/index.js';
import { testLogger } from '../../helpers/test-logger.js';

const DAY = 86_400_000;
interface Ca { subject: { commonName: string }; keys: KeyPair; pem: string }
function makeCa(cn: string): Ca {
  const keys = generateKeyPair();
  const subject = { commonName: cn };
  return { subject, keys, pem: issueCertificate({ subject, publicKey: keys.publicKey, selfKey: keys.privateKey, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + DAY), isCA: true }) };
}
function clientCert(ca: Ca, cn: string, orgs: string[], usage: 'client' | 'server' = 'client'): { cert: string; key: string } {
  const k = generateKeyPair();
  const cert = issueCertificate({ subject: { commonName: cn, organizations: orgs }, publicKey: k.publicKey, issuer: { subject: ca.subject, ...ca.keys }, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + DAY), isCA: false, usage });
  return { cert, key: privateKeyPem(k.privateKey) };
}

interface Answer { status: number; body: string }

describe('main port authentication over TLS', () => {
  let dir: string;
  let servingCa: string;
  const servers: { anonymous: boolean; server: Server; port: number }[] = [];
  const clusterCa = makeCa('cluster-ca');
  const otherCa = makeCa('other-ca');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'auth-tls-'));
    await writeFile(join(dir, 'client-ca.crt'), clusterCa.pem);
    const material = await loadAgentServingMaterial({ certDir: join(dir, 'pki'), tlsCertFile: '', tlsPrivateKeyFile: '', hostnames: ['localhost'], addresses: ['127.0.0.1'], log: testLogger() });
    servingCa = material.cert.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)![1]!;
    const { options } = await mainTlsOptions({ material, clientCAFile: join(dir, 'client-ca.crt'), tlsMinVersion: 'VersionTLS13', tlsCipherSuites: [] });
    for (const anonymous of [true, false]) {
      const authn = createAuthenticator({ anonymous, clientCA: true, tokenReview: undefined, cacheTtlMs: 0, log: testLogger() });
      const server = createServer(options, (req, res) => {
        void authn.authenticate(authnRequestOf(req.socket as TLSSocket, req.headers.authorization), new AbortController().signal).then((r) => {
          if (r.kind === 'unauthorized') res.writeHead(401).end('Unauthorized');
          else res.writeHead(200).end(JSON.stringify({ via: r.via, name: r.user.name, groups: r.user.groups }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push({ anonymous, server, port: (server.address() as AddressInfo).port });
    }
  });
  afterAll(async () => {
    for (const s of servers) {
      s.server.closeAllConnections();
      await new Promise((r) => s.server.close(r));
    }
    await rm(dir, { recursive: true, force: true });
  });

  const port = (anonymous: boolean): number => servers.find((s) => s.anonymous === anonymous)!.port;
  function get(anonymous: boolean, creds: { cert?: string; key?: string; maxVersion?: 'TLSv1.2' } = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: port(anonymous), path: '/pods', ca: servingCa, servername: 'localhost', agent: false, ...creds }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('a certificate of the client CA: user = CN, groups = O', async () => {
    const a = await get(false, clientCert(clusterCa, 'jane', ['ops', 'system:masters']));
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body)).toEqual({ via: 'x509', name: 'jane', groups: ['ops', 'system:masters', 'system:authenticated'] });
  });

  it.each([true, false])('a certificate of another CA: 401 (anonymous %s)', async (anonymous) => {
    const a = await get(anonymous, clientCert(otherCa, 'mallory', ['system:masters']));
    expect(a.status).toBe(401);
  });

  it('a certificate of the client CA not meant for client authentication: 401, as upstream', async () => {
    const a = await get(true, clientCert(clusterCa, 'svc', ['system:masters'], 'server'));
    expect(a.status).toBe(401);
  });

  it('no certificate, anonymous on: system:anonymous', async () => {
    const a = await get(true);
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body)).toEqual({ via: 'anonymous', name: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('no certificate, anonymous off: 401', async () => {
    expect((await get(false)).status).toBe(401);
  });

  it('a client below --tls-min-version is refused in the handshake', async () => {
    const err = await get(true, { maxVersion: 'TLSv1.2' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as { code?: string }).code).toBe('EPROTO');
    expect((err as Error).message).toMatch(/protocol version|alert/i);
  });
});

describe('--tls-min-version VersionTLS11', () => {
  it('a TLS 1.1 client connects, as Go serves it when asked', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'auth-tls11-'));
    const material = await loadAgentServingMaterial({ certDir: dir, tlsCertFile: '', tlsPrivateKeyFile: '', hostnames: ['localhost'], addresses: ['127.0.0.1'], log: testLogger() });
    const ca = material.cert.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)![1]!;
    const { options } = await mainTlsOptions({ material, clientCAFile: '', tlsMinVersion: 'VersionTLS11', tlsCipherSuites: [] });
    const server = createServer(options, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const protocol = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/', ca, servername: 'localhost', agent: false, maxVersion: 'TLSv1.1', minVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' }, (res) => {
          const p = (res.socket as TLSSocket).getProtocol() ?? '';
          res.resume();
          res.on('end', () => resolve(p));
        });
        req.on('error', reject);
        req.end();
      });
      expect(protocol).toBe('TLSv1.1');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
