// A restart of the API server (over etcd, same port and certificates) loses
// no pod status: what changed while it was down reaches the API once it is
// back, and the node's pods keep running throughout.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApiCodec } from '../../../src/api/codec/index.js';
import { MEDIA_PROTOBUF } from '../../../src/api/media.js';
import type { ApiClient, ApiObject, Transport } from '../../../src/client/index.js';
import { RESOURCES } from '../../../src/client/index.js';
import { createRestClient } from '../../../src/client/rest/index.js';
import { startEtcd, type TestEtcd } from '../../helpers/etcd.js';
import { startServer, type ServerHandle } from '../../conformance/helpers/server.js';
import { testTransport } from '../client/helpers/transport.js';
import { apiPod, NODE, nodeClient, podsOf, wire, type Wiring } from './harness.js';

const meta = (o: ApiObject | undefined): Record<string, unknown> => (o?.['metadata'] ?? {}) as Record<string, unknown>;
const restarts = (o: ApiObject | undefined): number | undefined => ((o?.['status'] as { containerStatuses?: Array<{ restartCount?: number }> } | undefined)?.containerStatuses?.[0]?.restartCount);

describe('an API server restart loses no pod status', () => {
  let etcd: TestEtcd;
  let srv: ServerHandle;
  let certs: string;
  let client: ApiClient;
  let w: Wiring;
  const prefix = `/pod-sync-${process.pid}`;
  const serve = (port?: number): Promise<ServerHandle> =>
    startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, etcdPrefix: prefix, extraArgs: [`--cert-dir=${certs}`, ...(port === undefined ? [] : [`--secure-port=${port}`])] });

  beforeAll(async () => {
    etcd = await startEtcd();
    certs = await mkdtemp(join(tmpdir(), 'pod-sync-certs-'));
    srv = await serve();
    const transport: Transport = await testTransport(srv);
    try {
      const admin = createRestClient({ transport, codec: await loadApiCodec(), contentType: MEDIA_PROTOBUF, log: { info: () => undefined, warn: () => undefined, error: () => undefined } });
      const node = await admin.resource(RESOURCES.nodes).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
      await podsOf(admin).create(apiPod('steady'));
      client = await nodeClient(srv);
      w = wire(client, { name: NODE, uid: String(meta(node)['uid']) }, { statusResyncMs: 1000 });
    } finally {
      await transport.close();
    }
  }, 60_000);

  afterAll(async () => {
    await w?.stop();
    await client?.close();
    await srv?.stop();
    await etcd?.stop();
    await rm(certs, { recursive: true, force: true });
  }, 60_000);

  it('writes the status that changed while the server was down once it is back', async () => {
    await w.until(() => restarts(w.object('steady')) === 0, 'steady running in the API');
    const uid = String(meta(w.object('steady'))['uid']);
    await srv.kill();
    const c = w.runtime.containers().find((x) => Object.values(x.config.labels ?? {}).includes(uid) && x.state === 'RUNNING');
    expect(c).toBeDefined();
    if (c) w.runtime.exitContainer(c.id, 0);
    await w.until(() => (w.status.get(uid)?.status.containerStatuses[0]?.restartCount ?? 0) > 0, 'the restart seen by the agent');
    await w.until(() => w.log.records.some((r) => r.msg === 'Failed to update the status of a pod in the API server; will retry'), 'a failed write', 20_000);
    srv = await serve(srv.port);
    const want = w.status.get(uid)?.status.containerStatuses[0]?.restartCount;
    await w.until(() => restarts(w.object('steady')) === want, 'the latest status in the API after the restart', 30_000);
    expect(w.status.get(uid)?.status.phase).toBe('Running');
  }, 60_000);
});
