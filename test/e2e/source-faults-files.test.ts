// Issue 13.1, 13.5 and 13.7 on a real containerd: one bad file in the manifest
// directory (an alias bomb, an unresolved alias, only a comment, a file over
// 10 MB, a syntax error, a symlink loop, a FIFO, a device, a socket) is logged
// once, naming the file, and skipped: a manifest sorting after it still
// starts, a deleted one still stops, the GOOD pod runs on untouched and
// /healthz answers. A large malformed file does not stall /healthz.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import {
  container,
  createNode,
  field,
  holds,
  linesMatching,
  logLine,
  mark,
  pod,
  podUid,
  running,
  staticName,
  waitFor,
  waitForLineAfter,
  type Node,
} from './helpers/agent-node.js';
import { healthzEndpoint, memoryMiB, watchHealth } from './helpers/process-health.js';
import { BAD_FILES, HEALTHZ_MS, MSG, REASON, fatalLines, guardPod, linesNaming, reasonFor, slowMalformedYaml, sharedRuntime, skipWithoutRuntime } from './helpers/source-faults.js';

const skip = skipWithoutRuntime();

describe.skipIf(skip)('file source: a bad file stays with its file (issue 13.1)', () => {
  const env = sharedRuntime();
  let node: Node | undefined;
  let cleanup: (() => void) | void;

  afterEach(async () => {
    cleanup?.();
    cleanup = undefined;
    await node?.dispose();
    node = undefined;
  }, 30_000);

  it.each(BAD_FILES)('$name: logged once by path; a manifest after it starts, a deleted one stops, the good pod runs on', async (bad) => {
    node = createNode(env.rt, env.cri);
    const health = await healthzEndpoint();
    node.writeManifest('m-good.yaml', pod('good', [container('main')]));
    node.writeManifest('y-old.yaml', pod('old', [container('main')]));
    const agent = await node.start(health.args);
    const good = await guardPod(agent, env.cri, { healthz: health.url });
    const oldUid = await podUid(agent, 'old');
    await running(env.cri, oldUid, 'main', 20_000, agent);

    const m = mark(agent);
    const badPath = join(node.manifests, 'b-bad.yaml');
    cleanup = bad.make(node, 'b-bad.yaml');
    node.writeManifest('z-new.yaml', pod('new', [container('main')]));
    node.removeManifest('y-old.yaml');

    // The rest of the directory is handled as if the bad file were not there.
    const newUid = await podUid(agent, 'new', { after: m, timeoutMs: 10_000 });
    await running(env.cri, newUid, 'main', 20_000, agent);
    await waitForLineAfter(agent, logLine('Pod torn down', { podUID: oldUid }), { after: m, timeoutMs: 15_000 });

    // The bad file is named once, and stays named once across rescans (every second here).
    await waitFor('the bad file logged', 5_000, () => linesNaming(agent, badPath, m).length > 0, agent);
    await holds('the bad file logged once', 2_500, () => linesNaming(agent, badPath, m).length === 1, agent);
    const said = reasonFor(agent, badPath, m);
    expect(said).toMatch(bad.reason);
    expect(said).not.toMatch(REASON.notLineUnknown);
    if (bad.exactMessage) expect(said).toMatch(new RegExp(`^${MSG.badFile} `));
    expect(fatalLines(agent, m)).toEqual([]);
    // Only the new pod came from all this.
    expect(linesMatching(agent, logLine('Pod added'), m).map((l) => field(l, 'pod'))).toEqual([staticName('new')]);

    await good.check();
  }, 90_000);

  it('a 1.2 MB malformed YAML file is logged once without stalling /healthz; the manifest after it starts (issue 13.5)', async () => {
    node = createNode(env.rt, env.cri);
    const health = await healthzEndpoint();
    node.writeManifest('m-good.yaml', pod('good', [container('main')]));
    const agent = await node.start(health.args);
    const good = await guardPod(agent, env.cri, { healthz: health.url });

    const m = mark(agent);
    const watch = watchHealth(health.url);
    const badPath = node.writeManifest('b-big.yaml', slowMalformedYaml());
    node.writeManifest('z-new.yaml', pod('new', [container('main')]));
    const newUid = await podUid(agent, 'new', { after: m, timeoutMs: 30_000 });
    await waitFor('the big file logged', 30_000, () => linesNaming(agent, badPath, m).length > 0, agent);
    const seen = await watch.stop();
    expect(seen.slowestMs, `/healthz stalled for ${Math.round(seen.slowestMs)} ms while the file was parsed`).toBeLessThan(HEALTHZ_MS);
    expect(seen.failures).toEqual([]);
    expect(seen.count).toBeGreaterThan(0);
    await holds('the big file logged once', 2_500, () => linesNaming(agent, badPath, m).length === 1, agent);
    expect(linesNaming(agent, badPath, m)[0]).toContain(`] ${MSG.badFile} `);
    await running(env.cri, newUid, 'main', 20_000, agent);
    // The parse's garbage is given back (the landed agent sat above 300 MB for two minutes).
    await waitFor('resident memory back under 300 MB', 30_000, () => memoryMiB(agent.pid).rss < 300, agent, 500);
    await good.check();
  }, 120_000);

  it('manifests written in place by plain cp start without a spurious "empty" report (issue 13.7)', async () => {
    node = createNode(env.rt, env.cri);
    node.writeManifest('m-good.yaml', pod('good', [container('main')]));
    const health = await healthzEndpoint();
    const agent = await node.start(health.args);
    const good = await guardPod(agent, env.cri, { healthz: health.url });
    const src = join(node.dir, 'copy-src.yaml');
    const m = mark(agent);
    const names = ['c1', 'c2', 'c3', 'c4', 'c5'];
    for (const n of names) {
      // Big enough (comment padding) that cp writes it in several chunks after creating it empty.
      writeFileSync(src, `${stringify(pod(n, [container('main')]))}${`# ${'x'.repeat(1000)}\n`.repeat(300)}`);
      execFileSync('cp', [src, join(node.manifests, `${n}.yaml`)]);
    }
    for (const n of names) await podUid(agent, n, { after: m, timeoutMs: 15_000 });
    const reported = names.flatMap((n) => linesNaming(agent, join(node!.manifests, `${n}.yaml`), m));
    expect(reported).toEqual([]);
    await good.check();
  }, 90_000);
});
