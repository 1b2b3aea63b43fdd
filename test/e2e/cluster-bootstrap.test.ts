// TLS bootstrap, then a client certificate rotation, with the built agent
// (issue 19 item 9) against the built platform-apiserver over a private etcd
// that approves and signs node client requests (--csr-signing=node-client)
// for a short --cluster-signing-duration. The agent starts with a bootstrap
// token (group system:bootstrappers) and no --platformconfig yet: it writes
// its pair into --cert-dir and the platformconfig, registers as
// system:node:e2e-node, and with --rotate-certificates renews the pair at
// 70–90 % of its life without a restart, its lease renewing on after it.
//
// The server backdates notBefore by 5 minutes, so a 150 s signing duration
// gives a 450 s life whose jittered deadline falls 15 to 105 s after issue.
import { X509Certificate } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, USERS, type ServerHandle } from '../conformance/helpers/server.js';
import { startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { field, logLine, mark, NODE, waitFor, waitForLineAfter } from './helpers/agent-node.js';
import { condition, getJson, LEASE_PATH, nodeConfig, renewTime } from './helpers/cluster.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('TLS bootstrap and rotation');

const CSR_PATH = '/apis/certificates.platform.io/v1/certificatesigningrequests';
const CURRENT = 'agent-client-current.pem';

interface Csr {
  metadata: { name: string };
  spec: { signerName: string; username?: string; groups?: string[] };
  status?: { certificate?: string; conditions?: Array<{ type: string; status: string }> };
}

describe.skipIf(skip)('TLS bootstrap and client certificate rotation with the agent binary, platform-apiserver over etcd', () => {
  const env = useRuntime();
  let etcd: TestEtcd;
  let srv: ServerHandle;
  beforeAll(async () => {
    etcd = await startEtcd();
    srv = await startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, extraArgs: ['--controllers=*', '--csr-signing=node-client', '--cluster-signing-duration=150s'] });
  }, 90_000);
  afterAll(async () => {
    await srv?.stop();
    await etcd?.stop();
  }, 60_000);

  it('bootstraps from a bootstrap token to a node certificate and platformconfig, registers, and rotates without a restart', async () => {
    const api = srv.admin;
    const node = env.newNode();
    const certDir = join(node.dir, 'pki');
    const conf = join(node.dir, 'etc', 'agent.conf');
    const bootstrap = nodeConfig(node.dir, srv, USERS.bootstrap.token, 'bootstrap.conf');
    const args = [`--bootstrap-platformconfig=${bootstrap}`, `--platformconfig=${conf}`, `--cert-dir=${certDir}`, '--rotate-certificates', '--node-status-update-frequency=2s'];
    expect(existsSync(conf)).toBe(false);
    const agent = await node.start(args);

    // The pair and the platformconfig that names it.
    await waitForLineAfter(agent, logLine('Wrote the platformconfig for the client certificate'), { timeoutMs: 10_000 });
    const first = new X509Certificate(readFileSync(join(certDir, CURRENT)));
    expect(first.subject).toContain(`CN=system:node:${NODE}`);
    expect(first.subject).toContain('O=system:nodes');
    const firstFile = readlinkSync(join(certDir, CURRENT));
    expect(firstFile).toMatch(/^agent-client-\d{4}(-\d\d){5}\.pem$/);
    expect(readFileSync(conf, 'utf8')).toContain(join(certDir, CURRENT));
    // Asked with the bootstrap identity, approved and issued by the server's controllers.
    const csrs = (await api.get(CSR_PATH)).json() as { items: Csr[] };
    expect(csrs.items).toHaveLength(1);
    expect(csrs.items[0]?.spec).toMatchObject({ signerName: 'platform.io/platform-apiserver-client-agent', username: USERS.bootstrap.name });
    expect(csrs.items[0]?.status?.conditions?.find((c) => c.type === 'Approved')?.status).toBe('True');

    // Registered and Ready as system:node:e2e-node (NodeRestriction lets only that identity create this Node), the lease renewing.
    await waitFor('node Ready', 30_000, async () => condition(await getJson(api, `/api/v1/nodes/${NODE}`), 'Ready') === 'True' || undefined, agent);
    const lease = await waitFor('lease', 20_000, () => getJson(api, LEASE_PATH(NODE)), agent);
    const firstRenew = renewTime(lease);
    await waitFor('lease renewed', 30_000, async () => renewTime(await getJson(api, LEASE_PATH(NODE))) !== firstRenew || undefined, agent, 500);

    // The rotation, in the same process: a new pair with a later notBefore behind the swapped link.
    const deadline = await waitForLineAfter(agent, logLine('Client certificate rotation deadline'), { timeoutMs: 10_000 });
    expect(new Date(field(deadline, 'expiration') ?? '').getTime()).toBe(new Date(first.validTo).getTime());
    const rotated = await waitForLineAfter(agent, logLine('Rotated the client certificate'), { timeoutMs: 150_000 });
    const atRotation = mark(agent);
    const second = new X509Certificate(readFileSync(join(certDir, CURRENT)));
    expect(second.fingerprint256).not.toBe(first.fingerprint256);
    expect(second.subject).toBe(first.subject);
    expect(new Date(second.validFrom).getTime()).toBeGreaterThan(new Date(first.validFrom).getTime());
    expect(readlinkSync(join(certDir, CURRENT))).toBe(field(rotated, 'file')?.split('/').pop());
    expect(readdirSync(certDir).filter((f) => f.startsWith('agent-client-2')).sort()).toEqual([firstFile, readlinkSync(join(certDir, CURRENT))].sort());
    // The renewal was asked as the node itself, through the agent's own client.
    const renewal = ((await api.get(CSR_PATH)).json() as { items: Csr[] }).items.find((c) => c.metadata.name === field(rotated, 'csr'));
    expect(renewal?.spec.username).toBe(`system:node:${NODE}`);
    expect(agent.running).toBe(true);

    // The agent goes on: its lease renews twice more after the rotation (new requests dial with the new pair).
    let renew = renewTime(await getJson(api, LEASE_PATH(NODE)));
    for (let i = 0; i < 2; i++) {
      const was = renew;
      renew = await waitFor('lease renewed after the rotation', 30_000, async () => {
        const t = renewTime(await getJson(api, LEASE_PATH(NODE)));
        return t !== was ? t : undefined;
      }, agent, 500);
    }
    expect(condition(await getJson(api, `/api/v1/nodes/${NODE}`), 'Ready')).toBe('True');
    expect(agent.lines().slice(atRotation).filter((l) => /Unauthorized|\b401\b/.test(l))).toEqual([]);

    // A restart authenticates with the rotated pair alone: no new request, the lease renews.
    expect(agent.kill('SIGTERM')).toBe(true);
    expect((await agent.waitForExit(20_000)).code).toBe(0);
    const again = await node.start(args);
    const was = renewTime(await getJson(api, LEASE_PATH(NODE)));
    await waitFor('lease renewed by the restarted agent', 30_000, async () => renewTime(await getJson(api, LEASE_PATH(NODE))) !== was || undefined, again, 500);
    // (It may rotate again meanwhile, as the node; never with the bootstrap token.)
    const byBootstrap = ((await api.get(CSR_PATH)).json() as { items: Csr[] }).items.filter((c) => c.spec.username === USERS.bootstrap.name);
    expect(byBootstrap).toHaveLength(1);
    expect(again.lines().filter(logLine('Using the bootstrap platformconfig to request a client certificate'))).toEqual([]);
  }, 240_000);
});
