// API-server mode end to end: the built agent joined to the built
// platform-apiserver over a private etcd, pods on the private containerd. The
// agent authenticates as system:node:e2e-node (a token of the server's token
// file), so node authorization and NodeRestriction apply to everything it does.
//
// One agent per test; the server and etcd live for the file. Every wait is
// bounded and carries the agent's log when it times out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle } from '../conformance/helpers/server.js';
import { startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { BUSYBOX, container, holds, logLine, NODE, pod, podContainers, SLEEP_FOREVER, waitFor, waitForLineAfter, type Node } from './helpers/agent-node.js';
import { condition, createDefaultServiceAccount, getJson, nodeConfig, type Obj, runningInApi } from './helpers/cluster.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('API-server mode');

describe.skipIf(skip)('API-server mode on a real containerd, platform-apiserver over etcd', () => {
  const env = useRuntime();
  let etcd: TestEtcd;
  let srv: ServerHandle;
  beforeAll(async () => {
    etcd = await startEtcd();
    srv = await startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, extraArgs: ['--controllers=*'], faults: true });
    await createDefaultServiceAccount(srv);
  }, 90_000);
  afterAll(async () => {
    await srv?.stop();
    await etcd?.stop();
  }, 60_000);

  async function startNode(): Promise<{ node: Node; agent: Awaited<ReturnType<Node['start']>> }> {
    const node = env.newNode();
    const agent = await node.start([`--platformconfig=${nodeConfig(node.dir, srv)}`, '--node-status-update-frequency=2s']);
    return { node, agent };
  }

  it('registers a Ready node with a renewed lease, runs a posted pod with its volumes and status, and deletes it', async () => {
    const { agent } = await startNode();
    const api = srv.admin;
    const ready = await waitFor('node Ready', 30_000, async () => {
      const n = await getJson(api, `/api/v1/nodes/${NODE}`);
      return condition(n, 'Ready') === 'True' ? n : undefined;
    }, agent);
    expect(ready.metadata.name).toBe(NODE);
    const leasePath = `/apis/coordination.platform.io/v1/namespaces/platform-node-lease/leases/${NODE}`;
    const lease = await waitFor('lease', 20_000, () => getJson(api, leasePath), agent);
    expect(lease.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Node', name: NODE });
    const renewed = (l: Obj | undefined): string => String(l?.spec?.['renewTime']);
    const firstRenew = renewed(lease);

    // A configMap and a secret the pod mounts and reads into its environment.
    expect((await api.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: { greeting: 'hello' } })).status).toBe(201);
    expect((await api.post('/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'web-secret' }, data: { password: Buffer.from('s3cret').toString('base64') } })).status).toBe(201);
    const web = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'api-web', namespace: 'default' },
      spec: {
        nodeName: NODE,
        hostNetwork: true,
        terminationGracePeriodSeconds: 2,
        containers: [
          {
            ...container('main', SLEEP_FOREVER),
            env: [{ name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'web-config', key: 'greeting' } } }],
            volumeMounts: [
              { name: 'cfg', mountPath: '/etc/cfg' },
              { name: 'sec', mountPath: '/etc/sec' },
            ],
          },
        ],
        volumes: [
          { name: 'cfg', configMap: { name: 'web-config' } },
          { name: 'sec', secret: { secretName: 'web-secret' } },
        ],
      },
    };
    const created = await api.post('/api/v1/namespaces/default/pods', web);
    expect(created.status, created.text()).toBe(201);
    const podPath = '/api/v1/namespaces/default/pods/api-web';
    const running = await runningInApi(api, podPath, agent, 'api-web Running in the API');
    expect(running.status?.['podIP']).toBe('127.0.0.1');
    const statuses = running.status?.['containerStatuses'] as Array<{ name: string; ready: boolean; state: Record<string, unknown>; image: string }>;
    expect(statuses).toHaveLength(1);
    expect(statuses[0]).toMatchObject({ name: 'main', ready: true });
    expect(statuses[0]?.state).toHaveProperty('running');

    const [c] = await podContainers(env.cri, running.metadata.uid);
    expect(c?.state).toBe('RUNNING');
    const sh = async (cmd: string): Promise<string> => (await env.cri.execSync(c!.id, ['sh', '-c', cmd], 10)).stdout.toString();
    expect(await sh('cat /etc/cfg/greeting; echo; cat /etc/sec/password; echo; echo "$GREETING"')).toBe('hello\ns3cret\nhello\n');
    // The service-account volume the server's admission added: a TokenRequest token bound to this pod, the namespace, the root CA.
    const sa = '/var/run/secrets/platform.io/serviceaccount';
    expect(await sh(`cat ${sa}/namespace`)).toBe('default');
    expect(await sh(`cat ${sa}/ca.crt`)).toContain('BEGIN CERTIFICATE');
    const token = await sh(`cat ${sa}/token`);
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(JSON.stringify(claims)).toContain(running.metadata.uid);
    // An update of the configMap reaches the mounted file within the sync period.
    const patched = await api.patch('/api/v1/namespaces/default/configmaps/web-config', { data: { greeting: 'bonjour' } }, 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    await waitFor('configMap update in the file', 30_000, async () => (await sh('cat /etc/cfg/greeting')) === 'bonjour' || undefined, agent);

    // The kubelet's events for the pod, from the node.
    const events = await waitFor('pod events', 20_000, async () => {
      const r = await api.get('/api/v1/namespaces/default/events', { query: { fieldSelector: 'involvedObject.name=api-web' } });
      const reasons = ((r.json() as { items: Array<{ reason: string; source?: { component?: string; host?: string } }> }).items ?? []).map((e) => e.reason);
      return ['Created', 'Started'].every((x) => reasons.includes(x)) ? reasons : undefined;
    }, agent);
    expect(events).toContain('Started');

    // The lease was renewed meanwhile (every 10 s).
    await waitFor('lease renewed', 30_000, async () => renewed(await getJson(api, leasePath)) !== firstRenew || undefined, agent);

    // Deleted through the API: stopped within its grace period, the object goes.
    expect((await api.delete(podPath)).status).toBe(200);
    await waitFor('api-web gone from the API', 30_000, async () => (await api.get(podPath)).status === 404 || undefined, agent);
    expect(await podContainers(env.cri, running.metadata.uid).then((cs) => cs.filter((x) => x.state === 'RUNNING'))).toEqual([]);
  }, 240_000);

  it('mirrors a static pod: created, recreated after deletion, replaced on an edit', async () => {
    const node = env.newNode();
    node.writeManifest('static.yaml', pod('static-web', [container('main')]));
    const agent = await node.start([`--platformconfig=${nodeConfig(node.dir, srv)}`]);
    const api = srv.admin;
    const path = `/api/v1/namespaces/default/pods/static-web-${NODE}`;
    const mirror = await waitFor('mirror pod', 60_000, async () => {
      const p = await getJson(api, path);
      return p?.metadata.annotations?.['platform.io/config.mirror'] !== undefined ? p : undefined;
    }, agent);
    expect(mirror.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Node', name: NODE });
    await waitFor('static pod status on its mirror', 60_000, async () => (await getJson(api, path))?.status?.['phase'] === 'Running' || undefined, agent);

    expect((await api.delete(path, { query: { gracePeriodSeconds: '0' } })).status).toBe(200);
    const again = await waitFor('mirror pod recreated', 60_000, async () => {
      const p = await getJson(api, path);
      return p !== undefined && p.metadata.uid !== mirror.metadata.uid ? p : undefined;
    }, agent);

    node.writeManifest('static.yaml', pod('static-web', [container('main', ['sh', '-c', "trap 'exit 0' TERM; sleep 3600 & wait"], { image: BUSYBOX })]));
    const replaced = await waitFor('mirror pod replaced after the edit', 60_000, async () => {
      const p = await getJson(api, path);
      const hash = p?.metadata.annotations?.['platform.io/config.mirror'];
      return hash !== undefined && hash !== again.metadata.annotations?.['platform.io/config.mirror'] ? p : undefined;
    }, agent);
    expect(replaced.metadata.uid).not.toBe(again.metadata.uid);

    node.removeManifest('static.yaml');
    await waitFor('mirror pod deleted with its static pod', 60_000, async () => (await api.get(path)).status === 404 || undefined, agent);
  }, 240_000);
  it('a restarted agent restarts no container and keeps the pod Running in the API', async () => {
    const node = env.newNode();
    const conf = nodeConfig(node.dir, srv);
    const agent = await node.start([`--platformconfig=${conf}`]);
    const api = srv.admin;
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'api-keep', namespace: 'default' }, spec: { nodeName: NODE, hostNetwork: true, terminationGracePeriodSeconds: 2, containers: [container('main')] } };
    expect((await api.post('/api/v1/namespaces/default/pods', body)).status).toBe(201);
    const path = '/api/v1/namespaces/default/pods/api-keep';
    const before = await waitFor('api-keep Running', 60_000, async () => {
      const p = await getJson(api, path);
      return p?.status?.['phase'] === 'Running' ? p : undefined;
    }, agent);
    const [c0] = await podContainers(env.cri, before.metadata.uid);
    expect(c0?.state).toBe('RUNNING');
    expect(agent.kill('SIGTERM')).toBe(true);
    expect((await agent.waitForExit(20_000)).code).toBe(0);
    const again = await node.start([`--platformconfig=${conf}`]);
    // The new agent takes the pod from the API and syncs it without touching its container.
    await waitForLineAfter(again, logLine('Pod added', { pod: 'default/api-keep' }), { timeoutMs: 30_000 });
    await holds('the container survives the restart', 5_000, async () => {
      const after = await podContainers(env.cri, before.metadata.uid);
      return after.length === 1 && after[0]?.id === c0!.id && after[0]?.state === 'RUNNING';
    }, again, 500);
    expect(condition(await getJson(api, path), 'Ready')).toBe('True');
    expect((await api.delete(path)).status).toBe(200);
    await waitFor('api-keep gone', 30_000, async () => (await api.get(path)).status === 404 || undefined, again);
  }, 240_000);
  it('the watches dropped by the server lose no pod: one posted afterwards runs, and its deletion is seen', async () => {
    const node = env.newNode();
    const agent = await node.start([`--platformconfig=${nodeConfig(node.dir, srv)}`]);
    const api = srv.admin;
    await waitFor('node Ready', 30_000, async () => condition(await getJson(api, `/api/v1/nodes/${NODE}`), 'Ready') === 'True' || undefined, agent);
    // Every watch the server holds ends now (the agent's pod informer among them).
    expect((await api.post('/debug/faults/drop-watches', {})).status).toBe(200);
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'api-after-drop', namespace: 'default' }, spec: { nodeName: NODE, hostNetwork: true, terminationGracePeriodSeconds: 2, containers: [container('main')] } };
    expect((await api.post('/api/v1/namespaces/default/pods', body)).status).toBe(201);
    const path = '/api/v1/namespaces/default/pods/api-after-drop';
    await waitFor('api-after-drop Running', 60_000, async () => (await getJson(api, path))?.status?.['phase'] === 'Running' || undefined, agent);
    expect((await api.post('/debug/faults/drop-watches', {})).status).toBe(200);
    expect((await api.delete(path)).status).toBe(200);
    await waitFor('api-after-drop gone', 30_000, async () => (await api.get(path)).status === 404 || undefined, agent);
  }, 240_000);
});
