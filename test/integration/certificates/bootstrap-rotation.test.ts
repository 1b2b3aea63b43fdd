// Item 9 against the real platform-apiserver with --csr-signing=node-client:
// a bootstrap token becomes a signed client certificate in --cert-dir and a
// platformconfig that authenticates as system:node:<name>; a second start is
// a no-op; a rotation (clock moved past the deadline) writes a new pair, and
// the next request of the same ApiClient goes out on a new connection that
// presents the new certificate.
import { X509Certificate } from 'node:crypto';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { Agent as HttpsAgent } from 'node:https';
import { lstat, mkdtemp, readFile, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { bootstrapClientCertificate, createClientCertificateRotation, platformConfigValidity } from '../../../src/certificates/index.js';
import { RESOURCES, createApiClient, type ApiClient, type ClientLog } from '../../../src/client/index.js';
import { startServer, USERS, type ServerHandle } from '../../conformance/helpers/server.js';

function recordingLog(onInfo: (msg: string) => void = () => {}): ClientLog & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => {
      lines.push(m);
      onInfo(m);
    },
    warn: (m, f) => lines.push(`WARN ${m} ${JSON.stringify(f)}`),
    error: (m, f) => lines.push(`ERROR ${m} ${JSON.stringify(f)}`),
  };
}

const NODE = 'boot-node-1';
// The https agent's own way to open a connection, for the spy below to call through.
const originalCreate = HttpsAgent.prototype.createConnection;

describe('TLS bootstrap and client certificate rotation against platform-apiserver', () => {
  let srv: ServerHandle;
  let dir: string;
  const clients: ApiClient[] = [];
  beforeAll(async () => {
    srv = await startServer({ backend: 'memory', extraArgs: ['--csr-signing=node-client'] });
    dir = await mkdtemp(join(tmpdir(), 'agent-certs-'));
    await writeFile(
      join(dir, 'bootstrap.conf'),
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: srv.url, 'certificate-authority-data': Buffer.from(srv.ca).toString('base64') } }],
        users: [{ name: 'bootstrap', user: { token: USERS.bootstrap.token } }],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'bootstrap' } }],
        'current-context': 'c',
      }),
    );
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await srv?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  const opts = () => ({ platformconfig: join(dir, 'etc', 'agent.conf'), bootstrapPlatformconfig: join(dir, 'bootstrap.conf'), certDir: join(dir, 'pki'), nodeName: NODE, signal: new AbortController().signal });

  it('bootstraps from a bootstrap token to a certificate for system:node:<name> and a platformconfig that authenticates as the node', async () => {
    const log = recordingLog();
    expect((await platformConfigValidity(opts().platformconfig, new Date())).valid).toBe(false);
    await bootstrapClientCertificate({ ...opts(), log });
    const files = (await readdir(join(dir, 'pki'))).sort();
    expect(files).toHaveLength(2);
    expect(files[1]).toBe('agent-client-current.pem');
    expect(files[0]).toMatch(/^agent-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);
    expect((await lstat(join(dir, 'pki', 'agent-client-current.pem'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(dir, 'pki', 'agent-client-current.pem'))).toBe(files[0]);
    expect(((await lstat(join(dir, 'pki', files[0]!))).mode & 0o777).toString(8)).toBe('600');
    const cert = new X509Certificate(await readFile(join(dir, 'pki', 'agent-client-current.pem')));
    expect(cert.subject).toContain(`CN=system:node:${NODE}`);
    expect(cert.subject).toContain('O=system:nodes');
    expect((await platformConfigValidity(opts().platformconfig, new Date())).valid).toBe(true);

    const client = await createApiClient({ platformconfig: opts().platformconfig, platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0, contentType: 'application/json', log: recordingLog() });
    clients.push(client);
    expect((await srv.admin.post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } })).status).toBe(201);
    const node = await client.rest.resource(RESOURCES.nodes).get(NODE);
    expect((node.metadata as { name: string }).name).toBe(NODE);
    const err = await client.rest.resource(RESOURCES.leases, 'platform-node-lease').get('someone-else').catch((e: unknown) => e);
    expect(String((err as Error).message)).toContain(`User "system:node:${NODE}" cannot get resource "leases"`);

    // A second start finds the platformconfig valid: no new request, no new file.
    const again = recordingLog();
    await bootstrapClientCertificate({ ...opts(), log: again });
    expect(await readdir(join(dir, 'pki'))).toHaveLength(2);
    expect(again.lines).toEqual([]);
  }, 60_000);

  it('rotates past the deadline, and the same ApiClient then connects with the new certificate', async () => {
    const client = clients[0]!;
    const before = new X509Certificate(await readFile(join(dir, 'pki', 'agent-client-current.pem')));
    // The clock stands 300 days on (past any 70-90 % deadline of the year-long certificate, before its expiry) until the rotation is logged, then back at now.
    let shiftMs = 300 * 86_400_000;
    let rotated!: () => void;
    const done = new Promise<void>((r) => (rotated = r));
    const log = recordingLog((m) => {
      if (m === 'Rotated the client certificate') {
        shiftMs = 0;
        rotated();
      }
    });
    const rotation = createClientCertificateRotation({ client, certDir: join(dir, 'pki'), nodeName: NODE, log, now: () => Date.now() + shiftMs, random: () => 0 });
    const ac = new AbortController();
    let failure: unknown;
    const running = rotation.run(ac.signal).catch((e: unknown) => (failure = e));
    try {
      await Promise.race([done, running]);
      expect(failure).toBeUndefined();
    } finally {
      ac.abort(new Error('test over'));
      await running;
    }
    const after = new X509Certificate(await readFile(join(dir, 'pki', 'agent-client-current.pem')));
    expect(after.fingerprint256).not.toBe(before.fingerprint256);
    expect(after.subject).toBe(before.subject);
    expect(await readdir(join(dir, 'pki'))).toHaveLength(3);

    // Every new connection of the client's https agents, and the certificate it presents once TLS is up.
    const presented: string[] = [];
    const create = vi.spyOn(HttpsAgent.prototype, 'createConnection');
    create.mockImplementation(function (this: HttpsAgent, ...args: Parameters<HttpsAgent['createConnection']>) {
      const s = originalCreate.apply(this, args) as TLSSocket;
      s.once('secureConnect', () => {
        const c = s.getCertificate();
        if (c !== null && 'fingerprint256' in c) presented.push(c.fingerprint256);
      });
      return s;
    });
    try {
      const node = await client.rest.resource(RESOURCES.nodes).get(NODE);
      expect((node.metadata as { name: string }).name).toBe(NODE);
    } finally {
      create.mockRestore();
    }
    expect(presented).toEqual([after.fingerprint256]);
  }, 60_000);

  it('a rotation while the server is unreachable is retried with back-off and succeeds once it is back', async () => {
    // A loopback TCP relay in front of the server: "down" resets every connection.
    let down = true;
    const sockets = new Set<Socket>();
    const relay = createNetServer((inbound) => {
      sockets.add(inbound);
      inbound.once('close', () => sockets.delete(inbound));
      if (down) {
        inbound.destroy();
        return;
      }
      const outbound = connect(srv.port, '127.0.0.1');
      sockets.add(outbound);
      outbound.once('close', () => sockets.delete(outbound));
      inbound.pipe(outbound).pipe(inbound);
      const end = (): void => {
        inbound.destroy();
        outbound.destroy();
      };
      inbound.once('error', end);
      outbound.once('error', end);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const relayPort = (relay.address() as AddressInfo).port;
    const conf = parse(await readFile(join(dir, 'etc', 'agent.conf'), 'utf8')) as { clusters: Array<{ cluster: { server: string } }> };
    conf.clusters[0]!.cluster.server = `https://127.0.0.1:${relayPort}`;
    await writeFile(join(dir, 'relay.conf'), stringify(conf));
    const client = await createApiClient({ platformconfig: join(dir, 'relay.conf'), platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0, contentType: 'application/json', log: recordingLog() });
    const before = new X509Certificate(await readFile(join(dir, 'pki', 'agent-client-current.pem')));
    let shiftMs = 300 * 86_400_000;
    let failed!: () => void;
    const failedOnce = new Promise<void>((r) => (failed = r));
    let rotated!: () => void;
    const done = new Promise<void>((r) => (rotated = r));
    const log = recordingLog((m) => {
      if (m === 'Rotated the client certificate') {
        shiftMs = 0;
        rotated();
      }
    });
    const warn = log.warn;
    log.warn = (m, f) => {
      warn(m, f);
      failed();
    };
    const rotation = createClientCertificateRotation({ client, certDir: join(dir, 'pki'), nodeName: NODE, log, now: () => Date.now() + shiftMs, random: () => 0 });
    const ac = new AbortController();
    let failure: unknown;
    const running = rotation.run(ac.signal).catch((e: unknown) => (failure = e));
    try {
      await Promise.race([failedOnce, running]);
      expect(failure).toBeUndefined();
      down = false;
      await Promise.race([done, running]);
      expect(failure).toBeUndefined();
    } finally {
      ac.abort(new Error('test over'));
      await running;
      await client.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => relay.close(() => r()));
    }
    expect(log.lines.filter((l) => l.startsWith('WARN'))).toHaveLength(1);
    expect(log.lines.some((l) => l.includes('recovered'))).toBe(true);
    const after = new X509Certificate(await readFile(join(dir, 'pki', 'agent-client-current.pem')));
    expect(after.fingerprint256).not.toBe(before.fingerprint256);
  }, 60_000);
});
