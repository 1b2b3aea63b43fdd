// Issue 13.2 and 13.7 at the process level, on a real containerd: bad files
// present when the agent starts do not stop it (it gets ready, serves
// /healthz, runs the good pods); a second agent on the same --root-dir with
// its own lock file is refused with a clear error instead of fighting over
// the pods; many pods starting and stopping at once leave no
// MaxListenersExceededWarning in the log.
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  container,
  createNode,
  holds,
  logLine,
  mark,
  phase,
  pod,
  podUid,
  running,
  waitFor,
  type Node,
} from './helpers/agent-node.js';
import { healthzEndpoint, timedGet } from './helpers/process-health.js';
import { MSG, REASON, aliasBomb, fatalLines, guardPod, linesNaming, reasonFor, startedOrFailed, sharedRuntime, skipWithoutRuntime } from './helpers/source-faults.js';

const skip = skipWithoutRuntime();

describe.skipIf(skip)('the agent process with pod source faults', () => {
  const env = sharedRuntime();
  let node: Node | undefined;

  afterEach(async () => {
    await node?.dispose();
    node = undefined;
  }, 60_000);

  it('starts with bad files already present: ready, /healthz up, the good pods run, each bad file logged once (issue 13.2)', async () => {
    node = createNode(env.rt, env.cri);
    const health = await healthzEndpoint();
    const bomb = node.writeManifest('a-bomb.yaml', aliasBomb());
    const comment = node.writeManifest('b-comment.yaml', '# to be written\n');
    const loop = join(node.manifests, 'c-loop.yaml');
    symlinkSync('c-loop.yaml', loop);
    const alias = node.writeManifest('d-alias.yaml', 'a: *undefined\n');
    node.writeManifest('m-good.yaml', pod('good', [container('main')]));
    node.writeManifest('z-late.yaml', pod('late', [container('main')]));

    const agent = await node.spawn(health.args);
    await startedOrFailed(agent);
    expect(await timedGet(health.url)).toMatchObject({ status: 200 });
    const good = await guardPod(agent, env.cri, { healthz: health.url });
    await running(env.cri, await podUid(agent, 'late'), 'main', 20_000, agent);
    // The good pods do not wait for the bad files (each is parsed on its own,
    // the alias bomb in the parser's worker until it hits its limit): first
    // each is logged, then each stays logged once.
    const bad = [bomb, comment, loop, alias];
    await waitFor('each bad file logged', 20_000, () => bad.every((p) => linesNaming(agent, p).length >= 1), agent);
    await holds('each bad file logged once', 2_500, () => bad.every((p) => linesNaming(agent, p).length === 1), agent);
    expect(reasonFor(agent, bomb)).toMatch(REASON.aliasBomb);
    expect(reasonFor(agent, comment)).toMatch(REASON.noPod);
    expect(reasonFor(agent, loop)).toMatch(REASON.symlinkLoop);
    expect(reasonFor(agent, alias)).toMatch(REASON.unresolvedAlias);
    expect(fatalLines(agent)).toEqual([]);

    // Fixed files are picked up like any other.
    const m = mark(agent);
    node.writeManifest('b-comment.yaml', pod('fixed', [container('main')]));
    await running(env.cri, await podUid(agent, 'fixed', { after: m, timeoutMs: 10_000 }), 'main', 20_000, agent);
    await good.check();
  }, 90_000);

  it('refuses a second agent on the same --root-dir with another lock file, with an error naming the directory (issue 13.7)', async () => {
    node = createNode(env.rt, env.cri);
    node.writeManifest('m-good.yaml', pod('good', [container('main')]));
    const first = await node.start([`--lock-file=${join(node.dir, 'first.lock')}`]);
    const good = await guardPod(first, env.cri);

    const second = await node.spawn([`--lock-file=${join(node.dir, 'second.lock')}`]);
    const exit = await second.waitForExit(20_000);
    expect(exit.code, second.stderr).not.toBe(0);
    expect(exit.code, second.stderr).not.toBeNull();
    // A clear error: it names the root directory the other agent holds.
    expect(second.lines().filter((l) => l.includes(node!.root) && /already|in use|another|lock/i.test(l)), second.stderr).not.toEqual([]);
    expect(second.stderr).not.toMatch(/all components ready|Pod added/);

    // The first agent never noticed.
    expect(first.running).toBe(true);
    await holds('the first agent keeps its pod', 2_000, async () => {
      await good.check();
      return true;
    }, first);
  }, 90_000);

  it('starts and stops more than 10 pods at once without a MaxListenersExceededWarning (issue 13.7)', async () => {
    node = createNode(env.rt, env.cri);
    const names = Array.from({ length: 12 }, (_, i) => `p${String(i).padStart(2, '0')}`);
    node.writeManifest('m-good.yaml', pod('good', [container('main')]));
    for (const n of names) node.writeManifest(`${n}.yaml`, pod(n, [container('main')]));
    const health = await healthzEndpoint();
    const agent = await node.start(health.args);
    const good = await guardPod(agent, env.cri, { timeoutMs: 60_000, healthz: health.url });
    const uids = new Map<string, string>();
    for (const n of names) uids.set(n, await podUid(agent, n, { timeoutMs: 30_000 }));
    for (const n of names) await phase(agent, n, 'Running', { timeoutMs: 60_000 });

    const m = mark(agent);
    for (const n of names) node.removeManifest(`${n}.yaml`);
    await waitFor('all 12 pods torn down', 60_000, () => [...uids.values()].every((uid) => agent.lines().slice(m).some(logLine('Pod torn down', { podUID: uid }))), agent, 250);
    // process.emitWarning writes at once, when the 11th listener is added: it is in stderr by now if it ever was.
    expect(agent.stderr).not.toContain(MSG.maxListeners);
    await good.check();
  }, 180_000);
});
