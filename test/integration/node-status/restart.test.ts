// The node agent across API server outages (over etcd, so the cluster's state
// outlives the server process): started while nothing listens, it keeps
// trying and registers once the server comes up; when the server stops it
// logs the failing status update once (the node turned NotReady meanwhile:
// something to report), and when a new server process serves
// the same port and data again the status and the lease resume. The client
// skips the server certificate check: each server process generates its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiObject } from '../../../src/api/codec/index.js';
import { createNodeAgent } from '../../../src/node-status/index.js';
import { startServer, type ServerHandle } from '../../conformance/helpers/server.js';
import { skipWithoutEtcd, startEtcd, type TestEtcd } from '../../helpers/etcd.js';
import { freePort } from '../../helpers/net.js';
import { apiClient, clientCa, HOST, recordingLog, resolved, until, type ClientCa } from './helpers.js';

const spec = (o: ApiObject): Record<string, unknown> => (o['spec'] ?? {}) as Record<string, unknown>;
const conditions = (o: ApiObject): Array<Record<string, unknown>> => ((o['status'] as Record<string, unknown> | undefined)?.['conditions'] ?? []) as Array<Record<string, unknown>>;

describe.skipIf(skipWithoutEtcd('node agent restart'))('node agent across API server restarts [etcd]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'node-agent-restart-'));
  let etcd: TestEtcd;
  let ca: ClientCa;
  let srv: ServerHandle | undefined;

  beforeAll(async () => {
    ca = clientCa(dir);
    etcd = await startEtcd();
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const serve = (port: number): Promise<ServerHandle> =>
    startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, etcdPrefix: '/node-agent-restart', extraArgs: [`--client-ca-file=${ca.file}`, `--secure-port=${port}`] });

  it('registers once the server is up, and resumes status and lease after the server restarts', async () => {
    const port = await freePort();
    const client = await apiClient({
      server: `https://127.0.0.1:${port}`,
      ca: undefined,
      insecureSkipTlsVerify: true,
      tlsServerName: undefined,
      clientCert: ca.issue('nr-1'),
      token: undefined,
      tokenFile: undefined,
      namespace: 'default',
      source: { file: 'test', context: 'test' },
    }, { maxRetries: 1, initialBackoffMs: 50, maxBackoffMs: 100 });
    const log = recordingLog();
    const updates: string[] = [];
    let health: string | undefined;
    const agent = createNodeAgent({
      client,
      resolved: await resolved([`--root-dir=${dir}`]),
      nodeName: 'nr-1',
      version: 'v0.1.0-test',
      log,
      host: async () => HOST,
      onStatusUpdate: (u) => void updates.push(u),
      health: () => health,
      timing: { statusUpdateMs: 200, leaseDurationSeconds: 2, registerBackoff: { initialMs: 50, maxMs: 400 } },
    });
    const ac = new AbortController();
    const running = agent.run(ac.signal);
    try {
      await agent.ready;
      await until('a failed registration', async () => (log.count(/Unable to register node/) > 0 ? true : undefined));
      srv = await serve(port);
      const ref = await agent.registered();
      expect(log.count(/Unable to register node/)).toBe(1);
      const node = async (): Promise<ApiObject | undefined> => {
        const res = await srv?.admin.get('/api/v1/nodes/nr-1');
        return res?.status === 200 ? (res.json() as ApiObject) : undefined;
      };
      await until('Ready', async () => {
        const n = await node();
        return n !== undefined && conditions(n).some((c) => c['type'] === 'Ready' && c['status'] === 'True') ? n : undefined;
      });

      await srv.stop();
      srv = undefined;
      // Something to report while the server is away (an idle node sends nothing but its lease).
      health = 'PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s';
      const failedBefore = updates.filter((u) => u === 'failed').length;
      await until('two failed status updates', async () => (updates.filter((u) => u === 'failed').length >= failedBefore + 2 ? true : undefined));
      expect(log.count(/Unable to update node status/)).toBe(1);

      srv = await serve(port);
      const seen = updates.length;
      await until('a status update after the restart', async () => (updates.slice(seen).some((u) => u !== 'failed') ? true : undefined));
      expect(log.count(/Node status updated again/)).toBe(1);
      const notReady = conditions((await node()) ?? {}).find((c) => c['type'] === 'Ready');
      expect(notReady).toMatchObject({ status: 'False', reason: 'AgentNotReady', message: health });
      expect((await node())?.['metadata']).toMatchObject({ uid: ref.uid });
      const lease = async (): Promise<ApiObject | undefined> => {
        const res = await srv?.admin.get('/apis/coordination.platform.io/v1/namespaces/platform-node-lease/leases/nr-1');
        return res?.status === 200 ? (res.json() as ApiObject) : undefined;
      };
      const before = spec((await until('the lease', lease)))['renewTime'];
      await until('a renewal after the restart', async () => {
        const l = await lease();
        return l !== undefined && spec(l)['renewTime'] !== before ? true : undefined;
      });
    } finally {
      ac.abort(new Error('test done'));
      await running;
      await client.close();
    }
  }, 120_000);
});
