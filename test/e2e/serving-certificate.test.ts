// --rotate-server-certificates end to end: the built agent joined to the
// built platform-apiserver (over a private etcd, --csr-signing=agent-serving)
// as system:node:e2e-node, pods on the private containerd. The agent makes no
// self-signed certificate: its main port fails handshakes while its serving
// request waits for an administrator; once approved and signed, the running
// port presents the certificate (the node's name and IP, from the cluster CA)
// without a restart; a restarted agent serves the stored certificate at once.
import { X509Certificate } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, USERS, type ServerHandle } from '../conformance/helpers/server.js';
import { startEtcd, type TestEtcd } from '../helpers/etcd.js';
import type { AgentDaemon } from '../helpers/agent-daemon.js';
import { NODE, waitFor } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('serving certificate');
const CSRS = '/apis/certificates.platform.io/v1/certificatesigningrequests';
const SIGNER = 'platform.io/agent-serving';

interface Csr {
  metadata: { name: string };
  spec: { signerName: string; username: string; usages: string[] };
  status?: { conditions?: Array<{ type: string }>; certificate?: string };
}

function nodeConfig(dir: string, srv: ServerHandle): string {
  const file = join(dir, 'agent.conf');
  const ca = Buffer.from(srv.ca).toString('base64');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: e2e\n  cluster:\n    server: ${srv.url}\n    certificate-authority-data: ${ca}`,
      'users:',
      `- name: node\n  user:\n    token: ${USERS.e2eNode.token}`,
      'contexts:',
      '- name: e2e\n  context:\n    cluster: e2e\n    user: node',
      'current-context: e2e',
      '',
    ].join('\n'),
  );
  return file;
}

/** The certificate the agent's main port presents to a new connection, verified against `ca` for the node's name. */
function peer(port: number, ca: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, ca, servername: NODE }, () => {
      const cert = s.getPeerCertificate();
      s.destroy();
      resolve(cert);
    });
    s.on('error', reject);
  });
}

function healthz(port: number, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/healthz', ca, servername: NODE, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A non-loopback IPv4 address of this host: --node-ip must be one (the
 * kubelet's validation refuses loopback, and without a node address no
 * serving certificate is asked for).
 */
function hostIp(): string {
  const ip = Object.values(networkInterfaces()).flat().find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
  if (ip === undefined) throw new Error('this host has no non-loopback IPv4 address for --node-ip');
  return ip;
}

const portOf = (args: readonly string[]): number => Number(args.find((a) => a.startsWith('--port='))?.slice('--port='.length));

describe.skipIf(skip)('--rotate-server-certificates against platform-apiserver over etcd', () => {
  const env = useRuntime();
  let etcd: TestEtcd;
  let srv: ServerHandle;
  beforeAll(async () => {
    etcd = await startEtcd();
    srv = await startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, extraArgs: ['--csr-signing=agent-serving'] });
  }, 90_000);
  afterAll(async () => {
    await srv?.stop();
    await etcd?.stop();
  }, 60_000);

  const servingCsrs = async (): Promise<Csr[]> => ((await srv.admin.get(CSRS)).json() as { items: Csr[] }).items.filter((c) => c.spec.signerName === SIGNER);

  it('serves nothing until an administrator approves the request, then the signed certificate without a restart, and the stored one after a restart', async () => {
    const node = env.newNode();
    const pki = join(node.dir, 'pki');
    const ip = hostIp();
    const extra = [`--platformconfig=${nodeConfig(node.dir, srv)}`, '--rotate-server-certificates', `--cert-dir=${pki}`, `--node-ip=${ip}`];
    const args = await node.args(extra);
    const port = portOf(args);
    const agent: AgentDaemon = await node.start([...extra, `--port=${port}`]);

    const pending = await waitFor('the serving request', 30_000, async () => (await servingCsrs())[0], agent);
    expect(pending.spec.username).toBe(`system:node:${NODE}`);
    expect(pending.spec.usages).toEqual(['digital signature', 'server auth']);
    expect(pending.status?.conditions ?? []).toEqual([]);
    await expect(peer(port, srv.ca)).rejects.toThrow();
    expect(existsSync(join(pki, 'agent.crt'))).toBe(false);

    const approval = { ...pending, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'E2eApproval', message: 'approved by the e2e administrator' }] } };
    expect((await srv.admin.put(`${CSRS}/${pending.metadata.name}/approval`, approval)).status).toBe(200);
    const signed = await waitFor('the signed certificate', 30_000, async () => {
      const c = (await srv.admin.get(`${CSRS}/${pending.metadata.name}`)).json() as Csr;
      return c.status?.certificate;
    }, agent);
    const issued = new X509Certificate(Buffer.from(signed, 'base64').toString());
    const presented = await waitFor('the main port presents the signed certificate', 30_000, async () => {
      const p = await peer(port, srv.ca);
      return p.serialNumber === issued.serialNumber ? p : undefined;
    }, agent);
    expect(presented.subject).toMatchObject({ CN: `system:node:${NODE}`, O: 'system:nodes' });
    expect(presented.subjectaltname).toBe(`DNS:${NODE}, IP Address:${ip}`);
    expect(await healthz(port, srv.ca)).toEqual({ status: 200, body: 'ok' });
    expect(readdirSync(pki).filter((f) => f.startsWith('agent-server-')).sort()).toEqual([expect.stringMatching(/^agent-server-\d{4}(-\d\d){5}\.pem$/), 'agent-server-current.pem']);

    agent.kill('SIGTERM');
    await agent.waitForExit(30_000);
    const again = await node.start([...extra, `--port=${port}`]);
    expect((await peer(port, srv.ca)).serialNumber).toBe(issued.serialNumber);
    expect((await servingCsrs()).map((c) => c.metadata.name)).toEqual([pending.metadata.name]);
    expect(again.running).toBe(true);
  }, 180_000);
});
