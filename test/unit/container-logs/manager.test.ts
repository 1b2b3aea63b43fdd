// The rotation manager on the in-memory runtime and a temporary log
// directory: rotation at the size limit, compression and pruning, the reopen
// call, the rename back when the reopen fails, the per-tick cap.
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { createContainerLogManager } from '../../../src/container-logs/index.js';
import { testLogger } from '../../helpers/test-logger.js';

const IMAGE = 'localhost/busybox:latest';
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A running container whose log lives in a temporary pod log directory. */
async function setup(containers = 1) {
  const dir = await mkdtemp(`${tmpdir()}/agent-logs-`);
  dirs.push(dir);
  const runtime = new FakeRuntime({ images: [IMAGE] });
  const meta = { name: 'p', uid: 'u', namespace: 'ns', attempt: 0 };
  const sandbox = { metadata: meta, hostname: '', logDirectory: dir, portMappings: [], labels: {}, annotations: {}, linux: { cgroupParent: '', sysctls: {}, securityContext: { namespaceOptions: { network: 'NODE' as const, pid: 'CONTAINER' as const, ipc: 'POD' as const }, privileged: false } } };
  const sb = await runtime.runPodSandbox(sandbox, '');
  const ids: string[] = [];
  for (let i = 0; i < containers; i++) {
    const name = `c${i}`;
    await mkdir(`${dir}/${name}`);
    const config = { metadata: { name, attempt: 0 }, image: IMAGE, command: [], args: [], workingDir: '', envs: [], mounts: [], labels: {}, annotations: {}, logPath: `${name}/0.log`, stdin: false, stdinOnce: false, tty: false, linux: { resources: { cpuPeriod: 0, cpuQuota: 0, cpuShares: 2, memoryLimitInBytes: 0, oomScoreAdj: 0 }, securityContext: { privileged: false, readonlyRootfs: false, namespaceOptions: sandbox.linux.securityContext.namespaceOptions } } };
    const id = await runtime.createContainer(sb, config, sandbox);
    await runtime.startContainer(id);
    ids.push(id);
  }
  return { dir, runtime, ids };
}

let clock = Date.UTC(2026, 10, 24, 5, 0, 0);
const now = () => new Date((clock += 1000));
const signal = new AbortController().signal;

describe('container log manager', () => {
  it('rotates at the size limit, asks for a reopen, compresses older files and keeps at most max files', async () => {
    const { dir, runtime, ids } = await setup();
    const log = `${dir}/c0/0.log`;
    const m = createContainerLogManager({ runtime, maxSize: 10, maxFiles: 3, log: testLogger(), now });
    await writeFile(log, 'small');
    await m.tick(signal);
    expect(await readdir(`${dir}/c0`)).toEqual(['0.log']);
    for (let round = 0; round < 4; round++) {
      await writeFile(log, `round ${round} of log lines`);
      await m.tick(signal);
      // The fake runtime does not recreate the file on reopen: the runtime would.
      await writeFile(log, '');
    }
    const files = (await readdir(`${dir}/c0`)).sort();
    expect(files).toHaveLength(3);
    expect(files[0]).toBe('0.log');
    expect(files[1]).toMatch(/^0\.log\.\d{8}-\d{6}\.gz$/);
    expect(files[2]).toMatch(/^0\.log\.\d{8}-\d{6}$/);
    expect(gunzipSync(await readFile(`${dir}/c0/${files[1]}`)).toString()).toBe('round 2 of log lines');
    expect(await readFile(`${dir}/c0/${files[2]}`, 'utf8')).toBe('round 3 of log lines');
    expect(runtime.calls.filter((c) => c.method === 'reopenContainerLog').map((c) => c.args[0])).toEqual([ids[0], ids[0], ids[0], ids[0]]);
  });

  it('a failed reopen renames the log back and is logged; the next tick tries again', async () => {
    const { dir, runtime } = await setup();
    const log = `${dir}/c0/0.log`;
    const records = testLogger();
    const m = createContainerLogManager({ runtime, maxSize: 10, maxFiles: 3, log: records, now });
    await writeFile(log, 'x'.repeat(20));
    runtime.failNext('reopenContainerLog', 'UNAVAILABLE');
    await m.tick(signal);
    expect(await readdir(`${dir}/c0`)).toEqual(['0.log']);
    expect(records.records.some((r) => r.level === 'warn' && r.msg === 'Failed to rotate the log of a container')).toBe(true);
    await m.tick(signal);
    // Rotated this time (the fake runtime does not make the new live file, as a real one would).
    expect(await readdir(`${dir}/c0`)).toEqual([expect.stringMatching(/^0\.log\.\d{8}-\d{6}$/)]);
  });

  it('a missing live log is reopened, not rotated', async () => {
    const { runtime, ids } = await setup();
    const m = createContainerLogManager({ runtime, maxSize: 10, maxFiles: 3, log: testLogger(), now });
    await m.tick(signal);
    expect(runtime.calls.filter((c) => c.method === 'reopenContainerLog').map((c) => c.args[0])).toEqual([ids[0]]);
  });

  it('handles at most the cap per tick, going on where it stopped', async () => {
    const { dir, runtime, ids } = await setup(3);
    for (let i = 0; i < 3; i++) await writeFile(`${dir}/c${i}/0.log`, 'x'.repeat(20));
    const m = createContainerLogManager({ runtime, maxSize: 10, maxFiles: 3, log: testLogger(), now, maxContainersPerTick: 2 });
    const reopened = () => runtime.calls.filter((c) => c.method === 'reopenContainerLog').map((c) => c.args[0]);
    await m.tick(signal);
    expect(reopened()).toHaveLength(2);
    await m.tick(signal);
    expect(new Set(reopened())).toEqual(new Set(ids));
  });

  it('finds the log of a container the agent made from its labels, with no ContainerStatus call, and reads its directory only to rotate', async () => {
    const root = await mkdtemp(`${tmpdir()}/agent-pod-logs-`);
    dirs.push(root);
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const meta = { name: 'web', uid: 'u1', namespace: 'ns', attempt: 0 };
    const logDir = `${root}/ns_web_u1`;
    const namespaceOptions = { network: 'NODE' as const, pid: 'CONTAINER' as const, ipc: 'POD' as const };
    const sandbox = { metadata: meta, hostname: '', logDirectory: logDir, portMappings: [], labels: {}, annotations: {}, linux: { cgroupParent: '', sysctls: {}, securityContext: { namespaceOptions, privileged: false } } };
    const sb = await runtime.runPodSandbox(sandbox, '');
    const labels = { 'io.platform.pod.name': 'web', 'io.platform.pod.namespace': 'ns', 'io.platform.pod.uid': 'u1', 'io.platform.container.name': 'main' };
    const config = { metadata: { name: 'main', attempt: 2 }, image: IMAGE, command: [], args: [], workingDir: '', envs: [], mounts: [], labels, annotations: { 'io.platform.container.restartCount': '2' }, logPath: 'main/2.log', stdin: false, stdinOnce: false, tty: false, linux: { resources: { cpuPeriod: 0, cpuQuota: 0, cpuShares: 2, memoryLimitInBytes: 0, oomScoreAdj: 0 }, securityContext: { privileged: false, readonlyRootfs: false, namespaceOptions } } };
    const id = await runtime.createContainer(sb, config, sandbox);
    await runtime.startContainer(id);
    await mkdir(`${logDir}/main`, { recursive: true });
    await writeFile(`${logDir}/main/2.log`, 'small');
    const m = createContainerLogManager({ runtime, maxSize: 10, maxFiles: 3, podLogsDir: root, log: testLogger(), now });
    await m.tick(signal);
    expect(runtime.calls.map((c) => c.method)).toEqual(['runPodSandbox', 'createContainer', 'startContainer', 'listContainers']);
    await writeFile(`${logDir}/main/2.log`, 'x'.repeat(20));
    await m.tick(signal);
    expect(runtime.calls.map((c) => c.method).slice(4)).toEqual(['listContainers', 'reopenContainerLog']);
    expect((await readdir(`${logDir}/main`)).some((f) => /^2\.log\.\d{8}-\d{6}$/.test(f))).toBe(true);
  });

  it('runs on its period until its signal aborts, then stops', async () => {
    const { runtime } = await setup();
    const m = createContainerLogManager({ runtime, maxSize: 10, maxFiles: 3, log: testLogger(), now, periodMs: 60_000 });
    const ac = new AbortController();
    const run = m.run(ac.signal);
    await m.ready;
    ac.abort(new Error('stop'));
    await run.catch(() => {});
    const calls = runtime.calls.length;
    await new Promise((r) => setImmediate(r));
    expect(runtime.calls.length).toBe(calls);
  });
});
