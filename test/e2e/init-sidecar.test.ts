// Init and sidecar containers on a real containerd (issue 15, items 1 and 2):
// init containers run one at a time in order and block the app containers; a
// failing one fails the pod under restartPolicy Never and is restarted with
// the crash-loop back-off under Always; completed init containers are not run
// again by a restarted agent, even when their exited instances are gone, nor
// after an edit of one in the running pod;
// sidecars (SidecarContainers on) start in order before the app container and
// stop after it, last-to-first; a sidecar that exits is started again; a
// Never pod whose app is done stops its sidecar and Succeeds. Every container
// appends what it does to a file in a hostPath directory the test reads.
import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  container,
  field,
  holds,
  linesMatching,
  logLine,
  phase,
  pod,
  podContainers,
  podUid,
  running,
  staticName,
  waitFor,
  waitForLineAfter,
  type Node,
} from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('init and sidecar');

const SIDECARS = '--feature-gates=SidecarContainers=true';

/** Appends `line` to /out/log and exits with `code`. */
const once = (line: string, code = 0): string[] => ['sh', '-c', `echo ${line} >> /out/log; exit ${code}`];
/** Appends "<name> start", runs until SIGTERM, then appends "<name> stop". */
const service = (name: string): string[] => ['sh', '-c', `trap 'echo ${name} stop >> /out/log; exit 0' TERM; echo ${name} start >> /out/log; while true; do sleep 1 & wait; done`];

/** A pod whose containers share the hostPath directory `dir` as /out. */
function withOut(name: string, dir: string, containers: ReturnType<typeof container>[], spec: Record<string, unknown>): Record<string, unknown> {
  mkdirSync(dir, { recursive: true });
  const mount = (c: ReturnType<typeof container>) => ({ ...c, volumeMounts: [{ name: 'out', mountPath: '/out' }] });
  const initContainers = ((spec['initContainers'] ?? []) as ReturnType<typeof container>[]).map(mount);
  return pod(name, containers.map(mount), { ...spec, initContainers, volumes: [{ name: 'out', hostPath: { path: dir } }] });
}

const lines = (dir: string): string[] => {
  try {
    return readFileSync(join(dir, 'log'), 'utf8').split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
};

describe.skipIf(skip)('init and sidecar containers on a real containerd', () => {
  const env = useRuntime();
  let node: Node;

  it('runs init containers in order before the app; a failing one fails a Never pod and crash-loops under Always; sidecars start in order and stop after the app, last-to-first', async () => {
    node = env.newNode();
    const dirs = { order: join(node.dir, 'order'), never: join(node.dir, 'never'), always: join(node.dir, 'always'), side: join(node.dir, 'side'), job: join(node.dir, 'job'), flaky: join(node.dir, 'flaky') };
    node.writeManifest('order.yaml', withOut('order', dirs.order, [container('app', service('app'))], { initContainers: [container('i1', once('i1')), container('i2', once('i2'))] }));
    node.writeManifest('never.yaml', withOut('never', dirs.never, [container('app', service('app'))], { restartPolicy: 'Never', initContainers: [container('bad', once('bad', 3)), container('after', once('after'))] }));
    node.writeManifest('always.yaml', withOut('always', dirs.always, [container('app', service('app'))], { restartPolicy: 'Always', initContainers: [container('bad', once('bad', 1))] }));
    node.writeManifest(
      'side.yaml',
      withOut('side', dirs.side, [container('app', service('app'))], {
        initContainers: [container('s1', service('s1'), { restartPolicy: 'Always' }), container('s2', service('s2'), { restartPolicy: 'Always' }), container('i3', once('i3'))],
      }),
    );
    // A job-like pod (Never): its sidecar does not keep it alive once the app is done.
    node.writeManifest('job.yaml', withOut('job', dirs.job, [container('app', ['sh', '-c', 'sleep 2; echo app done >> /out/log'])], { restartPolicy: 'Never', initContainers: [container('s', service('s'), { restartPolicy: 'Always' })] }));
    // A sidecar that exits is started again, even after init, while the app keeps running.
    node.writeManifest('flaky.yaml', withOut('flaky', dirs.flaky, [container('app', service('app'))], { initContainers: [container('s', ['sh', '-c', 'echo s >> /out/log; sleep 1; exit 0'], { restartPolicy: 'Always' })] }));
    const agent = await node.start([SIDECARS]);

    // In order, each after the previous one exited, then the app.
    await waitFor('order: i1 i2 app', 20_000, () => lines(dirs.order).length >= 3, agent);
    expect(lines(dirs.order)).toEqual(['i1', 'i2', 'app start']);
    const orderUid = await podUid(agent, 'order');
    const cs = await podContainers(env.cri, orderUid);
    const byName = new Map(cs.map((c) => [c.name, c]));
    expect(byName.get('i1')).toMatchObject({ state: 'EXITED', exitCode: 0 });
    expect(byName.get('i2')!.startedAt).toBeGreaterThanOrEqual(byName.get('i1')!.finishedAt);
    expect(byName.get('app')!.startedAt).toBeGreaterThanOrEqual(byName.get('i2')!.finishedAt);
    await phase(agent, 'order', 'Running', { timeoutMs: 10_000 });

    // Never: the failed init container fails the pod; neither the next init container nor the app ever runs.
    await phase(agent, 'never', 'Failed', { timeoutMs: 20_000 });
    const neverUid = await podUid(agent, 'never');
    expect((await podContainers(env.cri, neverUid)).map((c) => [c.name, c.state, c.exitCode])).toEqual([['bad', 'EXITED', 3]]);

    // Always: the failing init container is restarted, then held back by the crash-loop back-off; the app waits.
    await waitForLineAfter(agent, logLine('Started container', { pod: staticName('always'), container: 'bad', restartCount: 1 }), { timeoutMs: 20_000 });
    const backoff = await waitForLineAfter(agent, logLine('Container is waiting', { pod: staticName('always'), container: 'bad', reason: 'CrashLoopBackOff' }), { timeoutMs: 20_000 });
    expect(field(backoff, 'message')).toMatch(/^back-off 10s restarting failed container=bad /);
    expect(linesMatching(agent, logLine('Started container', { pod: staticName('always'), container: 'app' }))).toEqual([]);
    expect(linesMatching(agent, logLine('Pod phase changed', { pod: staticName('always') })).map((l) => field(l, 'to'))).toEqual(['Pending']);
    expect(lines(dirs.always).every((l) => l === 'bad')).toBe(true);

    // Sidecars: s1, then s2 (each once running: no startup probe), then the init container, then the app.
    await waitFor('side: s1 s2 i3 app', 20_000, () => lines(dirs.side).includes('app start'), agent);
    expect(lines(dirs.side)).toEqual(['s1 start', 's2 start', 'i3', 'app start']);
    await phase(agent, 'side', 'Running', { timeoutMs: 10_000 });
    const sideUid = await podUid(agent, 'side');
    expect((await podContainers(env.cri, sideUid)).filter((c) => c.state === 'RUNNING').map((c) => c.name).sort()).toEqual(['app', 's1', 's2']);

    // The job: the app ran after its sidecar started and finished; the sidecar is stopped and the pod Succeeded.
    await phase(agent, 'job', 'Succeeded', { timeoutMs: 20_000 });
    expect(lines(dirs.job)).toEqual(['s start', 'app done', 's stop']);
    const jobUid = await podUid(agent, 'job');
    expect((await podContainers(env.cri, jobUid)).map((c) => [c.name, c.state]).sort()).toEqual([['app', 'EXITED'], ['s', 'EXITED']]);

    // The flaky sidecar: restarted after it exits; the app started once and still runs.
    await waitForLineAfter(agent, logLine('Started container', { pod: staticName('flaky'), container: 's', restartCount: 1 }), { timeoutMs: 20_000 });
    const flakyUid = await podUid(agent, 'flaky');
    expect(linesMatching(agent, logLine('Started container', { pod: staticName('flaky'), container: 'app' }))).toHaveLength(1);
    expect((await podContainers(env.cri, flakyUid)).filter((c) => c.name === 'app').map((c) => c.state)).toEqual(['RUNNING']);

    // Removed: the app stops first, then s2, then s1.
    node.removeManifest('side.yaml');
    await waitForLineAfter(agent, logLine('Pod torn down', { pod: staticName('side') }), { timeoutMs: 30_000 });
    expect(lines(dirs.side).slice(4)).toEqual(['app stop', 's2 stop', 's1 stop']);
  }, 90_000);

  it('a restarted agent does not run completed init containers again, even when their exited instances are gone', async () => {
    node = env.newNode();
    const dir = join(node.dir, 'inits');
    node.writeManifest('inits.yaml', withOut('inits', dir, [container('app', service('app'))], { initContainers: [container('i1', once('i1')), container('i2', once('i2'))] }));
    const first = await node.start();
    const uid = await podUid(first, 'inits');
    const app = await running(env.cri, uid, 'app', 20_000, first);
    await phase(first, 'inits', 'Running', { timeoutMs: 10_000 });
    first.kill('SIGTERM');
    await first.waitForExit(15_000);
    // The agent stopped on its own leaves the pod running.
    expect((await podContainers(env.cri, uid)).find((c) => c.id === app.id)?.state).toBe('RUNNING');

    // Restarted with the exited init instances still there.
    const second = await node.start();
    expect(await podUid(second, 'inits')).toBe(uid);
    await phase(second, 'inits', 'Running', { timeoutMs: 15_000 });
    await holds('no init container re-run after the restart', 6_000, () => lines(dir).join(',') === 'i1,i2,app start', second, 500);
    second.kill('SIGTERM');
    await second.waitForExit(15_000);

    // Restarted once more after the exited instances were removed (as a garbage collection would): the running app still says init is done.
    for (const c of await podContainers(env.cri, uid)) if (c.name !== 'app') await env.cri.removeContainer(c.id);
    const third = await node.start();
    await phase(third, 'inits', 'Running', { timeoutMs: 15_000 });
    await holds('no init container re-run with its instances gone', 6_000, () => lines(dir).join(',') === 'i1,i2,app start', third, 500);
    expect(linesMatching(third, logLine('Started container'))).toEqual([]);
    const now = await podContainers(env.cri, uid);
    expect(now.map((c) => [c.id, c.state])).toEqual([[app.id, 'RUNNING']]);

    // An edited init container in the running pod does not re-run init (as the kubelet): the app keeps running untouched.
    node.writeManifest('inits.yaml', withOut('inits', dir, [container('app', service('app'))], { initContainers: [container('i1', once('i1-v2')), container('i2', once('i2'))] }));
    await waitForLineAfter(third, logLine('Pod changed', { pod: staticName('inits') }), { timeoutMs: 10_000 });
    await holds('no init container re-run after an edit of one', 6_000, () => lines(dir).join(',') === 'i1,i2,app start', third, 500);
    expect(linesMatching(third, logLine('Started container'))).toEqual([]);
    expect((await podContainers(env.cri, uid)).map((c) => [c.id, c.state])).toEqual([[app.id, 'RUNNING']]);
  }, 90_000);
});
