// Test-local pieces for the node servers: a CA with server and client
// certificates, stub Authenticator/authorize implementing the contracts, a
// started server that the test's afterEach stops, and small HTTP(S) clients.
import { EventEmitter, once } from 'node:events';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { generateKeyPair, issueCertificate, privateKeyPem, type KeyPair } from '../../../src/pki/x509.js';
import { createNodeServer, type NodeServer, type NodeServerOptions } from '../../../src/server/http/index.js';
import type { Authenticator, AuthnRequest, HttpRequestRecord, UserInfo } from '../../../src/server/types.js';
import { freePort } from '../../helpers/net.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

export interface Pki {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client certificate from another CA: presented, not verified. */
  strangerCert: string;
  strangerKey: string;
}

function ca(cn: string): { pem: string; key: KeyPair; subject: { commonName: string } } {
  const key = generateKeyPair();
  const subject = { commonName: cn };
  const now = Date.now();
  const pem = issueCertificate({ subject, publicKey: key.publicKey, selfKey: key.privateKey, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3600_000), isCA: true });
  return { pem, key, subject };
}

function leaf(issuer: ReturnType<typeof ca>, cn: string, usage: 'server' | 'client', hosts: string[] = []): { cert: string; key: string } {
  const key = generateKeyPair();
  const now = Date.now();
  const cert = issueCertificate({
    subject: { commonName: cn, organizations: usage === 'client' ? ['system:masters'] : [] },
    publicKey: key.publicKey,
    issuer: { subject: issuer.subject, privateKey: issuer.key.privateKey, publicKey: issuer.key.publicKey },
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 3600_000),
    isCA: false,
    hosts,
    usage,
  });
  return { cert, key: privateKeyPem(key.privateKey) };
}

export function makePki(): Pki {
  const root = ca('test-ca');
  const other = ca('other-ca');
  const server = leaf(root, 'node-1', 'server', ['127.0.0.1', 'localhost']);
  const client = leaf(root, 'admin', 'client');
  const stranger = leaf(other, 'stranger', 'client');
  return { ca: root.pem, serverCert: server.cert, serverKey: server.key, clientCert: client.cert, clientKey: client.key, strangerCert: stranger.cert, strangerKey: stranger.key };
}

/** x509 (the verified certificate's CN and O), then `Bearer good-<name>`, then anonymous when allowed. */
export function stubAuthenticator(anonymous: boolean, seen: AuthnRequest[] = []): Authenticator {
  return {
    authenticate: async (req) => {
      seen.push(req);
      if (req.clientCertificateError !== undefined) return { kind: 'unauthorized', reason: req.clientCertificateError };
      if (req.clientCertificate !== undefined) {
        const o = req.clientCertificate.subject.O;
        return { kind: 'user', via: 'x509', user: { name: String(req.clientCertificate.subject.CN), groups: o === undefined ? [] : [o].flat() } };
      }
      const m = /^Bearer good-(.+)$/.exec(req.authorization ?? '');
      if (m !== null) return { kind: 'user', via: 'token', user: { name: m[1]!, groups: ['system:authenticated'] } };
      if (req.authorization !== undefined) return { kind: 'unauthorized', reason: 'token rejected' };
      if (anonymous) return { kind: 'user', via: 'anonymous', user: { name: 'system:anonymous', groups: ['system:unauthenticated'] } };
      return { kind: 'unauthorized', reason: 'no credentials' };
    },
  };
}

export type AuthzCall = { user: UserInfo; method: string; path: string };

/** Denies the user named `denied` (and anonymous on /configz) with the kubelet's message shape. */
export function stubAuthorize(calls: AuthzCall[] = []): NonNullable<NodeServerOptions['auth']>['authorize'] {
  return async (r) => {
    calls.push(r);
    if (r.user.name === 'denied' || (r.user.name === 'system:anonymous' && r.path === '/configz')) {
      return { allowed: false, reason: `Forbidden (user=${r.user.name}, verb=get, resource=nodes, subresource=proxy)` };
    }
    return { allowed: true };
  };
}

export interface Started {
  server: NodeServer;
  port: number;
  records: LogRecord[];
  observed: HttpRequestRecord[];
  /** Resolves once the observer has heard of `n` requests in all (it hears after the server side closed). */
  observedAtLeast(n: number): Promise<void>;
  stop: () => Promise<void>;
}

/** Starts a node server on a free loopback port; `stops` collects the stop for afterEach. */
export async function startNodeServer(o: Omit<NodeServerOptions, 'address' | 'port' | 'log'> & { port?: number }, stops: Array<() => Promise<void>>): Promise<Started> {
  const port = o.port ?? (await freePort());
  const records: LogRecord[] = [];
  const observed: HttpRequestRecord[] = [];
  const events = new EventEmitter();
  const observedAtLeast = async (n: number): Promise<void> => {
    while (observed.length < n) await once(events, 'record');
  };
  const observe = (r: HttpRequestRecord): void => {
    observed.push(r);
    events.emit('record');
  };
  const server = createNodeServer({ observer: { observe }, ...o, address: '127.0.0.1', port, log: testLogger(records) });
  const ctl = new AbortController();
  const running = server.run(ctl.signal);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    ctl.abort();
    await running;
  };
  stops.push(stop);
  await server.ready;
  return { server, port, records, observed, observedAtLeast, stop };
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Ask {
  method?: string;
  headers?: Record<string, string>;
  /** Client certificate and key; none when absent. */
  cert?: { cert: string; key: string };
  body?: string;
}

/** One request on a fresh connection (no agent), HTTPS when `ca` is given. */
export function ask(port: number, path: string, ca: string | undefined, a: Ask = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const common = { host: '127.0.0.1', port, path, method: a.method ?? 'GET', headers: a.headers, agent: false as const };
    const onRes = (res: import('node:http').IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    };
    const req = ca === undefined ? httpRequest(common, onRes) : httpsRequest({ ...common, ca, cert: a.cert?.cert, key: a.cert?.key }, onRes);
    req.on('error', reject);
    req.end(a.body);
  });
}
