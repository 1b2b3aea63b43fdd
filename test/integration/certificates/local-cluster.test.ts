// packaging/local-cluster/run.sh --no-agent (the control-plane half of the
// one-command local cluster; the agent half needs root and the private
// containerd): it prints "ready" once platform-apiserver answers, its admin
// platformconfig works for any client, and its bootstrap platformconfig
// bootstraps a node whose certificate authenticates as system:node:<name>.
// SIGTERM stops the server (and etcd) with the script.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootstrapClientCertificate } from '../../../src/certificates/index.js';
import { RESOURCES, createApiClient, type ClientLog } from '../../../src/client/index.js';
import { skipWithoutEtcd } from '../../helpers/etcd.js';
import { freePort } from '../../helpers/net.js';

const SCRIPT = new URL('../../../packaging/local-cluster/run.sh', import.meta.url).pathname;
const quiet: ClientLog = { info: () => {}, warn: () => {}, error: () => {} };

/** Starts the script; resolves once it prints the ready line, rejects if it exits first. */
async function startCluster(dir: string, port: number, extra: string[]): Promise<{ proc: ChildProcess; exited: Promise<number | null>; log: () => string }> {
  const proc = spawn('bash', [SCRIPT, '--no-agent', '--dir', dir, '--port', String(port), ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((r) => proc.once('exit', (code, signal) => r(code ?? (signal === null ? null : 128))));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('local-cluster: ready')) resolve();
    });
    void exited.then((code) => reject(new Error(`run.sh exited ${String(code)} before ready:\n${err}`)));
  });
  return { proc, exited, log: () => err };
}

const backends: Array<{ name: string; args: string[]; skip: boolean }> = [
  { name: 'in memory', args: [], skip: false },
  { name: 'over etcd', args: ['--etcd'], skip: skipWithoutEtcd('local-cluster --etcd') },
];

describe('packaging/local-cluster/run.sh', () => {
  for (const b of backends) {
    it.skipIf(b.skip)(`starts platform-apiserver ${b.name}, writes the admin and bootstrap platformconfigs, and a node bootstraps with them`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'local-cluster-'));
      const cluster = await startCluster(dir, await freePort(), b.args);
      try {
        const admin = await createApiClient({ platformconfig: join(dir, 'admin.conf'), platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0, contentType: 'application/json', log: quiet });
        try {
          await admin.rest.resource(RESOURCES.nodes).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'local-node' } });
        } finally {
          await admin.close();
        }
        await bootstrapClientCertificate({ platformconfig: join(dir, 'agent.conf'), bootstrapPlatformconfig: join(dir, 'bootstrap.conf'), certDir: join(dir, 'pki', 'agent'), nodeName: 'local-node', log: quiet, signal: new AbortController().signal });
        const node = await createApiClient({ platformconfig: join(dir, 'agent.conf'), platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0, contentType: 'application/json', log: quiet });
        try {
          expect(((await node.rest.resource(RESOURCES.nodes).get('local-node')).metadata as { name: string }).name).toBe('local-node');
          const denied = await node.rest.resource(RESOURCES.leases, 'platform-node-lease').get('another-node').catch((e: unknown) => e);
          expect((denied as Error).message).toContain('User "system:node:local-node"');
        } finally {
          await node.close();
        }
      } finally {
        cluster.proc.kill('SIGTERM');
        expect(await cluster.exited).toBe(143);
        await rm(dir, { recursive: true, force: true });
      }
    }, 90_000);
  }
});
