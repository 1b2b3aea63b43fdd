// Restart policies on a real containerd: a crashing container under
// restartPolicy Always is restarted with a growing back-off (CrashLoopBackOff),
// and under restartPolicy Never a container that exits stays exited, the pod
// Failed (non-zero exit) or Succeeded (exit 0).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CriRuntime } from '../../src/cri/grpc-client.js';
import {
  container,
  createNode,
  criClient,
  field,
  holds,
  linesMatching,
  logLine,
  logTimeMs,
  phase,
  pod,
  podContainers,
  podSandboxes,
  podUid,
  staticName,
  waitFor,
  waitForLineAfter,
  type Node,
} from './helpers/agent-node.js';
import { localRuntimeUnavailable, startLocalRuntime, type LocalRuntime } from './helpers/local-runtime.js';

const unavailable = localRuntimeUnavailable();
const skip = unavailable !== undefined && !process.env['CI'];
if (skip) console.warn(`restart policy e2e tests skipped: ${unavailable}`);

describe.skipIf(skip)('restart policies on a real containerd', () => {
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

  it('restarts a crashing container with a growing back-off (CrashLoopBackOff) and counts the restarts', async () => {
    node = createNode(rt, cri);
    node.writeManifest('crash.yaml', pod('crash', [container('boom', ['sh', '-c', 'exit 1'])], { restartPolicy: 'Always' }));
    const agent = await node.start();
    const uid = await podUid(agent, 'crash');
    const started = (n: number) => logLine('Started container', { pod: staticName('crash'), container: 'boom', restartCount: n });

    // First crash: restarted at once.
    const s0 = await waitForLineAfter(agent, started(0), { timeoutMs: 15_000 });
    const s1 = await waitForLineAfter(agent, started(1), { timeoutMs: 8_000 });
    expect(logTimeMs(s1) - logTimeMs(s0)).toBeLessThan(5_000);
    // Then the back-off: 10 s before the second restart, reported as CrashLoopBackOff.
    const wait1 = await waitForLineAfter(agent, logLine('Container is waiting', { pod: staticName('crash'), container: 'boom', reason: 'CrashLoopBackOff' }), { timeoutMs: 8_000 });
    expect(field(wait1, 'message')).toMatch(/^back-off 10s restarting failed container=boom pod=crash-e2e-node_default\(/);
    const s2 = await waitForLineAfter(agent, started(2), { timeoutMs: 20_000 });
    const gap = logTimeMs(s2) - logTimeMs(s1);
    expect(gap).toBeGreaterThanOrEqual(9_000);
    expect(gap).toBeLessThan(16_000);
    // The next back-off doubles.
    const wait2 = await waitForLineAfter(agent, (l) => logLine('Container is waiting', { container: 'boom', reason: 'CrashLoopBackOff' })(l) && /back-off 20s/.test(l), { timeoutMs: 8_000 });
    expect(logTimeMs(wait2)).toBeGreaterThanOrEqual(logTimeMs(s2));
    expect(linesMatching(agent, started(3))).toEqual([]);

    // The runtime's view: the newest instance carries restartCount 2; older dead ones are pruned to one.
    const cs = await waitFor('restartCount 2 in the runtime', 5_000, async () => {
      const all = await podContainers(cri, uid);
      return all.some((c) => c.restartCount >= 2) ? all : undefined;
    }, agent);
    const newest = cs[cs.length - 1]!;
    expect(newest.restartCount).toBe(2);
    expect(cs.every((c) => c.name === 'boom')).toBe(true);
    expect(cs.length).toBeLessThanOrEqual(2);
    const exited = cs.find((c) => c.state === 'EXITED')!;
    expect(exited.exitCode).toBe(1);
    expect((await podSandboxes(cri, uid)).map((s) => s.state)).toEqual(['READY']);
  }, 45_000);

  it('restartPolicy Never: exit 3 leaves the container exited and the pod Failed; exit 0 makes it Succeeded', async () => {
    node = createNode(rt, cri);
    node.writeManifest('fails.yaml', pod('fails', [container('main', ['sh', '-c', 'exit 3'])], { restartPolicy: 'Never' }));
    node.writeManifest('works.yaml', pod('works', [container('main', ['sh', '-c', 'exit 0'])], { restartPolicy: 'Never' }));
    const agent = await node.start();
    const failsUid = await podUid(agent, 'fails');
    const worksUid = await podUid(agent, 'works');
    await phase(agent, 'fails', 'Failed', { timeoutMs: 15_000 });
    await phase(agent, 'works', 'Succeeded', { timeoutMs: 15_000 });

    const failed = await podContainers(cri, failsUid);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ name: 'main', state: 'EXITED', exitCode: 3, restartCount: 0 });
    const succeeded = await podContainers(cri, worksUid);
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]).toMatchObject({ name: 'main', state: 'EXITED', exitCode: 0, restartCount: 0 });

    // Not restarted, through a resync (--sync-frequency=5s) and relists: the same single exited instance.
    await holds('exited containers stay exited, not restarted', 6_000, async () => {
      const f = await podContainers(cri, failsUid);
      const w = await podContainers(cri, worksUid);
      return f.length === 1 && f[0]!.id === failed[0]!.id && f[0]!.state === 'EXITED' && w.length === 1 && w[0]!.id === succeeded[0]!.id && w[0]!.state === 'EXITED';
    }, agent, 500);
    expect(linesMatching(agent, logLine('Started container'))).toHaveLength(2);
    // Once Failed / Succeeded, a pod under Never stays so.
    const phases = (name: string) => linesMatching(agent, logLine('Pod phase changed', { pod: staticName(name) })).map((l) => field(l, 'to'));
    expect(phases('fails').at(-1)).toBe('Failed');
    expect(phases('fails').filter((p) => p === 'Failed')).toHaveLength(1);
    expect(phases('works').at(-1)).toBe('Succeeded');
    expect(phases('works').filter((p) => p === 'Succeeded')).toHaveLength(1);
    // A finished pod's sandbox is stopped, as the kubelet does.
    await waitFor('sandboxes stopped', 10_000, async () => {
      const sb = [...(await podSandboxes(cri, failsUid)), ...(await podSandboxes(cri, worksUid))];
      return sb.length === 2 && sb.every((s) => s.state === 'NOTREADY');
    }, agent);
  }, 45_000);
});
