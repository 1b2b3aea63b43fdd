// An API server restart loses no pod and no status (issue 19, "Bad input" and
// done-when): the built agent joined as system:node:e2e-node to the built
// platform-apiserver over a private etcd runs an API pod and a static pod
// (with its mirror). The server process stops or crashes (etcd keeps the
// objects), a container of each pod exits meanwhile and is restarted by the
// agent, the server comes back on the same address with the same CA: no
// container was restarted for the outage, the pods' latest status (the
// restart counts) reaches the API (the static pod's through its mirror, still
// the same object), the lease renews again and a pod posted afterwards runs
// (the pod watch resumed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle, type ServerOptions } from '../conformance/helpers/server.js';
import { startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { container, logLine, mark, NODE, pod, podContainers, podUid, running, waitFor, waitForLineAfter } from './helpers/agent-node.js';
import { condition, getJson, LEASE_PATH, nodeConfig, renewTime, type Obj, createDefaultServiceAccount, runningInApi } from './helpers/cluster.js';
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
    await createDefaultServiceAccount(srv);
  }, 90_000);
  afterAll(async () => {
    await srv?.stop();
    await etcd?.stop();
  }, 60_000);

  // SIGTERM: the server closes its connections; SIGKILL: a crash, the agent's watches and requests cut off.
  it.each(['SIGTERM', 'SIGKILL'] as const)('keeps every pod running through an outage (%s) and reports the status that changed meanwhile once the server is back', async (signal) => {
    const tag = signal.toLowerCase();
    // An earlier case that failed while the server was away leaves it halted.
    if (srv.proc.exitCode !== null || srv.proc.signalCode !== null) srv = await startServer({ ...opts, port: srv.port, dir: srv.dir });
    const node = env.newNode();
    node.writeManifest('static.yaml', pod(`static-${tag}`, [container('main')]));
    const agent = await node.start([`--platformconfig=${nodeConfig(node.dir, srv)}`, '--node-status-update-frequency=2s']);
    const staticUid = await podUid(agent, `static-${tag}`, { timeoutMs: 20_000 });
    const mirrorPath = `/api/v1/namespaces/default/pods/static-${tag}-${NODE}`;
    const podPath = `/api/v1/namespaces/default/pods/api-${tag}`;
    expect((await srv.admin.post('/api/v1/namespaces/default/pods', apiPod(`api-${tag}`, [container('main'), container('flaky')]))).status).toBe(201);

    const up = await runningInApi(srv.admin, podPath, agent, 'the API pod Running and Ready');
    const mirror = await waitFor('the mirror pod Running', 60_000, async () => {
      const p = await getJson(srv.admin, mirrorPath);
      return p?.metadata.annotations?.['platform.io/config.mirror'] !== undefined && p.status?.['phase'] === 'Running' ? p : undefined;
    }, agent);
    const apiBefore = await podContainers(env.cri, up.metadata.uid);
    const [staticBefore] = await podContainers(env.cri, staticUid);
    expect(apiBefore.map((c) => c.state)).toEqual(['RUNNING', 'RUNNING']);
    expect(staticBefore?.state).toBe('RUNNING');
    const flaky = apiBefore.find((c) => c.name === 'flaky')!;

    // The server goes (etcd keeps the data); a container of each pod exits while it is away and is restarted.
    const port = srv.port;
    const dir = srv.dir;
    const m = mark(agent);
    await srv.halt(signal);
    for (const c of [flaky, staticBefore!]) await env.cri.execSync(c.id, ['kill', '1'], 10).catch(() => undefined);
    const restarted = await running(env.cri, up.metadata.uid, 'flaky', 30_000, agent, (c) => c.id !== flaky.id);
    const staticRestarted = await running(env.cri, staticUid, 'main', 30_000, agent, (c) => c.id !== staticBefore!.id);
    expect([restarted.restartCount, staticRestarted.restartCount]).toEqual([1, 1]);
    // The status manager tried to write the changes and could not (said once for the problem, whichever pod met it first).
    const statusFailed = logLine('Failed to update the status of a pod in the API server; will retry');
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
    const back = mark(agent);
    expect(reported.metadata.uid).toBe(up.metadata.uid);
    expect(statusOf(reported, 'flaky')?.containerID).toContain(restarted.id);
    expect(statusOf(reported, 'main')).toMatchObject({ restartCount: 0, ready: true });
    // The static pod's status reaches its mirror, which is the same object as before.
    const mirrorAfter = await waitFor('the static restart count on the mirror', 60_000, async () => {
      const p = await getJson(api, mirrorPath);
      return statusOf(p, 'main')?.restartCount === 1 ? p : undefined;
    }, agent, 250);
    expect(mirrorAfter.metadata.uid).toBe(mirror.metadata.uid);
    expect(mirrorAfter.status?.['phase']).toBe('Running');

    // Nothing else was restarted: the same containers, the two that exited replaced once.
    const apiAfter = await podContainers(env.cri, up.metadata.uid);
    expect(apiAfter.filter((c) => c.name === 'main').map((c) => [c.id, c.state])).toEqual(apiBefore.filter((c) => c.name === 'main').map((c) => [c.id, c.state]));
    expect(apiAfter.filter((c) => c.name === 'flaky').map((c) => c.id)).toEqual([flaky.id, restarted.id]);
    expect((await podContainers(env.cri, staticUid)).map((c) => c.id)).toEqual([staticBefore!.id, staticRestarted.id]);

    // The lease renews again and the node is Ready.
    const was = renewTime(await getJson(api, LEASE_PATH(NODE)));
    await waitFor('lease renewed after the restart', 30_000, async () => renewTime(await getJson(api, LEASE_PATH(NODE))) !== was || undefined, agent, 500);
    await waitFor('node Ready', 30_000, async () => condition(await getJson(api, `/api/v1/nodes/${NODE}`), 'Ready') === 'True' || undefined, agent);

    // The pod watch resumed: a pod posted now runs, and its deletion is seen.
    const laterPath = `/api/v1/namespaces/default/pods/later-${tag}`;
    expect((await api.post('/api/v1/namespaces/default/pods', apiPod(`later-${tag}`, [container('main')]))).status).toBe(201);
    await waitFor('the later pod Running', 60_000, async () => (await getJson(api, laterPath))?.status?.['phase'] === 'Running' || undefined, agent);
    for (const path of [laterPath, podPath]) {
      expect((await api.delete(path)).status).toBe(200);
      await waitFor(`${path} gone`, 30_000, async () => (await api.get(path)).status === 404 || undefined, agent);
    }
    node.removeManifest('static.yaml');
    await waitFor('the mirror pod deleted with its static pod', 30_000, async () => (await api.get(mirrorPath)).status === 404 || undefined, agent);
    expect(agent.running).toBe(true);
    // The outage was one problem for the status manager, logged once.
    expect(agent.lines().slice(m, back).filter(statusFailed)).toHaveLength(1);
  }, 240_000);
});
