// The main server's half of --rotate-server-certificates on loopback, without
// an API server: a pair given before it listens is served from the first
// connection; one given later reaches new connections only; a pair node:tls
// refuses throws and leaves the previous one in service; the read-only server
// ignores the call.
import { X509Certificate } from 'node:crypto';
import { connect, type PeerCertificate } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKeyPair, issueCertificate, privateKeyPem } from '../../../src/pki/x509.js';
import { createNodeServer } from '../../../src/server/http/index.js';
import { mainTlsOptions } from '../../../src/server/tls/index.js';
import { freePort } from '../../helpers/net.js';
import { testLogger } from '../../helpers/test-logger.js';
import { startNodeServer, stubAuthenticator, stubAuthorize } from '../server/http-harness.js';

const ca = generateKeyPair();
const caPem = issueCertificate({ subject: { commonName: 'swap-ca' }, publicKey: ca.publicKey, selfKey: ca.privateKey, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 3_600_000), isCA: true });

function pair(): { cert: string; key: string; serial: string } {
  const k = generateKeyPair();
  const cert = issueCertificate({ subject: { commonName: 'system:node:n1', organizations: ['system:nodes'] }, publicKey: k.publicKey, issuer: { subject: { commonName: 'swap-ca' }, ...ca }, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 3_600_000), isCA: false, hosts: ['n1', '127.0.0.1'] });
  return { cert, key: privateKeyPem(k.privateKey), serial: new X509Certificate(cert).serialNumber };
}

function peer(port: number): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, ca: caPem, servername: 'n1' }, () => {
      const cert = s.getPeerCertificate();
      s.destroy();
      resolve(cert);
    });
    s.on('error', reject);
  });
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

const auth = { authenticator: stubAuthenticator(true), authorize: stubAuthorize() };

describe('NodeServer.setServingCertificate', () => {
  it('a pair given before listening is served from the first connection; a later one reaches new connections', async () => {
    const tls = await mainTlsOptions({ material: undefined, clientCAFile: '', tlsMinVersion: '', tlsCipherSuites: [] });
    const port = await freePort();
    const server = createNodeServer({ server: 'main', address: '127.0.0.1', port, tls: tls.options, routes: [], auth, enableDebuggingHandlers: false, log: testLogger() });
    expect(() => server.setServingCertificate({ cert: 'garbage', key: 'garbage' })).toThrow();
    const first = pair();
    server.setServingCertificate(first);
    const ctl = new AbortController();
    const running = server.run(ctl.signal);
    stops.push(async () => {
      ctl.abort();
      await running;
    });
    await server.ready;
    expect((await peer(port)).serialNumber).toBe(first.serial);
    const second = pair();
    server.setServingCertificate(second);
    expect((await peer(port)).serialNumber).toBe(second.serial);
  });

  it('a pair node:tls refuses throws and the previous one stays in service', async () => {
    const first = pair();
    const tls = await mainTlsOptions({ material: first, clientCAFile: '', tlsMinVersion: '', tlsCipherSuites: [] });
    const s = await startNodeServer({ server: 'main', tls: tls.options, routes: [], auth, enableDebuggingHandlers: false }, stops);
    expect(() => s.server.setServingCertificate({ cert: first.cert, key: 'not a key' })).toThrow();
    expect(() => s.server.setServingCertificate({ cert: first.cert, key: pair().key })).toThrow();
    expect((await peer(s.port)).serialNumber).toBe(first.serial);
  });

  it('the read-only server ignores it', async () => {
    const s = await startNodeServer({ server: 'readOnly', tls: undefined, routes: [], auth: undefined, enableDebuggingHandlers: false }, stops);
    expect(() => s.server.setServingCertificate(pair())).not.toThrow();
  });
});
