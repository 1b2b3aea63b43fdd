// The log routes on a real containerd: the agent (a separate process) runs
// the pods and rotates their logs; this test serves logRoutes in-process
// through a loopback harness, with the real CRI client as the runtime and a
// status view built from the CRI listings (the agent's own status store is
// in the other process). Proves: `previous` after a restart, tail and
// timestamps on real files, and follow across a real rotation with no line
// lost or repeated.
import { statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeService } from '../../src/cri/types.js';
import type { ContainerStatus as PodContainerStatus } from '../../src/pod-model/pod-types.js';
import { logRoutesWith } from '../../src/server/logs/index.js';
import type { PodView } from '../../src/server/logs/locate.js';
import { testLogger } from '../helpers/test-logger.js';
import { get, openStream, serveRoutes, type Harness } from '../integration/server/logs-harness.js';
import { podView } from '../unit/server/logs/pod-view.js';
import { container, pod, podContainers, podUid, POD_LOGS, running, waitFor, type SeenContainer } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('server logs');

/** What the status store would say of pod `name` (container `c`), from the runtime's instances, newest last. */
function viewFromCri(name: string, uid: string, c: string, seen: readonly SeenContainer[]): PodView {
  const mine = seen.filter((s) => s.name === c);
  const cur = mine[mine.length - 1];
  const prev = mine[mine.length - 2];
  const st: Partial<PodContainerStatus> & { name: string } = {
    name: c,
    restartCount: cur?.restartCount ?? 0,
    ...(cur ? { containerID: `containerd://${cur.id}` } : {}),
    state: cur?.state === 'RUNNING' ? { running: {} } : cur ? { terminated: { exitCode: cur.exitCode, containerID: `containerd://${cur.id}` } } : { waiting: { reason: 'ContainerCreating' } },
    lastState: prev ? { terminated: { exitCode: prev.exitCode, containerID: `containerd://${prev.id}` } } : {},
  };
  return podView(`${name}-e2e-node`, [st], { uid });
}

describe.skipIf(skip)('container logs served from a real containerd', () => {
  const env = useRuntime();
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** Serves the routes over a status view refreshed from the runtime on every request. */
  async function serve(views: () => PodView[]): Promise<Harness> {
    const routes = logRoutesWith({ status: { all: views }, runtime: env.cri as RuntimeService, podLogsDir: POD_LOGS, nodeLogDir: '/var/log', log: testLogger(), stateCheckMs: 500, pollMs: 200 });
    return serveRoutes(routes);
  }

  it('serves the current and the previous instance of a restarted container, with tail and timestamps', async () => {
    const node = env.newNode();
    // Fails once (the first restart is immediate), then stays up: the emptyDir counts the runs.
    const script = 'n=$(cat /data/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > /data/n; for i in 1 2 3; do echo "run $n line $i"; done; [ $n -ge 2 ] || exit 1; trap "exit 0" TERM; while true; do sleep 1 & wait; done';
    node.writeManifest('twice.yaml', pod('twice', [container('main', ['sh', '-c', script], { volumeMounts: [{ name: 'data', mountPath: '/data' }] })], { restartPolicy: 'Always', volumes: [{ name: 'data', emptyDir: {} }] }));
    const agent = await node.start();
    const uid = await podUid(agent, 'twice');
    await running(env.cri, uid, 'main', 30_000, agent, (c) => c.restartCount === 1);
    let seen = await podContainers(env.cri, uid);
    h = await serve(() => [viewFromCri('twice', uid, 'main', seen)]);
    const base = '/containerLogs/default/twice-e2e-node/main';
    // The current run's lines are written right after its start: wait for all three.
    await waitFor('the current run logged', 10_000, async () => (await get(h!.port, base)).body.includes('run 2 line 3'), agent);
    seen = await podContainers(env.cri, uid);

    expect((await get(h.port, base)).body).toBe('run 2 line 1\nrun 2 line 2\nrun 2 line 3\n');
    expect((await get(h.port, `${base}?previous=true`)).body).toBe('run 1 line 1\nrun 1 line 2\nrun 1 line 3\n');
    expect((await get(h.port, `${base}?tailLines=1`)).body).toBe('run 2 line 3\n');
    const stamped = (await get(h.port, `${base}?timestamps=true&tailLines=2`)).body.split('\n').filter(Boolean);
    expect(stamped).toHaveLength(2);
    for (const l of stamped) expect(l).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z run 2 line [23]$/);
    expect((await get(h.port, `${base}?limitBytes=5`)).body).toBe('run 2');
    expect((await get(h.port, '/containerLogs/default/twice-e2e-node/other')).status).toBe(404);
  }, 90_000);

  it('follows a chatty container across a real rotation without losing or repeating a line', async () => {
    const node = env.newNode();
    const chatty = ['sh', '-c', "trap 'exit 0' TERM; n=0; while true; do for i in 1 2 3 4 5 6 7 8 9 10; do n=$((n+1)); echo \"line $n 0123456789012345678901234567890123456789012345678901234567890123456789\"; done; sleep 1 & wait; done"];
    node.writeManifest('chatty.yaml', pod('chatty', [container('talk', chatty)]));
    const agent = await node.start(['--container-log-max-size=1Ki', '--container-log-max-files=3']);
    const uid = await podUid(agent, 'chatty');
    await running(env.cri, uid, 'talk', 30_000, agent);
    const seen = await podContainers(env.cri, uid);
    const logPath = seen[seen.length - 1]!.logPath;
    h = await serve(() => [viewFromCri('chatty', uid, 'talk', seen)]);
    const s = await openStream(h.port, '/containerLogs/default/chatty-e2e-node/talk?follow=true&tailLines=1');
    expect(s.status).toBe(200);
    await s.until((t) => t.includes('\n'), 10_000);
    // A rotation replaces the live file (a new inode); then more lines arrive from the new one.
    const ino = statSync(logPath).ino;
    await waitFor('a rotation of the live log', 40_000, () => statSync(logPath, { throwIfNoEntry: false })?.ino !== ino, agent, 100);
    const count = (t: string): number => t.split('\n').filter(Boolean).length;
    const before = count(s.text());
    await s.until((t) => count(t) >= before + 20, 10_000);
    s.close();
    const lines = (await s.ended).split('\n');
    lines.pop(); // '' after the last newline, or a line cut by the close
    const numbers = lines.map((l) => Number(/^line (\d+) /.exec(l)?.[1]));
    expect(numbers.length).toBeGreaterThan(20);
    numbers.forEach((n, i) => {
      if (i > 0) expect(n, `line after ${numbers[i - 1]}`).toBe(numbers[i - 1]! + 1);
    });
  }, 120_000);
});
