// Issue 13.6 (and the pod-cap items of 13.7) on a real containerd: manifests
// the API server's pod validation rejects are refused by both sources, each
// with a message naming the field, while the GOOD pod runs on and valid
// manifests still start; a pod refused over the pod cap starts once it is
// edited after a slot frees up, and its removal is not logged as a teardown.
import { afterEach, describe, expect, it } from 'vitest';
import {
  BUSYBOX,
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
import { healthzEndpoint } from './helpers/process-health.js';
import { MSG, fatalLines, guardPod, linesNaming, serveManifest, type ManifestServer, sharedRuntime, skipWithoutRuntime } from './helpers/source-faults.js';

const skip = skipWithoutRuntime();

interface Invalid {
  what: string;
  pod: Record<string, unknown>;
  /** The field path the message must name. */
  field: RegExp;
}

const probe = (p: Record<string, unknown>) => [container('main', undefined, { livenessProbe: p })];

/** Pods the API server's validation rejects (issue 13.6), each named after its case. */
const INVALID: readonly Invalid[] = [
  { what: 'sysctl kernel.bogus..x', pod: pod('v-sysctl', [container('main')], { securityContext: { sysctls: [{ name: 'kernel.bogus..x', value: '1' }] } }), field: /spec\.securityContext\.sysctls\[0\]\.name/ },
  { what: 'annotations of 300 000 bytes', pod: { ...pod('v-annotation', [container('main')]), metadata: { name: 'v-annotation', annotations: { big: 'x'.repeat(300_000) } } }, field: /metadata\.annotations/ },
  { what: 'ephemeralContainers', pod: pod('v-ephemeral', [container('main')], { ephemeralContainers: [{ name: 'debug', image: BUSYBOX }] }), field: /spec\.ephemeralContainers/ },
  { what: 'host alias IP not-an-ip', pod: pod('v-hostalias', [container('main')], { hostAliases: [{ ip: 'not-an-ip', hostnames: ['x.example'] }] }), field: /spec\.hostAliases\[0\]\.ip/ },
  { what: 'nodeSelector key "bad key!"', pod: pod('v-selector', [container('main')], { nodeSelector: { 'bad key!': 'v' } }), field: /spec\.nodeSelector/ },
  { what: 'a probe with no handler', pod: pod('v-nohandler', probe({ periodSeconds: 5 })), field: /spec\.containers\[0\]\.livenessProbe/ },
  { what: 'periodSeconds -1', pod: pod('v-period', probe({ exec: { command: ['true'] }, periodSeconds: -1 })), field: /spec\.containers\[0\]\.livenessProbe\.periodSeconds/ },
];

const nameOf = (p: Record<string, unknown>): string => (p['metadata'] as { name: string }).name;

describe.skipIf(skip)('pod validation in the pod sources (issue 13.6)', () => {
  const env = sharedRuntime();
  let node: Node | undefined;
  let server: ManifestServer | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await node?.dispose();
    node = undefined;
  }, 30_000);

  it('the file source refuses each invalid manifest, naming the file and the field; a valid one after them starts, a deleted one stops', async () => {
    node = createNode(env.rt, env.cri);
    node.writeManifest('m-good.yaml', pod('good', [container('main')]));
    node.writeManifest('y-old.yaml', pod('old', [container('main')]));
    const health = await healthzEndpoint();
    const agent = await node.start(health.args);
    const good = await guardPod(agent, env.cri, { healthz: health.url });
    const oldUid = await podUid(agent, 'old');

    const m = mark(agent);
    const paths = INVALID.map((c) => node!.writeManifest(`${nameOf(c.pod)}.yaml`, c.pod));
    node.writeManifest('z-new.yaml', pod('new', [container('main')]));
    node.removeManifest('y-old.yaml');
    await running(env.cri, await podUid(agent, 'new', { after: m, timeoutMs: 10_000 }), 'main', 20_000, agent);
    await waitForLineAfter(agent, logLine('Pod torn down', { podUID: oldUid }), { after: m, timeoutMs: 15_000 });
    // Wait for all, then name the ones never logged (the landed agent accepts most of them).
    await waitFor('every invalid manifest logged', 10_000, () => paths.every((p) => linesNaming(agent, p, m).length > 0)).catch(() => undefined);
    expect(INVALID.filter((_, i) => linesNaming(agent, paths[i]!, m).length === 0).map((c) => c.what), 'accepted').toEqual([]);
    await holds('each logged once', 2_500, () => paths.every((p) => linesNaming(agent, p, m).length === 1), agent);
    const problems = INVALID.map((c, i) => {
      const line = linesNaming(agent, paths[i]!, m)[0]!;
      return { what: c.what, ok: line.includes(`] ${MSG.badFile} `) && c.field.test(field(line, 'err') ?? ''), line };
    });
    expect(problems.filter((p) => !p.ok)).toEqual([]);
    expect(linesMatching(agent, logLine('Pod added'), m).map((l) => field(l, 'pod'))).toEqual([staticName('new')]);
    expect(fatalLines(agent, m)).toEqual([]);
    await good.check();
  }, 90_000);

  it('the URL source refuses a list holding an invalid pod, naming the item and the field, and keeps its last pods', async () => {
    node = createNode(env.rt, env.cri);
    const list = (...items: Record<string, unknown>[]): string => JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items });
    const goodPod = pod('good', [container('main')]);
    let body = list(goodPod);
    server = await serveManifest(() => body);
    const health = await healthzEndpoint();
    const agent = await node.start([`--manifest-url=${server.url}`, '--http-check-frequency=1s', ...health.args], { manifestPath: false });
    const good = await guardPod(agent, env.cri, { healthz: health.url });
    const errors = (after: number): string[] => linesMatching(agent, logLine(MSG.badUrl, { url: server!.url }), after);

    const m = mark(agent);
    const wrong: string[] = [];
    for (const c of INVALID) {
      const before = mark(agent);
      body = list(goodPod, c.pod);
      const line = await waitForLineAfter(agent, logLine(MSG.badUrl, { url: server.url }), { after: before, timeoutMs: 5_000 }).catch(() => undefined);
      if (line === undefined) {
        wrong.push(`${c.what}: accepted`);
        continue;
      }
      const err = field(line, 'err') ?? '';
      if (!(/items\[1\]/.test(err) && c.field.test(err))) wrong.push(`${c.what}: ${err.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
    expect(errors(m)).toHaveLength(INVALID.length);
    expect(linesMatching(agent, /\] (Pod added|Pod changed|Tearing down)/, m)).toEqual([]);
    await good.check();
  }, 120_000);

  it('a pod refused over the pod cap starts when edited after a slot frees up; removing a refused pod is no teardown (issue 13.7)', async () => {
    node = createNode(env.rt, env.cri);
    node.writeManifest('a-good.yaml', pod('good', [container('main')]));
    node.writeManifest('b-first.yaml', pod('first', [container('main')]));
    const agent = await node.start(['--max-pods=2']);
    const good = await guardPod(agent, env.cri);
    const firstUid = await podUid(agent, 'first');
    await running(env.cri, firstUid, 'main', 20_000, agent);

    let m = mark(agent);
    node.writeManifest('c-over.yaml', pod('over', [container('main')]));
    node.writeManifest('d-gone.yaml', pod('gone', [container('main')]));
    await waitForLineAfter(agent, logLine('Pod rejected at admission', { pod: staticName('over') }), { after: m, timeoutMs: 10_000 });
    const goneRejected = await waitForLineAfter(agent, logLine('Pod rejected at admission', { pod: staticName('gone') }), { after: m, timeoutMs: 10_000 });

    // A refused pod removed: nothing ran, so nothing is torn down.
    m = mark(agent);
    node.removeManifest('d-gone.yaml');
    // A slot frees up; then the refused pod's manifest is edited: it is admitted now.
    node.removeManifest('b-first.yaml');
    await waitForLineAfter(agent, logLine('Pod torn down', { podUID: firstUid }), { after: m, timeoutMs: 15_000 });
    node.writeManifest('c-over.yaml', pod('over', [container('main', undefined, { env: [{ name: 'EDITED', value: '1' }] })]));
    const overLine = await waitFor('the edited pod admitted', 15_000, () => {
      const added = linesMatching(agent, (l) => (logLine('Pod added', { pod: staticName('over') })(l) || logLine('Pod changed', { pod: staticName('over') })(l)), m);
      return added.length > 0 ? added[added.length - 1] : undefined;
    }, agent);
    await running(env.cri, field(overLine, 'podUID')!, 'main', 20_000, agent);
    const goneUid = field(goneRejected, 'podUID')!;
    expect(linesMatching(agent, (l) => /\] Tearing down/.test(l) && field(l, 'podUID') === goneUid)).toEqual([]);
    await good.check();
  }, 120_000);
});
