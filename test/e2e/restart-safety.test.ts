// Restart safety on a real containerd: an agent killed with SIGKILL and
// started again adopts what runs (same container IDs and start times, nothing
// created) and tears down the pods whose manifests vanished meanwhile; a
// containerd that restarts or crashes under a running agent is survived.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CriRuntime } from '../../src/cri/grpc-client.js';
import type { AgentDaemon } from '../helpers/agent-daemon.js';
import {
  container,
  createNode,
  criClient,
  field,
  holds,
  linesMatching,
  logLine,
  mark,
  phase,
  pod,
  podContainers,
  podSandboxes,
  podUid,
  running,
  staticName,
  waitFor,
  waitForLineAfter,
  type Node,
  type SeenContainer,
} from './helpers/agent-node.js';
import { localRuntimeUnavailable, startLocalRuntime, type LocalRuntime } from './helpers/local-runtime.js';

const unavailable = localRuntimeUnavailable();
const skip = unavailable !== undefined && !process.env['CI'];
if (skip) console.warn(`restart safety e2e tests skipped: ${unavailable}`);

const idAndStart = (cs: SeenContainer[]) => cs.map((c) => ({ id: c.id, name: c.name, state: c.state, startedAt: c.startedAt, restartCount: c.restartCount }));

describe.skipIf(skip)('restart safety on a real containerd', () => {
  let rt: LocalRuntime;
  let cri: CriRuntime;
  let node: Node;

  beforeAll(async () => {
    rt = await startLocalRuntime();
    cri = await criClient(rt);
  }, 90_000);

  afterAll(async () => {
    cri?.close();
    await rt?.stop();
  }, 90_000);

  afterEach(async () => {
    await node?.dispose();
  }, 30_000);

  it('SIGKILL + restart of the agent adopts running containers unchanged and tears down pods whose manifest vanished', async () => {
    node = createNode(rt, cri);
    node.writeManifest('kept.yaml', pod('kept', [container('a'), container('b')]));
    node.writeManifest('doomed.yaml', pod('doomed', [container('main')]));
    node.writeManifest('edited.yaml', pod('edited', [container('same'), container('other')]));
    const first = await node.start();
    const keptUid = await podUid(first, 'kept');
    const doomedUid = await podUid(first, 'doomed');
    const editedUid = await podUid(first, 'edited');
    const editedSame = await running(cri, editedUid, 'same', 15_000, first);
    const editedOther = await running(cri, editedUid, 'other', 5_000, first);
    await phase(first, 'kept', 'Running', { timeoutMs: 15_000 });
    await phase(first, 'doomed', 'Running', { timeoutMs: 15_000 });
    await running(cri, keptUid, 'a', 5_000, first);
    await running(cri, keptUid, 'b', 5_000, first);
    await running(cri, doomedUid, 'main', 5_000, first);
    const before = await podContainers(cri, keptUid);
    const sandboxBefore = await podSandboxes(cri, keptUid);

    first.kill('SIGKILL');
    expect((await first.waitForExit(5_000)).signal).toBe('SIGKILL');
    node.removeManifest('doomed.yaml');
    node.writeManifest('edited.yaml', pod('edited', [container('same'), container('other', ['sh', '-c', "trap 'exit 0' TERM; echo v2; while true; do sleep 1 & wait; done"])]));

    const second = await node.start();
    // Same content, source and node: the same UID, so the running pod is adopted.
    expect(await podUid(second, 'kept')).toBe(keptUid);
    await phase(second, 'kept', 'Running', { timeoutMs: 15_000 });
    await waitForLineAfter(second, logLine('Tearing down a pod no source declares', { podUID: doomedUid }), { timeoutMs: 15_000 });
    await waitForLineAfter(second, logLine('Pod torn down', { pod: staticName('doomed'), podUID: doomedUid }), { timeoutMs: 15_000 });
    expect(await podContainers(cri, doomedUid)).toEqual([]);
    expect(await podSandboxes(cri, doomedUid)).toEqual([]);

    // Through relists and a sync: the very same containers, started at the same times, nothing new.
    await holds('adopted containers unchanged', 2_000, async () => {
      const now = await podContainers(cri, keptUid);
      return JSON.stringify(idAndStart(now), (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) === JSON.stringify(idAndStart(before), (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
    }, second);
    const after = await podContainers(cri, keptUid);
    expect(idAndStart(after)).toEqual(idAndStart(before));
    expect(after.every((c) => c.state === 'RUNNING')).toBe(true);
    expect(await podSandboxes(cri, keptUid)).toEqual(sandboxBefore);
    // (The doomed pod's teardown stops its container, and says so: not an adopted pod's business.)
    expect(linesMatching(second, (l) => (logLine('Created pod sandbox')(l) || logLine('Started container')(l) || logLine('Killing container')(l)) && ![staticName('edited'), staticName('doomed')].includes(String(field(l, 'pod'))))).toEqual([]);

    // A manifest edited while the agent was down: only the changed container restarts.
    const otherNow = await running(cri, editedUid, 'other', 10_000, second, (c) => c.id !== editedOther.id);
    expect(otherNow.restartCount).toBe(1);
    const sameNow = await running(cri, editedUid, 'same', 5_000, second);
    expect(sameNow.id).toBe(editedSame.id);
    expect(sameNow.startedAt).toBe(editedSame.startedAt);
  }, 60_000);

  it('survives a graceful containerd restart: pods keep running and a new manifest starts its pod', async () => {
    node = createNode(rt, cri);
    node.writeManifest('before.yaml', pod('before', [container('main')]));
    const agent = await node.start();
    const uid = await podUid(agent, 'before');
    const c = await running(cri, uid, 'main', 15_000, agent);

    await rt.restart();
    expect(agent.running).toBe(true);
    const m = mark(agent);
    node.writeManifest('after.yaml', pod('after', [container('main')]));
    const afterUid = await podUid(agent, 'after', { after: m });
    await phase(agent, 'after', 'Running', { after: m, timeoutMs: 20_000 });
    await running(cri, afterUid, 'main', 5_000, agent);
    const same = await running(cri, uid, 'main', 5_000, agent);
    expect(same.id).toBe(c.id);
    expect(same.startedAt).toBe(c.startedAt);
    expect(linesMatching(agent, logLine('Started container', { pod: staticName('before') }), m)).toEqual([]);
    expect(agent.running).toBe(true);
  }, 60_000);

  it('survives a containerd crash: errors while it is down, then pods are re-synced, including one added meanwhile', async () => {
    node = createNode(rt, cri);
    node.writeManifest('steady.yaml', pod('steady', [container('main')]));
    const agent = await node.start();
    const uid = await podUid(agent, 'steady');
    const c = await running(cri, uid, 'main', 15_000, agent);

    const m = mark(agent);
    await rt.kill();
    try {
      // The relist notices the runtime is gone; the agent itself stays up.
      await waitForLineAfter(agent, logLine('Runtime relist failed'), { after: m, timeoutMs: 10_000 });
      node.writeManifest('meanwhile.yaml', pod('meanwhile', [container('main')]));
      await podUid(agent, 'meanwhile', { after: m });
      expect(agent.running).toBe(true);
    } finally {
      await rt.start();
    }
    const meanwhileUid = await podUid(agent, 'meanwhile', { after: m });
    await phase(agent, 'meanwhile', 'Running', { after: m, timeoutMs: 25_000 });
    await running(cri, meanwhileUid, 'main', 5_000, agent);
    await waitForLineAfter(agent, logLine('Runtime relist works again'), { after: m, timeoutMs: 10_000 });

    const n = mark(agent);
    node.writeManifest('later.yaml', pod('later', [container('main')]));
    const laterUid = await podUid(agent, 'later', { after: n });
    await phase(agent, 'later', 'Running', { after: n, timeoutMs: 15_000 });
    await running(cri, laterUid, 'main', 5_000, agent);

    const same = await waitFor('steady container still the same', 5_000, async () => {
      const x = await podContainers(cri, uid);
      return x.length === 1 && x[0]!.state === 'RUNNING' ? x[0] : undefined;
    }, agent);
    expect(same.id).toBe(c.id);
    expect(same.startedAt).toBe(c.startedAt);
    expect(agent.running).toBe(true);
  }, 60_000);

  it('an agent started while containerd is down waits for it, then runs its pods', async () => {
    node = createNode(rt, cri);
    node.writeManifest('early.yaml', pod('early', [container('main')]));
    await rt.kill();
    let agent: AgentDaemon;
    try {
      agent = await node.spawn();
      await waitForLineAfter(agent, logLine('Waiting for the container runtime'), { timeoutMs: 10_000 });
      expect(agent.running).toBe(true);
    } finally {
      await rt.start();
    }
    await waitForLineAfter(agent, /all components ready/, { timeoutMs: 30_000 });
    const uid = await podUid(agent, 'early');
    await phase(agent, 'early', 'Running', { timeoutMs: 15_000 });
    await running(cri, uid, 'main', 5_000, agent);
  }, 60_000);
});
