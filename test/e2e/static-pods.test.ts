// Static pods from a manifest directory on a real containerd: a pod starts and
// reaches Running; an edit restarts only the changed container; deleting the
// file tears the pod down; a bad manifest is reported once and leaves the
// other pods alone, and fixing it starts its pod; --resolv-conf is read as it
// is when each pod starts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { CriRuntime } from '../../src/cri/grpc-client.js';
import {
  LABEL_POD_UID,
  NODE,
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
} from './helpers/agent-node.js';
import { localRuntimeUnavailable, startLocalRuntime, type LocalRuntime } from './helpers/local-runtime.js';

const unavailable = localRuntimeUnavailable();
const skip = unavailable !== undefined && !process.env['CI'];
if (skip) console.warn(`static pod e2e tests skipped: ${unavailable}`);

describe.skipIf(skip)('static pods on a real containerd', () => {
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

  it('starts a static pod and reports it Running; the runtime runs its container under the pod UID', async () => {
    node = createNode(rt, cri);
    node.writeManifest('web.yaml', pod('web', [container('main')]));
    const agent = await node.start();
    const uid = await podUid(agent, 'web');
    await waitForLineAfter(agent, logLine('Created pod sandbox', { pod: staticName('web') }), { timeoutMs: 15_000 });
    await phase(agent, 'web', 'Running', { timeoutMs: 15_000 });

    const c = await running(cri, uid, 'main', 5_000, agent);
    expect(c.labels[LABEL_POD_UID]).toBe(uid);
    expect(c.labels['io.platform.pod.name']).toBe('web-e2e-node');
    expect(c.labels['io.platform.pod.namespace']).toBe('default');
    expect(c.restartCount).toBe(0);
    expect(c.startedAt).toBeGreaterThan(0n);
    const sandboxes = await podSandboxes(cri, uid);
    expect(sandboxes).toHaveLength(1);
    expect(sandboxes[0]!.state).toBe('READY');
    expect(c.sandboxId).toBe(sandboxes[0]!.id);
    // The agent's own log names the container the runtime runs.
    const started = await waitForLineAfter(agent, logLine('Started container', { container: 'main' }));
    expect(field(started, 'containerID')).toBe(c.id);
  }, 40_000);

  it('a pod on the pod network gets its address from CNI and its own hostname; its container sees both; teardown releases it', async () => {
    node = createNode(rt, cri);
    // Nothing connects to the pod: the container only prints what the agent gave it.
    const script = "echo ip=$POD_IP host=$(hostname); trap 'exit 0' TERM; while true; do sleep 1 & wait; done";
    const env = [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }];
    node.writeManifest('net.yaml', pod('net', [container('main', ['sh', '-c', script], { env })], { hostNetwork: false }));
    const agent = await node.start();
    const uid = await podUid(agent, 'net');
    const main = await running(cri, uid, 'main', 20_000, agent);
    const [sandbox] = await podSandboxes(cri, uid);
    const status = await cri.podSandboxStatus(sandbox!.id);
    expect(status.ip).toMatch(/^10\.99\.\d+\.\d+$/);
    expect(status.namespaceOptions.network).not.toBe('NODE');
    const printed = await waitFor('the container prints its address', 10_000, () => {
      try {
        return /ip=(\S*) host=(\S*)/.exec(readFileSync(main.logPath, 'utf8')) ?? undefined;
      } catch {
        return undefined;
      }
    }, agent);
    expect(printed[1]).toBe(status.ip);
    expect(printed[2]).toBe(`net-${NODE}`);
    await phase(agent, 'net', 'Running', { timeoutMs: 10_000 });

    node.removeManifest('net.yaml');
    await waitFor('pod network sandbox removed', 20_000, async () => (await podSandboxes(cri, uid)).length === 0, agent);
  });

  it('a pod gets the --resolv-conf resolver as the file is when the pod starts: an edit reaches the next pod, not a running one', async () => {
    node = createNode(rt, cri);
    const resolvConf = join(node.dir, 'resolv.conf');
    writeFileSync(resolvConf, 'nameserver 192.0.2.53\nsearch one.example\n');
    const agent = await node.start([`--resolv-conf=${resolvConf}`]);
    const printResolvConf = ['sh', '-c', "cat /etc/resolv.conf; trap 'exit 0' TERM; while true; do sleep 1 & wait; done"];
    const printed = async (name: string) => {
      const c = await running(cri, await podUid(agent, name), 'main', 20_000, agent);
      const text = await waitFor(`${name} prints its resolv.conf`, 10_000, () => {
        try {
          const t = readFileSync(c.logPath, 'utf8');
          return t.includes('search') ? t : undefined;
        } catch {
          return undefined;
        }
      }, agent);
      return { id: c.id, text };
    };
    node.writeManifest('dns-a.yaml', pod('dns-a', [container('main', printResolvConf)]));
    const a = await printed('dns-a');
    expect(a.text).toMatch(/nameserver 192\.0\.2\.53/);
    expect(a.text).toMatch(/search one\.example/);

    // As DHCP or systemd-resolved rewrites it.
    writeFileSync(resolvConf, 'nameserver 198.51.100.7\nsearch two.example\n');
    node.writeManifest('dns-b.yaml', pod('dns-b', [container('main', printResolvConf)]));
    const b = await printed('dns-b');
    expect(b.text).toMatch(/nameserver 198\.51\.100\.7/);
    expect(b.text).toMatch(/search two\.example/);
    expect(b.text).not.toMatch(/192\.0\.2\.53/);
    // The running pod keeps its sandbox and container.
    expect((await running(cri, await podUid(agent, 'dns-a'), 'main', 5_000, agent)).id).toBe(a.id);
  }, 60_000);

  it('restarts only the container whose spec changed when the manifest is edited', async () => {
    node = createNode(rt, cri);
    const keep = container('keep');
    node.writeManifest('pair.yaml', pod('pair', [keep, container('change')]));
    const agent = await node.start();
    const uid = await podUid(agent, 'pair');
    await phase(agent, 'pair', 'Running', { timeoutMs: 15_000 });
    const keepBefore = await running(cri, uid, 'keep', 5_000, agent);
    const changeBefore = await running(cri, uid, 'change', 5_000, agent);

    const m = mark(agent);
    node.writeManifest('pair.yaml', pod('pair', [keep, container('change', ['sh', '-c', "trap 'exit 0' TERM; echo edited; while true; do sleep 1 & wait; done"])]));
    await waitForLineAfter(agent, logLine('Pod changed', { pod: staticName('pair') }), { after: m, timeoutMs: 10_000 });
    const changed = await running(cri, uid, 'change', 15_000, agent, (c) => c.id !== changeBefore.id);
    expect(changed.restartCount).toBe(1);
    expect(changed.annotations['io.platform.container.hash']).not.toBe(changeBefore.annotations['io.platform.container.hash']);
    expect(await waitForLineAfter(agent, logLine('Killing container', { container: 'change' }), { after: m })).toMatch(/reason="Changed"/);

    const keepAfter = await running(cri, uid, 'keep', 5_000, agent);
    expect(keepAfter.id).toBe(keepBefore.id);
    expect(keepAfter.startedAt).toBe(keepBefore.startedAt);
    expect(keepAfter.restartCount).toBe(0);
    // Same pod, same sandbox: nothing else was recreated.
    expect(changed.sandboxId).toBe(keepBefore.sandboxId);
    expect(linesMatching(agent, (l) => logLine('Created pod sandbox')(l) || logLine('Started container', { container: 'keep' })(l), m)).toEqual([]);
    // The replaced instance does not run any more.
    const old = (await podContainers(cri, uid)).find((c) => c.id === changeBefore.id);
    expect(old === undefined || old.state === 'EXITED').toBe(true);
  }, 45_000);

  it('stops and removes the pod when its manifest is deleted', async () => {
    node = createNode(rt, cri);
    node.writeManifest('gone.yaml', pod('gone', [container('a'), container('b')]));
    node.writeManifest('stays.yaml', pod('stays', [container('main')]));
    const agent = await node.start();
    const uid = await podUid(agent, 'gone');
    const staysUid = await podUid(agent, 'stays');
    await phase(agent, 'gone', 'Running', { timeoutMs: 15_000 });
    await running(cri, uid, 'a', 5_000, agent);
    const stays = await running(cri, staysUid, 'main', 15_000, agent);

    const m = mark(agent);
    node.removeManifest('gone.yaml');
    await waitForLineAfter(agent, logLine('Pod removed from its source; stopping it', { pod: staticName('gone') }), { after: m, timeoutMs: 10_000 });
    await waitForLineAfter(agent, logLine('Tearing down pod', { pod: staticName('gone') }), { after: m, timeoutMs: 10_000 });
    await waitForLineAfter(agent, logLine('Pod torn down', { pod: staticName('gone'), podUID: uid }), { after: m, timeoutMs: 15_000 });
    expect(await podContainers(cri, uid)).toEqual([]);
    expect(await podSandboxes(cri, uid)).toEqual([]);
    // The other pod is untouched.
    const after = await running(cri, staysUid, 'main', 5_000, agent);
    expect(after.id).toBe(stays.id);
    expect(after.startedAt).toBe(stays.startedAt);
  }, 45_000);

  it('reports a bad manifest once, naming the file and the field; the good pod keeps running; a fix starts the pod', async () => {
    node = createNode(rt, cri);
    node.writeManifest('good.yaml', pod('good', [container('main')]));
    const agent = await node.start();
    const goodUid = await podUid(agent, 'good');
    const good = await running(cri, goodUid, 'main', 15_000, agent);

    // No image.
    const m = mark(agent);
    const noImage = pod('fixme', [{ name: 'main', command: ['sleep', '1000'] }]);
    const badPath = node.writeManifest('fixme.yaml', noImage);
    const line = await waitForLineAfter(agent, /Could not process manifest file/, { after: m, timeoutMs: 10_000 });
    expect(field(line, 'path')).toBe(badPath);
    expect(field(line, 'err')).toMatch(/spec\.containers\[0\]\.image/);

    // Duplicate container names.
    const dupPath = node.writeManifest('dup.yaml', pod('dup', [container('same'), container('same')]));
    const dupLine = await waitForLineAfter(agent, logLine('Could not process manifest file', { path: dupPath }), { after: m, timeoutMs: 10_000 });
    expect(field(dupLine, 'err')).toMatch(/spec\.containers\[1\]\.name/);
    expect(field(dupLine, 'err')).toMatch(/[Dd]uplicate/);

    // Other kinds of bad manifest, each named with its problem; a dot-file is not read at all.
    const others: Array<[string, string, RegExp]> = [
      ['kind.yaml', stringify({ ...pod('svc', [container('main')]), kind: 'Service' }), /^kind: must be "Pod"/],
      ['syntax.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: broken\n', /YAML syntax error/],
      ['twin.yaml', stringify(pod('good', [container('main')])), new RegExp(`pod ${staticName('good')} is already declared by ${node.manifests}/good\\.yaml`)],
    ];
    for (const [file, text, re] of others) {
      const path = node.writeManifest(file, text);
      expect(field(await waitForLineAfter(agent, logLine('Could not process manifest file', { path }), { after: m, timeoutMs: 10_000 }), 'err')).toMatch(re);
    }
    node.writeManifest('.hidden.yaml', 'not: [a pod');

    // Through several rescans (--file-check-frequency=1s): still one line per bad file, the good pod untouched.
    await holds('bad manifests reported once, good pod untouched', 3_500, async () => {
      const c = await podContainers(cri, goodUid);
      return (
        linesMatching(agent, logLine('Could not process manifest file', { path: badPath }), m).length === 1 &&
        linesMatching(agent, logLine('Could not process manifest file', { path: dupPath }), m).length === 1 &&
        linesMatching(agent, logLine('Could not process manifest file'), m).length === 2 + others.length &&
        linesMatching(agent, /Pod (added|changed|removed)/, m).length === 0 &&
        c.length === 1 && c[0]!.id === good.id && c[0]!.state === 'RUNNING'
      );
    }, agent);
    const goodAfter = await running(cri, goodUid, 'main', 5_000, agent);
    expect(goodAfter.id).toBe(good.id);
    expect(goodAfter.startedAt).toBe(good.startedAt);

    // Fixing the file starts its pod.
    const fix = mark(agent);
    node.writeManifest('fixme.yaml', pod('fixme', [container('main')]));
    await waitForLineAfter(agent, logLine('Manifest file is valid again', { path: badPath }), { after: fix, timeoutMs: 10_000 });
    const fixedUid = await podUid(agent, 'fixme', { after: fix });
    await phase(agent, 'fixme', 'Running', { after: fix, timeoutMs: 15_000 });
    await running(cri, fixedUid, 'main', 5_000, agent);
    expect((await running(cri, goodUid, 'main', 5_000, agent)).id).toBe(good.id);
  }, 45_000);
});
