// Issue 19 items 4-6 against the real platform-apiserver (in memory) as the
// node system:node:node1: a pod posted for the node runs and its status
// reaches the API; a deletion stops it and ends with its final status and
// the object gone; a static pod gets a mirror pod, made again after a
// deletion, replaced on an edit and deleted with the static pod; an outage
// of the API server loses no status.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadApiCodec } from '../../../src/api/codec/index.js';
import { MEDIA_PROTOBUF } from '../../../src/api/media.js';
import type { ApiClient, ApiObject, RestClient, Transport } from '../../../src/client/index.js';
import { RESOURCES } from '../../../src/client/index.js';
import { createRestClient } from '../../../src/client/rest/index.js';
import { startServer, type ServerHandle } from '../../conformance/helpers/server.js';
import { testTransport } from '../client/helpers/transport.js';
import { apiPod, NODE, nodeClient, podsOf, staticPod, wire, type Wiring } from './harness.js';

const meta = (o: ApiObject | undefined): Record<string, unknown> => (o?.['metadata'] ?? {}) as Record<string, unknown>;
const statusOf = (o: ApiObject | undefined): Record<string, unknown> => (o?.['status'] ?? {}) as Record<string, unknown>;
const anns = (o: ApiObject | undefined): Record<string, string> => (meta(o)['annotations'] ?? {}) as Record<string, string>;

describe('API pods, pod status, deletion and mirror pods as system:node:node1', () => {
  let srv: ServerHandle;
  let transport: Transport;
  let admin: RestClient;
  let client: ApiClient;
  let w: Wiring;
  const fault = async (action: 'fail' | 'reset', body: Record<string, unknown> = {}): Promise<void> => {
    const res = await srv.admin.post(`/debug/faults/${action}`, body);
    if (res.status !== 200) throw new Error(`fault ${action}: ${res.status} ${res.text()}`);
  };

  beforeAll(async () => {
    srv = await startServer({ backend: 'memory', faults: true });
    transport = await testTransport(srv);
    admin = createRestClient({ transport, codec: await loadApiCodec(), contentType: MEDIA_PROTOBUF, log: { info: () => undefined, warn: () => undefined, error: () => undefined } });
    const node = await admin.resource(RESOURCES.nodes).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
    client = await nodeClient(srv);
    w = wire(client, { name: NODE, uid: String(meta(node)['uid']) }, { statusResyncMs: 1000 });
  }, 60_000);

  afterAll(async () => {
    await w?.stop();
    await client?.close();
    await transport?.close();
    await srv?.stop();
  }, 60_000);

  it('runs a pod posted for the node and writes its status to the API', async () => {
    const created = await podsOf(admin).create(apiPod('web'));
    const uid = String(meta(created)['uid']);
    const pod = await w.until(() => w.apiPods().find((p) => p.metadata.uid === uid), 'the pod in the API source');
    expect(pod.metadata.annotations['platform.io/config.source']).toBe('api');
    const running = await w.until(() => statusOf(w.object('web'))['phase'] === 'Running' && w.object('web'), 'Running in the API');
    expect(statusOf(running)).toMatchObject({ phase: 'Running', hostIP: '127.0.0.1', containerStatuses: [{ name: 'main', ready: true }] });
    expect((statusOf(running)['conditions'] as Array<{ type: string; status: string }>).find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('a deletion stops the pod with its grace period, writes the final status and deletes the object', async () => {
    await w.until(() => statusOf(w.object('web'))['phase'] === 'Running', 'web running');
    const uid = String(meta(w.object('web'))['uid']);
    await podsOf(admin).delete('web', { gracePeriodSeconds: 3 });
    const last = await w.until(() => w.deleted.find((o) => meta(o)['uid'] === uid), 'the pod deleted from the API');
    // Its final status was written before the delete: terminal, the container terminated, not ready.
    expect(statusOf(last)).toMatchObject({ phase: 'Failed', containerStatuses: [{ name: 'main', ready: false, state: { terminated: { exitCode: 137 } } }] });
    expect(w.status.get(uid)).toBeUndefined();
    expect(w.runtime.calls.some((c) => c.method === 'stopContainer')).toBe(true);
    // The informer may see the deletion before the delete call has returned and logged.
    await vi.waitFor(() => expect(w.log.records.some((r) => r.msg === 'Pod deleted from the API server after its final status' && r.fields['podUID'] === uid)).toBe(true), { timeout: 5_000, interval: 20 });
    expect(w.log.records.some((r) => r.msg === 'Pod deleted through the API; stopping it' && r.fields['gracePeriod'] === 3)).toBe(true);
  });

  it('creates a mirror pod for a static pod, makes it again after a deletion, replaces it on an edit and deletes it with the static pod', async () => {
    const v1 = staticPod('etcd');
    w.setStatic([v1]);
    const mirror = await w.until(() => w.object(v1.metadata.name), 'the mirror pod');
    expect(anns(mirror)['platform.io/config.mirror']).toBe(v1.metadata.annotations['platform.io/config.hash']);
    expect(meta(mirror)['ownerReferences']).toMatchObject([{ kind: 'Node', name: NODE, controller: true }]);
    // The static pod's status is written to its mirror.
    await w.until(() => statusOf(w.object(v1.metadata.name))['phase'] === 'Running', 'the static pod status on the mirror');
    // Someone deletes the mirror: it comes back under a new uid.
    const firstUid = String(meta(mirror)['uid']);
    await podsOf(admin).delete(v1.metadata.name);
    const again = await w.until(() => {
      const o = w.object(v1.metadata.name);
      return o !== undefined && meta(o)['uid'] !== firstUid && meta(o)['deletionTimestamp'] === undefined && o;
    }, 'the mirror made again');
    // An edit changes the hash: the mirror is replaced.
    const edited = staticPod('etcd');
    edited.metadata.labels = { edited: 'yes' };
    // Same uid, new content hash: what the file source hands on after an edit.
    const { applyStaticPodDefaults } = await import('../../../src/sources/static-pod.js');
    const next = applyStaticPodDefaults({ ...edited, metadata: { ...edited.metadata, name: 'etcd', annotations: {} } }, NODE, 'file', '/m/etcd.yaml', new Date());
    expect(next.metadata.annotations['platform.io/config.hash']).not.toBe(v1.metadata.annotations['platform.io/config.hash']);
    w.setStatic([next]);
    const replaced = await w.until(() => {
      const o = w.object(v1.metadata.name);
      return o !== undefined && anns(o)['platform.io/config.mirror'] === next.metadata.annotations['platform.io/config.hash'] && o;
    }, 'the replaced mirror');
    expect(meta(replaced)['uid']).not.toBe(meta(again)['uid']);
    expect(meta(replaced)['labels']).toEqual({ edited: 'yes' });
    // The static pod goes: so does its mirror.
    w.setStatic([]);
    await w.until(() => w.object(v1.metadata.name) === undefined, 'the mirror deleted');
    // Nothing failed on the way (a second delete of a mirror already gone would be refused).
    expect(w.log.records.filter((r) => r.level === 'error')).toEqual([]);
  });

  it('a static pod NodeRestriction refuses a mirror for is logged once; the others get theirs', async () => {
    const from = w.log.records.length;
    const refused = staticPod('with-account', { serviceAccountName: 'builder' });
    const fine = staticPod('plain');
    w.setStatic([refused, fine]);
    await w.until(() => w.object(fine.metadata.name), 'the allowed mirror');
    await w.until(() => w.log.records.some((r) => r.msg === 'Failed to update a mirror pod; will retry'), 'the refusal logged');
    const refusals = w.log.records.slice(from).filter((r) => r.msg === 'Failed to update a mirror pod; will retry');
    expect(refusals, JSON.stringify(refusals)).toHaveLength(1);
    expect(refusals[0]?.fields).toMatchObject({ pod: `default/${refused.metadata.name}`, action: 'create' });
    expect(String(refusals[0]?.fields['error'])).toContain('can not create pods that reference a service account');
    w.setStatic([]);
    await w.until(() => w.object(fine.metadata.name) === undefined, 'the mirror deleted');
  });

  it('a pod rejected at admission gets a Failed status with the reason and message in the API', async () => {
    const bad = apiPod('sysctl');
    (bad['spec'] as Record<string, unknown>)['securityContext'] = { sysctls: [{ name: 'kernel.msgmax', value: '1' }] };
    await podsOf(admin).create(bad);
    const rejected = await w.until(() => statusOf(w.object('sysctl'))['phase'] === 'Failed' && w.object('sysctl'), 'the rejection in the API');
    expect(statusOf(rejected)).toMatchObject({ phase: 'Failed', reason: 'SysctlForbidden' });
    expect(String(statusOf(rejected)['message'])).toContain('kernel.msgmax');
    await podsOf(admin).delete('sysctl', { gracePeriodSeconds: 0 });
    await w.until(() => w.object('sysctl') === undefined, 'the rejected pod gone');
  });

  it('an outage of the API server loses no status: the latest is written once it answers again', async () => {
    await podsOf(admin).create(apiPod('batch'));
    await w.until(() => statusOf(w.object('batch'))['phase'] === 'Running', 'batch running');
    const uid = String(meta(w.object('batch'))['uid']);
    // Every request fails for a while; the pod's container exits meanwhile.
    await fault('fail', { code: 503, count: 1000 });
    const c = w.runtime.containers().find((x) => Object.values(x.config.labels ?? {}).includes(uid) && x.state === 'RUNNING');
    expect(c).toBeDefined();
    if (c) w.runtime.exitContainer(c.id, 0);
    await w.until(() => (w.status.get(uid)?.status.containerStatuses[0]?.restartCount ?? 0) > 0, 'the restart seen by the agent');
    await w.until(() => w.log.records.some((r) => r.msg === 'Failed to update the status of a pod in the API server; will retry'), 'a failed write', 20_000);
    await fault('reset');
    const latest = w.status.get(uid)?.status;
    await w.until(() => {
      const s = statusOf(w.object('batch'))['containerStatuses'] as Array<{ restartCount: number }> | undefined;
      return s !== undefined && s[0]?.restartCount === w.status.get(uid)?.status.containerStatuses[0]?.restartCount && statusOf(w.object('batch'))['phase'] === w.status.get(uid)?.status.phase;
    }, 'the latest status in the API', 20_000);
    expect(latest).toBeDefined();
    await podsOf(admin).delete('batch', { gracePeriodSeconds: 0 });
    await w.until(() => w.object('batch') === undefined, 'batch gone');
  });
});
