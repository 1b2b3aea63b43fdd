// An API server restart loses no pod and no status (issue 19, "Bad input" and
// done-when): the built agent joined as system:node:e2e-node to the built
// platform-apiserver over a private etcd runs an API pod and a static pod
// (with its mirror). The server process stops (etcd keeps the objects), a
// container of the API pod exits meanwhile and is restarted by the agent, the
// server comes back on the same address with the same CA: no container was
// restarted for the outage, the pod's latest status (the restart count)
// reaches the API, the mirror pod is still the same object, the lease renews
// again and a pod posted afterwards runs (the pod watch resumed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle, type ServerOptions } from '../conformance/helpers/server.js';
import { startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { container, linesMatching, logLine, mark, NODE, pod, podContainers, podUid, running, waitFor, waitForLineAfter } from './helpers/agent-node.js';
import { condition, getJson, LEASE_PATH, nodeConfig, renewTime, type Obj } from './helpers/cluster.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('API server restart');

type ContainerStatus = { name: string; ready: boolean; restartCount: number; containerID?: string; state: Record<string, unknown> };
const statusOf = (p: Obj | undefined, name: string): ContainerStatus | undefined =>
  ((p?.status?.['containerStatuses'] as ContainerStatus[] | undefined) ?? []).find((c) => c.name === name);

const apiPod = (name: string, containers: ReturnType<typeof container>[]): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName: NODE, hostNetwork: true, terminationGracePeriodSeconds: 2, containers },
});

describe.skipIf(skip)('an API server restart on a real containerd, platform-apiserver over etcd', () => {
  const env = useRuntime();
  let etcd: TestEtcd;
  let srv: ServerHandle;
  let opts: ServerOptions;
  beforeAll(async () => {
    etcd = await startEtcd();
    opts = { backend: 'etcd', etcdEndpoint: etcd.endpoint, extraArgs: ['--controllers=*'] };
    srv = await startServer(opts);
    opts = { ...opts, etcdPrefix: `/conf-${srv.port}` };
    const sa = await srv.admin.post('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    expect([201, 409]).toContain(sa.status);
  }, 90_000);
  afterAll(async () => {
    await srv?.stop();
    await etcd?.stop();
  }, 60_000);

  it('keeps every pod running through the outage and reports the status that changed meanwhile once the server is back', async () => {
    const node = env.newNode();
    node.writeManifest('static.yaml', pod('static-steady', [container('main')]));
    const agent = await node.start([`--platformconfig=${nodeConfig(node.dir, srv)}`, '--node-status-update-frequency=2s']);
    const staticUid = await podUid(agent, 'static-steady', { timeoutMs: 20_000 });
    const mirrorPath = `/api/v1/namespaces/default/pods/static-steady-${NODE}`;
    const podPath = '/api/v1/namespaces/default/pods/api-steady';
    expect((await srv.admin.post('/api/v1/namespaces/default/pods', apiPod('api-steady', [container('main'), container('flaky')]))).status).toBe(201);

    const up = await waitFor('api-steady Running and Ready', 60_000, async () => {
      const p = await getJson(srv.admin, podPath);
      return p?.status?.['phase'] === 'Running' && condition(p, 'Ready') === 'True' ? p : undefined;
    }, agent);
    const mirror = await waitFor('the mirror pod Running', 60_000, async () => {
      const p = await getJson(srv.admin, mirrorPath);
      return p?.metadata.annotations?.['platform.io/config.mirror'] !== undefined && p.status?.['phase'] === 'Running' ? p : undefined;
    }, agent);
    const apiBefore = await podContainers(env.cri, up.metadata.uid);
    const staticBefore = await podContainers(env.cri, staticUid);
    expect(apiBefore.map((c) => c.state)).toEqual(['RUNNING', 'RUNNING']);
    expect(staticBefore.map((c) => c.state)).toEqual(['RUNNING']);
    const flaky = apiBefore.find((c) => c.name === 'flaky')!;

    // The server goes (SIGTERM; etcd keeps the data), and a container exits while it is away.
    const port = srv.port;
    const dir = srv.dir;
    const m = mark(agent);
    await srv.halt();
    await env.cri.execSync(flaky.id, ['kill', '1'], 10).catch(() => undefined);
    const restarted = await running(env.cri, up.metadata.uid, 'flaky', 30_000, agent, (c) => c.id !== flaky.id);
    expect(restarted.restartCount).toBe(1);
    // The status manager tried to write the change and could not.
    const statusFailed = logLine('Failed to update the status of a pod in the API server; will retry', { pod: 'default/api-steady' });
    await waitForLineAfter(agent, statusFailed, { after: m, timeoutMs: 20_000 });
    // The server stays away until a lease renewal (every 10 s) has failed too.
    await waitForLineAfter(agent, (l) => l.startsWith('E') && l.includes('lease'), { after: m, timeoutMs: 20_000 });
    expect(agent.running).toBe(true);

    // The same server again: same port, certificates, users and etcd prefix.
    srv = await startServer({ ...opts, port, dir });
    const api = srv.admin;
    const reported = await waitFor('the restart count in the API', 60_000, async () => {
      const p = await getJson(api, podPath);
      return statusOf(p, 'flaky')?.restartCount === 1 && condition(p, 'Ready') === 'True' ? p : undefined;
    }, agent, 250);
    expect(reported.metadata.uid).toBe(up.metadata.uid);
    expect(statusOf(reported, 'flaky')?.containerID).toContain(restarted.id);
    expect(statusOf(reported, 'main')).toMatchObject({ restartCount: 0, ready: true });

    // Nothing else was restarted: the same containers, the flaky one replaced once.
    const apiAfter = await podContainers(env.cri, up.metadata.uid);
    expect(apiAfter.filter((c) => c.name === 'main').map((c) => [c.id, c.state])).toEqual(apiBefore.filter((c) => c.name === 'main').map((c) => [c.id, c.state]));
    expect(apiAfter.filter((c) => c.name === 'flaky').map((c) => c.id)).toEqual([flaky.id, restarted.id]);
    expect((await podContainers(env.cri, staticUid)).map((c) => [c.id, c.state])).toEqual(staticBefore.map((c) => [c.id, c.state]));

    // The mirror pod is the same object, still Running; the lease renews again.
    const mirrorAfter = await getJson(api, mirrorPath);
    expect(mirrorAfter?.metadata.uid).toBe(mirror.metadata.uid);
    expect(mirrorAfter?.status?.['phase']).toBe('Running');
    const was = renewTime(await getJson(api, LEASE_PATH(NODE)));
    await waitFor('lease renewed after the restart', 30_000, async () => renewTime(await getJson(api, LEASE_PATH(NODE))) !== was || undefined, agent, 500);
    await waitFor('node Ready', 30_000, async () => condition(await getJson(api, `/api/v1/nodes/${NODE}`), 'Ready') === 'True' || undefined, agent);

    // The pod watch resumed: a pod posted now runs, and its deletion is seen.
    const laterPath = '/api/v1/namespaces/default/pods/api-later';
    expect((await api.post('/api/v1/namespaces/default/pods', apiPod('api-later', [container('main')]))).status).toBe(201);
    await waitFor('api-later Running', 60_000, async () => (await getJson(api, laterPath))?.status?.['phase'] === 'Running' || undefined, agent);
    for (const path of [laterPath, podPath]) {
      expect((await api.delete(path)).status).toBe(200);
      await waitFor(`${path} gone`, 30_000, async () => (await api.get(path)).status === 404 || undefined, agent);
    }
    expect(agent.running).toBe(true);
    // The outage was one problem for the pod's status, logged once.
    expect(linesMatching(agent, statusFailed, m)).toHaveLength(1);
  }, 240_000);
});
