// The node agent against the real platform-apiserver (in memory), with the
// agent authenticated as system:node:<name> by a client certificate, so node
// authorization and NodeRestriction apply: it registers, turns Ready, keeps
// its lease, reconciles a node that exists already, waits for someone else's
// node with --register-node=false, and rides out an API server that fails.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiObject } from '../../../src/api/codec/index.js';
import type { ApiClient } from '../../../src/client/index.js';
import { RESOURCES } from '../../../src/client/rest/index.js';
import { createNodeAgent, type NodeAgent, type NodeAgentOptions } from '../../../src/node-status/index.js';
import { startServer, type ServerHandle } from '../../conformance/helpers/server.js';
import { apiClient, clientCa, HOST, nodeConnection, recordingLog, resolved, until, type ClientCa, type RecordingLog } from './helpers.js';

const meta = (o: ApiObject): Record<string, unknown> => (o['metadata'] ?? {}) as Record<string, unknown>;
const conditions = (o: ApiObject): Array<Record<string, unknown>> => ((o['status'] as Record<string, unknown> | undefined)?.['conditions'] ?? []) as Array<Record<string, unknown>>;
const ready = (o: ApiObject): Record<string, unknown> | undefined => conditions(o).find((c) => c['type'] === 'Ready');

describe('node agent against platform-apiserver [memory]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'node-agent-'));
  let srv: ServerHandle;
  let ca: ClientCa;
  const open: Array<{ client: ApiClient; stop: () => Promise<void> }> = [];

  beforeAll(async () => {
    ca = clientCa(dir);
    srv = await startServer({ backend: 'memory', faults: true, extraArgs: [`--client-ca-file=${ca.file}`] });
  }, 60_000);
  afterAll(async () => {
    for (const o of open) await o.stop();
    await srv?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const admin = (): ServerHandle['admin'] => srv.admin;
  const adminNode = async (name: string): Promise<ApiObject> => (await admin().get(`/api/v1/nodes/${name}`)).json() as ApiObject;

  /** Starts an agent for `name`; stopped (and its client closed) after the file or by the returned stop. */
  async function start(name: string, args: string[] = [], over: Partial<NodeAgentOptions> = {}): Promise<{ agent: NodeAgent; log: RecordingLog; events: string[]; updates: string[]; stop: () => Promise<void> }> {
    const client = await apiClient(await nodeConnection(srv, ca, name));
    const log = recordingLog();
    const events: string[] = [];
    const updates: string[] = [];
    const agent = createNodeAgent({
      client,
      resolved: await resolved([`--root-dir=${dir}`, ...args]),
      nodeName: name,
      version: 'v0.1.0-test',
      runtime: { version: async () => ({ version: '0.1.0', runtimeName: 'containerd', runtimeVersion: 'v1.7.0', runtimeApiVersion: 'v1' }), listImages: async () => [{ id: 'sha256:1', repoTags: ['registry.local/app:1'], repoDigests: [], size: 1000, username: '', pinned: false }] },
      events: { event: (obj, type, reason, message) => void events.push(`${obj.kind}/${obj.name} ${type} ${reason}: ${message}`) },
      log,
      onStatusUpdate: (outcome) => void updates.push(outcome),
      host: async () => HOST,
      timing: { statusUpdateMs: 200, leaseDurationSeconds: 2, registerBackoff: { initialMs: 50, maxMs: 400 } },
      ...over,
    });
    const ac = new AbortController();
    const running = agent.run(ac.signal);
    let stopped = false;
    const stop = async (): Promise<void> => {
      if (stopped) return;
      stopped = true;
      ac.abort(new Error('test done'));
      await running;
      await client.close();
    };
    open.push({ client, stop });
    await agent.ready;
    return { agent, log, events, updates, stop };
  }

  it('registers the node with its labels, turns Ready, reports its facts and keeps its lease', async () => {
    const { agent, events, log, updates, stop } = await start('na-1', ['--node-labels=node.platform.io/role=edge', '--register-with-taints=dedicated=x:NoSchedule']);
    const ref = await agent.registered();
    const node = await until('Ready', async () => {
      const n = await adminNode('na-1');
      return ready(n)?.['status'] === 'True' ? n : undefined;
    });
    expect(ref).toEqual({ name: 'na-1', uid: meta(node)['uid'] });
    expect(meta(node)['labels']).toMatchObject({ 'platform.io/hostname': 'na-1', 'platform.io/os': 'linux', 'platform.io/arch': 'amd64', 'beta.platform.io/os': 'linux', 'node.platform.io/role': 'edge' });
    expect(meta(node)['annotations']).toMatchObject({ 'volumes.platform.io/controller-managed-attach-detach': 'true' });
    expect(node['spec']).toMatchObject({ taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] });
    expect(ready(node)).toMatchObject({ reason: 'AgentReady', message: 'agent is posting ready status' });
    expect(node['status']).toMatchObject({
      capacity: { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi', 'hugepages-2Mi': '0' },
      allocatable: { cpu: '4', memory: `${8192 - 100}Mi`, pods: '110' },
      addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'na-1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { machineID: 'machine-1', bootID: 'boot-1', osImage: 'Test OS 1', containerRuntimeVersion: 'containerd://v1.7.0', kubeletVersion: 'v0.1.0-test', operatingSystem: 'linux', architecture: 'amd64' },
      images: [{ names: ['registry.local/app:1'], sizeBytes: 1000 }],
    });
    expect(events).toEqual(expect.arrayContaining(['Node/na-1 Normal Starting: Starting agent.', 'Node/na-1 Normal NodeReady: Node na-1 status is now: NodeReady', 'Node/na-1 Normal NodeHasSufficientMemory: Node na-1 status is now: NodeHasSufficientMemory']));

    // The lease: owned by the node, renewed by the heartbeat.
    const getLease = async (): Promise<ApiObject | undefined> => {
      const res = await admin().get('/apis/coordination.platform.io/v1/namespaces/platform-node-lease/leases/na-1');
      return res.status === 200 ? (res.json() as ApiObject) : undefined;
    };
    const lease = await until('lease', getLease);
    expect(meta(lease)['ownerReferences']).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'na-1', uid: ref.uid }]);
    expect(lease['spec']).toMatchObject({ holderIdentity: 'na-1', leaseDurationSeconds: 2 });
    const first = (lease['spec'] as Record<string, unknown>)['renewTime'];
    await until('lease renewal', async () => {
      const l = await getLease();
      return l !== undefined && (l['spec'] as Record<string, unknown>)['renewTime'] !== first ? l : undefined;
    });
    // Nothing changed between updates: the status is not sent again (report frequency 5 m).
    await until('a settled status', async () => (updates.at(-1) === 'unchanged' ? true : undefined));
    const seen = updates.length;
    const rv = meta(await adminNode('na-1'))['resourceVersion'];
    await until('two more status updates', async () => (updates.length >= seen + 2 ? true : undefined));
    expect(updates.slice(seen)).toEqual(expect.arrayContaining(['unchanged']));
    expect(updates.slice(seen).every((u) => u === 'unchanged')).toBe(true);
    expect(meta(await adminNode('na-1'))['resourceVersion']).toBe(rv);
    expect(log.count(/^error/)).toBe(0);
    await stop();
  });

  it('reconciles an existing node: the default labels and the annotation put back, other labels kept', async () => {
    const created = await admin().post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'na-2', labels: { 'platform.io/hostname': 'stale', team: 'a' } } });
    expect(created.status, created.text()).toBe(201);
    const { agent, log, stop } = await start('na-2');
    const ref = await agent.registered();
    expect(ref.uid).toBe(meta(created.json() as ApiObject)['uid']);
    const node = await adminNode('na-2');
    expect(meta(node)['labels']).toMatchObject({ 'platform.io/hostname': 'na-2', 'platform.io/os': 'linux', 'platform.io/arch': 'amd64', team: 'a' });
    expect(meta(node)['annotations']).toMatchObject({ 'volumes.platform.io/controller-managed-attach-detach': 'true' });
    expect(log.count(/Reconciled the existing node/)).toBe(1);
    await until('Ready', async () => (ready(await adminNode('na-2'))?.['status'] === 'True' ? true : undefined));
    await stop();
  });

  it('--register-node=false: waits for the node someone else registers, then reports its status', async () => {
    const { agent, log, stop } = await start('na-3', ['--register-node=false']);
    await until('the wait logged', async () => (log.count(/Waiting for the node to be registered/) > 0 ? true : undefined));
    expect((await admin().get('/api/v1/nodes/na-3')).status).toBe(404);
    await admin().post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'na-3' } });
    const ref = await agent.registered();
    expect(ref.name).toBe('na-3');
    const node = await until('Ready', async () => {
      const n = await adminNode('na-3');
      return ready(n)?.['status'] === 'True' ? n : undefined;
    });
    expect(meta(node)['labels']).toMatchObject({ 'platform.io/os': 'linux', 'platform.io/arch': 'amd64' });
    expect(log.count(/Waiting for the node to be registered/)).toBe(1);
    await stop();
  });

  it('an API server failing requests delays registration; each problem is logged once; the runtime going down turns the node NotReady', async () => {
    let health: string | undefined;
    expect((await admin().post('/debug/faults/fail', { code: 500, count: 6 })).status).toBe(200);
    const { agent, log, events, stop } = await start('na-4', [], { health: () => health });
    await agent.registered();
    expect(log.count(/Unable to register node with API server/)).toBe(1);
    expect(log.count(/Node registration done/)).toBe(1);
    await until('Ready', async () => (ready(await adminNode('na-4'))?.['status'] === 'True' ? true : undefined));
    health = 'container runtime is down';
    const notReady = await until('NotReady', async () => {
      const r = ready(await adminNode('na-4'));
      return r?.['status'] === 'False' ? r : undefined;
    });
    expect(notReady).toMatchObject({ reason: 'AgentNotReady', message: 'container runtime is down' });
    expect(events).toContain('Node/na-4 Normal NodeNotReady: Node na-4 status is now: NodeNotReady');
    await stop();
  });
});
