// Images on a real containerd with loopback registries: imagePullPolicy Always
// pulls (and the pulled image is the one that runs); a basic-auth registry
// needs the credentials of a docker config.json where the agent looks for it
// (here its --root-dir), and without them the container waits with
// ErrImagePull, then ImagePullBackOff; imagePullPolicy Never on an absent
// image waits with ErrImageNeverPull.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
import { CRI_NAMESPACE, buildVariantImage, localRuntimeUnavailable, startLocalRuntime, startRegistry, type LocalRegistry, type LocalRuntime } from './helpers/local-runtime.js';

const unavailable = localRuntimeUnavailable();
const skip = unavailable !== undefined && !process.env['CI'];
if (skip) console.warn(`image e2e tests skipped: ${unavailable}`);

const AUTH = { username: 'e2e', password: 'p4ss w0rd!' };
/** What a container wrote (CRI log format: `TIME stdout F LINE`), once it wrote something. */
const output = (logPath: string): Promise<string> =>
  waitFor(`output in ${logPath}`, 5_000, () => {
    try {
      const text = readFileSync(logPath, 'utf8');
      return text.includes(' stdout ') ? text : undefined;
    } catch {
      return undefined;
    }
  });

const PRINT_VARIANT = ['sh', '-c', "cat /etc/variant 2>/dev/null || echo none; trap 'exit 0' TERM; while true; do sleep 1 & wait; done"];

describe.skipIf(skip)('image pulls on a real containerd', () => {
  let rt: LocalRuntime;
  let cri: CriRuntime;
  let plain: LocalRegistry;
  let authed: LocalRegistry;
  let plainDigest: string;
  let node: Node;

  beforeAll(async () => {
    [rt, plain, authed] = await Promise.all([startLocalRuntime(), startRegistry(), startRegistry({ auth: AUTH })]);
    cri = await criClient(rt);
    // Images of their own (distinct digests, /etc/variant naming them): nothing in the runtime shares their
    // content, so the runtime can only name and run them after a pull.
    const [pulledImg, privateImg] = await Promise.all([buildVariantImage('e2e-pulled'), buildVariantImage('e2e-private')]);
    [plainDigest] = await Promise.all([plain.push(pulledImg.file, 'test/busybox:v2'), authed.push(privateImg.file, 'private/busybox:1')]);
  }, 120_000);

  afterAll(async () => {
    cri?.close();
    await Promise.allSettled([plain?.stop(), authed?.stop()]);
    await rt?.stop();
  }, 90_000);

  afterEach(async () => {
    await node?.dispose();
  }, 30_000);

  it('imagePullPolicy Always pulls from the local registry and runs the pulled image', async () => {
    const image = plain.ref('test/busybox:v2');
    node = createNode(rt, cri);
    node.writeManifest('pulled.yaml', pod('pulled', [container('main', PRINT_VARIANT, { image, imagePullPolicy: 'Always' })]));
    const agent = await node.start();
    const uid = await podUid(agent, 'pulled');
    const pulled = await waitForLineAfter(agent, logLine('Pulled image', { image }), { timeoutMs: 20_000 });
    expect(field(pulled, 'withCredentials')).toBe('false');
    await phase(agent, 'pulled', 'Running', { timeoutMs: 15_000 });
    expect(field(await waitForLineAfter(agent, logLine('Started container', { pod: staticName('pulled') })), 'imagePulled')).toBe('true');

    const c = await running(cri, uid, 'main', 5_000, agent);
    expect(c.image).toContain('test/busybox');
    // The runtime holds the image under the digest the registry served.
    const images = await rt.ctr(['-n', CRI_NAMESPACE, 'images', 'ls']);
    expect(images.split('\n').find((l) => l.startsWith(`${image} `))).toContain(plainDigest);
    // And the container runs it.
    expect(await output(c.logPath)).toMatch(/ stdout F e2e-pulled$/m);
  }, 60_000);

  it('a basic-auth registry without credentials: the container waits with ErrImagePull, then ImagePullBackOff', async () => {
    const image = authed.ref('private/busybox:1');
    node = createNode(rt, cri);
    node.writeManifest('private.yaml', pod('private', [container('main', PRINT_VARIANT, { image, imagePullPolicy: 'Always' })]));
    const agent = await node.start();
    const uid = await podUid(agent, 'private');
    const errPull = await waitForLineAfter(agent, logLine('Container is waiting', { pod: staticName('private'), container: 'main', reason: 'ErrImagePull' }), { timeoutMs: 20_000 });
    expect(field(errPull, 'message')).toMatch(new RegExp(`^Failed to pull image "${image.replace(/[.]/g, '\\.')}": .*(401|[Uu]nauthorized)`));
    const backOff = await waitForLineAfter(agent, logLine('Container is waiting', { pod: staticName('private'), container: 'main', reason: 'ImagePullBackOff' }), { timeoutMs: 15_000 });
    expect(field(backOff, 'message')).toBe(`Back-off pulling image "${image}"`);
    expect(await podContainers(cri, uid)).toEqual([]);
    expect(linesMatching(agent, logLine('Pulled image'))).toEqual([]);
    expect(agent.lines().find((l) => l.includes(AUTH.password))).toBeUndefined();
  }, 60_000);

  it('a basic-auth registry with credentials from config.json in --root-dir: the pull succeeds', async () => {
    const image = authed.ref('private/busybox:1');
    node = createNode(rt, cri);
    const auth = Buffer.from(`${AUTH.username}:${AUTH.password}`).toString('base64');
    writeFileSync(join(node.root, 'config.json'), JSON.stringify({ auths: { [authed.address]: { auth } } }));
    node.writeManifest('private.yaml', pod('private', [container('main', PRINT_VARIANT, { image, imagePullPolicy: 'Always' })]));
    const agent = await node.start();
    const uid = await podUid(agent, 'private');
    const pulled = await waitForLineAfter(agent, logLine('Pulled image', { image }), { timeoutMs: 20_000 });
    expect(field(pulled, 'withCredentials')).toBe('true');
    await phase(agent, 'private', 'Running', { timeoutMs: 15_000 });
    const c = await running(cri, uid, 'main', 5_000, agent);
    expect(c.image).toContain('private/busybox');
    expect(await output(c.logPath)).toMatch(/ stdout F e2e-private$/m);
    expect(linesMatching(agent, logLine('Container is waiting'))).toEqual([]);
    expect(agent.lines().find((l) => l.includes(AUTH.password) || l.includes(auth))).toBeUndefined();
  }, 60_000);

  it('imagePullPolicy Never with an absent image: the container waits with ErrImageNeverPull and nothing is pulled', async () => {
    const image = 'localhost/absent:v1';
    node = createNode(rt, cri);
    node.writeManifest('never.yaml', pod('never', [container('main', undefined, { image, imagePullPolicy: 'Never' })]));
    const agent = await node.start();
    const uid = await podUid(agent, 'never');
    const w = await waitForLineAfter(agent, logLine('Container is waiting', { pod: staticName('never'), container: 'main', reason: 'ErrImageNeverPull' }), { timeoutMs: 15_000 });
    expect(field(w, 'message')).toBe(`Container image "${image}" is not present with pull policy of Never`);
    // Through a resync: still waiting, nothing created, nothing pulled.
    await holds('no container, no pull', 2_000, async () => (await podContainers(cri, uid)).length === 0 && linesMatching(agent, /Pulled image|Failed to pull image/).length === 0, agent);
    expect(linesMatching(agent, logLine('Pod phase changed', { pod: staticName('never') })).map((l) => field(l, 'to'))).toEqual(['Pending']);
  }, 40_000);
});
