import { describe, expect, it } from 'vitest';
import { CriError, isAlreadyExists, isNotFound, isUnavailable } from '../../../src/cri/errors.js';
import { FakeRuntime, ManualClock, normalizeImageRef } from '../../../src/cri/fake-runtime.js';
import type { Runtime } from '../../../src/cri/types.js';
import { fullContainerConfig, fullSandboxConfig, hostNetworkSandboxConfig } from './cri-fixtures.js';

async function withPod(fake: FakeRuntime, image = 'busybox') {
  const sbConfig = fullSandboxConfig();
  const sb = await fake.runPodSandbox(sbConfig, 'runc');
  const config = fullContainerConfig(image);
  const cid = await fake.createContainer(sb, config, sbConfig);
  return { sb, sbConfig, cid, config };
}

const errorOf = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

describe('FakeRuntime', () => {
  it('implements Runtime', () => {
    const r: Runtime = new FakeRuntime();
    expect(typeof r.listContainers).toBe('function');
  });

  it('runs the sandbox -> container lifecycle with timestamps from the clock', async () => {
    const clock = new ManualClock(1_000_000_000n);
    const fake = new FakeRuntime({ now: clock.now, images: ['busybox'] });
    const { sb, cid, config } = await withPod(fake);
    expect(await fake.podSandboxStatus(sb)).toMatchObject({ state: 'READY', createdAt: 1_000_000_000n, ip: '10.88.0.1', runtimeHandler: 'runc' });
    expect(await fake.containerStatus(cid)).toMatchObject({ state: 'CREATED', createdAt: 1_000_000_000n, startedAt: 0n, finishedAt: 0n, image: config.image });
    clock.advance(5);
    await fake.startContainer(cid);
    expect(await fake.containerStatus(cid)).toMatchObject({ state: 'RUNNING', startedAt: 1_005_000_000n });
    clock.advance(1000);
    await fake.stopContainer(cid, 10);
    expect(await fake.containerStatus(cid)).toMatchObject({ state: 'EXITED', finishedAt: 2_005_000_000n, exitCode: 143, reason: 'Error' });
    await fake.stopContainer(cid, 10); // idempotent
    await fake.removeContainer(cid);
    await fake.removeContainer(cid); // idempotent
    expect(isNotFound(await errorOf(fake.containerStatus(cid)))).toBe(true);
    await fake.stopPodSandbox(sb);
    await fake.stopPodSandbox(sb);
    expect((await fake.podSandboxStatus(sb)).state).toBe('NOTREADY');
    await fake.removePodSandbox(sb);
    await fake.removePodSandbox(sb);
    expect(isNotFound(await errorOf(fake.podSandboxStatus(sb)))).toBe(true);
    expect(isNotFound(await errorOf(fake.stopPodSandbox(sb)))).toBe(true);
  });

  it('exits containers per their program, judged against the clock (crash loops)', async () => {
    const clock = new ManualClock();
    const fake = new FakeRuntime({
      now: clock.now,
      images: ['busybox', 'crasher'],
      onStart: (config) => (config.image.includes('crasher') ? { exitAfterMs: 0, exitCode: 2 } : { exitAfterMs: 1000 }),
    });
    const crash = await withPod(fake, 'crasher');
    await fake.startContainer(crash.cid);
    const st = await fake.containerStatus(crash.cid);
    expect(st).toMatchObject({ state: 'EXITED', exitCode: 2, reason: 'Error' });
    expect(st.finishedAt).toBe(st.startedAt);
    // the next attempt gets its own name (attempt + 1)
    const retry = { ...crash.config, metadata: { name: crash.config.metadata.name, attempt: crash.config.metadata.attempt + 1 } };
    const cid2 = await fake.createContainer(crash.sb, retry, crash.sbConfig);
    expect(cid2).not.toBe(crash.cid);

    const job = await fake.createContainer(crash.sb, { ...fullContainerConfig('busybox', 'job') }, crash.sbConfig);
    await fake.startContainer(job);
    clock.advance(999);
    expect((await fake.containerStatus(job)).state).toBe('RUNNING');
    clock.advance(1);
    const done = await fake.containerStatus(job);
    expect(done).toMatchObject({ state: 'EXITED', exitCode: 0, reason: 'Completed' });
    expect(done.finishedAt - done.startedAt).toBe(1_000_000_000n);
    expect((await fake.listContainers({ state: 'EXITED' })).map((c) => c.id).sort()).toEqual([crash.cid, job].sort());
  });

  it('reports start failures as containerd does', async () => {
    const fake = new FakeRuntime({ images: ['busybox'], onStart: () => ({ startError: 'exec: "nope": executable file not found in $PATH' }) });
    const { cid } = await withPod(fake);
    const err = await errorOf(fake.startContainer(cid));
    expect(err).toBeInstanceOf(CriError);
    expect(err).toMatchObject({ status: 'UNKNOWN' });
    expect(await fake.containerStatus(cid)).toMatchObject({ state: 'EXITED', exitCode: 128, reason: 'StartError', message: expect.stringContaining('executable file not found') });
    expect(await errorOf(fake.startContainer(cid))).toMatchObject({ status: 'FAILED_PRECONDITION' });
  });

  it('lets a test end a container (OOM kill) and stop with a zero timeout (SIGKILL)', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    const { sb, sbConfig, cid } = await withPod(fake);
    await fake.startContainer(cid);
    fake.exitContainer(cid, 137, { reason: 'OOMKilled' });
    expect(await fake.containerStatus(cid)).toMatchObject({ state: 'EXITED', exitCode: 137, reason: 'OOMKilled' });
    expect(() => fake.exitContainer(cid, 1)).toThrow(/not running/);
    const c2 = await fake.createContainer(sb, fullContainerConfig('busybox', 'two'), sbConfig);
    await fake.startContainer(c2);
    await fake.stopContainer(c2, 0);
    expect((await fake.containerStatus(c2)).exitCode).toBe(137);
  });

  it('enforces containerd rules: names reserved per attempt, images present, sandbox ready', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    const { sb, sbConfig, config } = await withPod(fake);
    expect(isAlreadyExists(await errorOf(fake.createContainer(sb, config, sbConfig)))).toBe(true);
    expect(isAlreadyExists(await errorOf(fake.runPodSandbox(sbConfig, 'runc')))).toBe(true);
    expect(isNotFound(await errorOf(fake.createContainer(sb, fullContainerConfig('absent:1', 'x'), sbConfig)))).toBe(true);
    expect(isNotFound(await errorOf(fake.createContainer('nosuch', fullContainerConfig('busybox', 'y'), sbConfig)))).toBe(true);
    await fake.stopPodSandbox(sb);
    expect(await errorOf(fake.createContainer(sb, fullContainerConfig('busybox', 'z'), sbConfig))).toMatchObject({ status: 'FAILED_PRECONDITION' });
  });

  it('stopping a sandbox kills its containers; removing it removes them', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    const { sb, cid } = await withPod(fake);
    await fake.startContainer(cid);
    await fake.removePodSandbox(sb); // ready and running: forcibly stopped and removed
    expect(await fake.listContainers()).toEqual([]);
    expect(await fake.listPodSandbox()).toEqual([]);
  });

  it('filters lists by id, state, sandbox and labels', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    const a = await withPod(fake);
    const hostSb = await fake.runPodSandbox(hostNetworkSandboxConfig(), '');
    expect((await fake.podSandboxStatus(hostSb)).ip).toBe('');
    await fake.startContainer(a.cid);
    expect((await fake.listPodSandbox({ id: hostSb })).map((s) => s.id)).toEqual([hostSb]);
    expect((await fake.listPodSandbox({ labelSelector: { app: 'web' } })).map((s) => s.id)).toEqual([a.sb, hostSb]);
    expect(await fake.listPodSandbox({ labelSelector: { app: 'db' } })).toEqual([]);
    expect((await fake.listContainers({ podSandboxId: a.sb, state: 'RUNNING', labelSelector: { 'io.platform.container.name': 'app' } })).map((c) => c.id)).toEqual([a.cid]);
    expect(await fake.listContainers({ podSandboxId: hostSb })).toEqual([]);
    expect(await fake.listContainers({ state: 'CREATED' })).toEqual([]);
  });

  it('runs execs in running containers only, as the test program answers, and reports image users as the CRI splits them', async () => {
    const fake = new FakeRuntime({ images: ['busybox', { ref: 'app:1', user: 1000 }, { ref: 'app:2', user: 'nobody' }, { ref: 'app:3', user: '0' }] });
    const { cid } = await withPod(fake);
    expect(await errorOf(fake.execSync(cid, ['true'], 1))).toMatchObject({ status: 'FAILED_PRECONDITION' });
    await fake.startContainer(cid);
    expect(await fake.execSync(cid, ['true'], 1)).toEqual({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 });
    fake.setOnExec((cmd, ctx) => ({ exitCode: cmd[0] === 'fail' ? 1 : 0, stdout: Buffer.from(`${ctx.containerId} ${ctx.timeoutSeconds}`) }));
    expect(await fake.execSync(cid, ['fail'], 3)).toEqual({ stdout: Buffer.from(`${cid} 3`), stderr: Buffer.alloc(0), exitCode: 1 });
    await fake.reopenContainerLog(cid);
    await fake.stopContainer(cid, 0);
    expect(await errorOf(fake.reopenContainerLog(cid))).toMatchObject({ status: 'FAILED_PRECONDITION' });
    expect(await fake.imageStatus('app:1')).toMatchObject({ uid: 1000, username: '' });
    expect(await fake.imageStatus('app:2')).toMatchObject({ username: 'nobody' });
    expect((await fake.imageStatus('app:2'))?.uid).toBeUndefined();
    expect(await fake.imageStatus('app:3')).toMatchObject({ uid: 0, username: '' });
    expect((await fake.imageStatus('busybox'))?.uid).toBeUndefined();
  });

  it('keeps its own copies of configs', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    const { cid, config } = await withPod(fake);
    config.labels['mutated'] = 'yes';
    expect((await fake.containerStatus(cid)).labels).not.toHaveProperty('mutated');
    expect(fake.callsOf('createContainer')[0]?.[1].labels).not.toHaveProperty('mutated');
  });

  describe('images', () => {
    it('normalises references as containerd does', () => {
      expect(normalizeImageRef('busybox')).toBe('docker.io/library/busybox:latest');
      expect(normalizeImageRef('busybox:1.36')).toBe('docker.io/library/busybox:1.36');
      expect(normalizeImageRef('user/app')).toBe('docker.io/user/app:latest');
      expect(normalizeImageRef('127.0.0.1:5000/app')).toBe('127.0.0.1:5000/app:latest');
      expect(normalizeImageRef('localhost/app:1')).toBe('localhost/app:1');
      expect(normalizeImageRef('reg.io/a/b@sha256:abc')).toBe('reg.io/a/b@sha256:abc');
    });

    it('finds images by tag, normalised name, id and digest; removes idempotently', async () => {
      const fake = new FakeRuntime({ images: ['busybox', { ref: 'reg.io/app:1', repoDigests: ['reg.io/app@sha256:d'] }] });
      const img = await fake.imageStatus('docker.io/library/busybox:latest');
      expect(img).toMatchObject({ repoTags: ['docker.io/library/busybox:latest'], size: 1_000_000, pinned: false });
      expect(await fake.imageStatus('busybox')).toEqual(img);
      expect(await fake.imageStatus(img?.id ?? '')).toEqual(img);
      expect((await fake.imageStatus('reg.io/app@sha256:d'))?.repoTags).toEqual(['reg.io/app:1']);
      expect(await fake.imageStatus('busybox:2')).toBeUndefined();
      await fake.removeImage('busybox');
      await fake.removeImage('busybox');
      expect((await fake.listImages()).map((i) => i.repoTags[0])).toEqual(['reg.io/app:1']);
      expect(await fake.imageFsInfo()).toEqual([{ mountpoint: '/var/lib/fake-runtime/images', usedBytes: 1_000_000, inodesUsed: 10 }]);
    });

    it('pulls from the pretend registry: unknown images NOT_FOUND, credentials checked, failures injected', async () => {
      const fake = new FakeRuntime({
        images: ['local:1'],
        registry: { 'priv:1': { auth: { username: 'u', password: 'p' } }, 'broken:1': { error: new CriError('UNKNOWN', 'failed to pull: unexpected EOF') } },
      });
      expect(isNotFound(await errorOf(fake.pullImage('nosuch:1', undefined, undefined)))).toBe(true);
      expect(await fake.pullImage('local:1', undefined, undefined)).toBe((await fake.imageStatus('local:1'))?.id);
      expect(((await errorOf(fake.pullImage('priv:1', { username: 'u', password: 'x' }, undefined))) as CriError).details).toContain('401 Unauthorized');
      const id = await fake.pullImage('priv:1', { username: 'u', password: 'p' }, undefined);
      expect((await fake.imageStatus('priv:1'))?.id).toBe(id);
      expect(((await errorOf(fake.pullImage('broken:1', undefined, undefined))) as CriError).details).toContain('unexpected EOF');
    });

    it('delays a pull in real time and lets the signal cancel it', async () => {
      const fake = new FakeRuntime({ registry: { 'slow:1': { delayMs: 60_000 } } });
      const ac = new AbortController();
      const pull = fake.pullImage('slow:1', undefined, undefined, ac.signal);
      const reason = new Error('stop');
      ac.abort(reason);
      await expect(pull).rejects.toBe(reason);
      expect(await fake.imageStatus('slow:1')).toBeUndefined();
    });
  });

  describe('fault injection and the call log', () => {
    it('fails the next calls of a method as asked', async () => {
      const fake = new FakeRuntime();
      fake.failNext('listContainers', 'DEADLINE_EXCEEDED', 2);
      fake.failNext('version', new CriError('UNIMPLEMENTED', 'unknown service runtime.v1.RuntimeService'));
      await expect(fake.listContainers()).rejects.toMatchObject({ status: 'DEADLINE_EXCEEDED' });
      await expect(fake.listContainers()).rejects.toMatchObject({ status: 'DEADLINE_EXCEEDED' });
      await expect(fake.listContainers()).resolves.toEqual([]);
      await expect(fake.version()).rejects.toMatchObject({ status: 'UNIMPLEMENTED' });
      await expect(fake.version()).resolves.toMatchObject({ runtimeApiVersion: 'v1' });
    });

    it('answers UNAVAILABLE to everything while down, keeping its state', async () => {
      const fake = new FakeRuntime({ images: ['busybox'] });
      const { cid } = await withPod(fake);
      fake.setDown(true);
      expect(isUnavailable(await errorOf(fake.containerStatus(cid)))).toBe(true);
      expect(isUnavailable(await errorOf(fake.listImages()))).toBe(true);
      fake.setDown(false);
      expect((await fake.containerStatus(cid)).state).toBe('CREATED');
    });

    it('holds a call until released, or until its signal aborts', async () => {
      const fake = new FakeRuntime();
      const held = fake.block('status');
      let done = false;
      const call = fake.status().then((r) => ((done = true), r));
      await held.arrived;
      expect(done).toBe(false);
      held.release();
      expect(await call).toHaveLength(2);

      const held2 = fake.block('status');
      const ac = new AbortController();
      const call2 = fake.status(ac.signal);
      await held2.arrived;
      ac.abort('bye');
      await expect(call2).rejects.toBe('bye');
      await expect(held2.cancelled).resolves.toBe('bye');
    });

    it('records every call with its arguments, failed ones included, in order', async () => {
      const fake = new FakeRuntime();
      fake.setDown(true);
      await errorOf(fake.stopContainer('c9', 30));
      fake.setDown(false);
      await fake.listPodSandbox({ state: 'READY' });
      await expect(fake.version(AbortSignal.abort())).rejects.toBeDefined();
      expect(fake.calls).toEqual([
        { method: 'stopContainer', args: ['c9', 30] },
        { method: 'listPodSandbox', args: [{ state: 'READY' }] },
        { method: 'version', args: [] },
      ]);
      expect(fake.callsOf('stopContainer')).toEqual([['c9', 30]]);
    });

    it('reports and changes runtime conditions', async () => {
      const fake = new FakeRuntime();
      expect(await fake.status()).toEqual([
        { type: 'RuntimeReady', status: true, reason: '', message: '' },
        { type: 'NetworkReady', status: true, reason: '', message: '' },
      ]);
      fake.setCondition('NetworkReady', false, 'NetworkPluginNotReady', 'cni plugin not initialized');
      expect((await fake.status())[1]).toEqual({ type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'cni plugin not initialized' });
    });
  });
});
