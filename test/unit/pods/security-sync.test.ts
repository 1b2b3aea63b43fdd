// runAsNonRoot against the image's user on the in-memory runtime: the
// refusal is the container's waiting reason (CreateContainerConfigError) and
// nothing is created; a numeric non-root user runs. And the pod cgroup's
// set-up before the sandbox and removal after teardown.
import { mkdtemp, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { teardownPod } from '../../../src/pods/sync-pod.js';
import { createPodCgroups, podCgroupName, podCgroupsEnabled } from '../../../src/pods/pod-cgroup.js';
import { observePod } from '../../../src/runtime-view/observe.js';
import { IMAGE, staticPod, syncDeps, syncOnce } from '../../helpers/sync-pod.js';
import { testLogger } from '../../helpers/test-logger.js';

describe('runAsNonRoot on the runtime', () => {
  it.each([
    ['an image without USER', undefined, {}, 'container has runAsNonRoot and image will run as root'],
    ['an image of USER nobody', 'nobody', {}, 'container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root'],
    ['runAsUser 0', 1000, { runAsUser: 0 }, "container's runAsUser breaks non-root policy"],
  ])('%s: CreateContainerConfigError, nothing created', async (_what, user, sc, message) => {
    const runtime = new FakeRuntime({ images: [{ ref: IMAGE, ...(user !== undefined ? { user } : {}) }] });
    const p = staticPod({ securityContext: { runAsNonRoot: true, ...sc } });
    const r = await syncOnce(runtime, p);
    expect(r.waiting.get('main')).toEqual({ reason: 'CreateContainerConfigError', message: expect.stringContaining(message) });
    expect(r.waiting.get('main')!.message).toContain(`(pod: "p-n_default(${p.metadata.uid})", container: main)`);
    expect(runtime.containers()).toHaveLength(0);
  });

  it('a numeric non-root image user runs, and is the container user', async () => {
    const runtime = new FakeRuntime({ images: [{ ref: IMAGE, user: 1000 }] });
    const r = await syncOnce(runtime, staticPod({ securityContext: { runAsNonRoot: true } }));
    expect(r.waiting.size).toBe(0);
    expect(runtime.containers()[0]!.config.linux.securityContext.runAsUser).toBe(1000);
  });

  it('an image pulled in this sync is asked for its user', async () => {
    const runtime = new FakeRuntime({ registry: { [IMAGE]: { image: { user: 'nobody' } } } });
    const r = await syncOnce(runtime, staticPod({ securityContext: { runAsNonRoot: true } }));
    expect(r.waiting.get('main')?.reason).toBe('CreateContainerConfigError');
    expect(runtime.calls.filter((c) => c.method === 'pullImage')).toHaveLength(1);
  });
});

describe('pod cgroup (--pod-max-pids)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  /** A cgroup v1 layout in a temporary directory: a few controller directories. */
  async function fakeMount(): Promise<string> {
    const d = await mkdtemp(`${tmpdir()}/agent-cgroup-`);
    dirs.push(d);
    for (const c of ['pids', 'memory', 'cpu,cpuacct']) await mkdir(`${d}/${c}`);
    return d;
  }

  it.each([
    [-1, 'cgroupfs', false],
    [0, 'cgroupfs', false],
    [100, 'cgroupfs', true],
    [100, 'systemd', false],
  ])('limit %i with driver %s: own cgroup %s', (podPidsLimit, cgroupDriver, want) => {
    expect(podCgroupsEnabled({ podPidsLimit, cgroupRoot: '', cgroupDriver })).toBe(want);
  });

  it.each([
    ['u1', '', '/platformpods/podu1'],
    ['u1', '/', '/platformpods/podu1'],
    ['u1', '/custom/', '/custom/podu1'],
    ['u1', 'custom', '/custom/podu1'],
  ])('pod %s under --cgroup-root %j: %s', (uid, root, want) => expect(podCgroupName(uid, root)).toBe(want));

  it('made with pids.max before the sandbox, given as its cgroup_parent, removed after teardown', async () => {
    const mount = await fakeMount();
    const podCgroups = createPodCgroups({ podPidsLimit: 42, cgroupRoot: '', cgroupDriver: 'cgroupfs' }, testLogger(), mount);
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const base = syncDeps(runtime);
    const deps = { ...base, podCgroups, sandbox: { ...base.sandbox, podCgroupParent: podCgroups.parentOf } };
    const p = staticPod({});
    await syncOnce(runtime, p, deps);
    const name = `/platformpods/pod${p.metadata.uid}`;
    expect(await readFile(`${mount}/pids${name}/pids.max`, 'utf8')).toBe('42');
    expect(runtime.sandboxes()[0]!.config.linux.cgroupParent).toBe(name);
    // The runtime would make the other controllers' directories; pretend it did.
    await mkdir(`${mount}/memory${name}`, { recursive: true });
    const ac = new AbortController();
    await rm(`${mount}/pids${name}/pids.max`);
    await teardownPod(await observePod(runtime, p.metadata.uid, ac.signal), 1, deps, ac.signal);
    await expect(stat(`${mount}/pids${name}`)).rejects.toThrow();
    await expect(stat(`${mount}/memory${name}`)).rejects.toThrow();
  });

  it('without a limit: no cgroup, the default parent', async () => {
    const mount = await fakeMount();
    const podCgroups = createPodCgroups({ podPidsLimit: -1, cgroupRoot: '', cgroupDriver: 'cgroupfs' }, testLogger(), mount);
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const base = syncDeps(runtime);
    await syncOnce(runtime, staticPod({}), { ...base, podCgroups, sandbox: { ...base.sandbox, podCgroupParent: podCgroups.parentOf } });
    expect(runtime.sandboxes()[0]!.config.linux.cgroupParent).toBe('');
    await expect(stat(`${mount}/pids/platformpods`)).rejects.toThrow();
  });
});
