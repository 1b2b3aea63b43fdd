// `agent --print-plan` as an operator runs it, against the fake CRI runtime
// over real gRPC: after an agent ran three pods and stopped, one manifest is
// edited, one added and one deleted; the plan names each pod's actions (in
// sync, spec changed, missing, no longer declared) and the runtime sees no
// call that changes anything.
import { rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgentProcess, tempDir } from '../helpers/agent-process.js';
import { killAllDaemons, startAgent } from '../helpers/agent-daemon.js';
import { FakeRuntime } from '../../src/cri/fake-runtime.js';
import { FakeCriServer } from '../helpers/fake-cri-server.js';

const manifest = (name: string, image = 'localhost/busybox:1') =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  hostNetwork: true\n  containers:\n  - name: c\n    image: ${image}\n    imagePullPolicy: IfNotPresent\n`;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await killAllDaemons();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const MUTATING = new Set(['runPodSandbox', 'stopPodSandbox', 'removePodSandbox', 'createContainer', 'startContainer', 'stopContainer', 'removeContainer', 'pullImage', 'removeImage', 'execSync', 'reopenContainerLog']);

/** A fake CRI runtime over gRPC, a manifest directory and the agent's flags for them; all removed after the test. */
async function node() {
  const cri = await FakeCriServer.start({ runtime: new FakeRuntime({ images: ['localhost/busybox:1'] }) });
  cleanups.push(() => cri.dispose());
  const t = tempDir();
  cleanups.push(() => t.cleanup());
  const dir = join(t.dir, 'manifests');
  mkdirSync(dir);
  const flags = [`--pod-manifest-path=${dir}`, `--container-runtime-endpoint=${cri.endpoint}`, `--root-dir=${join(t.dir, 'root')}`, '--hostname-override=node-a', '--node-ip=127.0.0.1'];
  return { cri, t, dir, flags };
}

describe('agent --print-plan', () => {
  it('prints what the sync loop would do for a pod running as declared, one whose spec changed, one missing and one no longer declared, changing nothing', async () => {
    const { cri, dir, flags } = await node();
    for (const name of ['steady', 'edited', 'gone']) writeFileSync(join(dir, `${name}.yaml`), manifest(name));
    const agent = startAgent([...flags, '--healthz-port=0', '--read-only-port=0', '--logging-format=json']);
    const deadline = Date.now() + 20_000;
    const runningCount = async () => (await cri.runtime.listContainers({ state: 'RUNNING' })).length;
    while ((await runningCount()) < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await runningCount()).toBe(3);
    agent.kill('SIGTERM');
    expect((await agent.waitForExit(15_000)).code).toBe(0);

    writeFileSync(join(dir, 'edited.yaml'), manifest('edited', 'localhost/busybox:2'));
    writeFileSync(join(dir, 'fresh.yaml'), manifest('fresh'));
    rmSync(join(dir, 'gone.yaml'));
    const before = cri.runtime.calls.length;
    const run = await runAgentProcess([...flags, '--print-plan'], { timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).toMatch(/^# node node-a \(127\.0\.0\.1\); runtime unix:/m);
    expect(out).toMatch(/^pod default\/steady-node-a \(uid [0-9a-f]+, from --pod-manifest-path\): in sync\n {2}- nothing to do: 1 container running as declared$/m);
    expect(out).toMatch(/^pod default\/edited-node-a \(uid [0-9a-f]+, from --pod-manifest-path\): to change\n {2}- kill container c \(Changed\): Container c definition changed, will be restarted\n {2}- pull image localhost\/busybox:2 \(not present\)\n {2}- start container c \(restart 1\)$/m);
    expect(out).toMatch(/^pod default\/fresh-node-a \(uid [0-9a-f]+, from --pod-manifest-path\): to start\n {2}- create sandbox \(attempt 0\)\n {2}- start container c$/m);
    expect(out).toMatch(/^pod default\/gone-node-a \(uid [0-9a-f]+, runtime\): to tear down\n {2}- stop and remove \(1 container, 1 sandbox\): no source declares it$/m);
    expect(out).toMatch(/^Summary: .*Nothing was changed\.$/m);
    const calls = cri.runtime.calls.slice(before).map((c) => c.method);
    expect(calls.filter((m) => MUTATING.has(m))).toEqual([]);
    expect(calls).toContain('listContainers');
    expect(await runningCount()).toBe(3);
  }, 90_000);

  it('shows the volumes a pod would wait for and a pod admission would refuse', async () => {
    const { cri, t, dir, flags } = await node();
    const withSpec = (name: string, extra: string) => manifest(name).replace('spec:\n', `spec:\n${extra}`);
    writeFileSync(join(dir, 'cfg.yaml'), withSpec('cfg', '  volumes:\n  - name: settings\n    configMap: {name: settings}\n'));
    writeFileSync(join(dir, 'host.yaml'), withSpec('host', `  volumes:\n  - name: data\n    hostPath: {path: ${join(t.dir, 'absent')}, type: Directory}\n`));
    writeFileSync(join(dir, 'sysctl.yaml'), withSpec('sysctl', '  securityContext:\n    sysctls:\n    - {name: kernel.msgmax, value: "65536"}\n'));
    const run = await runAgentProcess([...flags, '--print-plan'], { timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^pod default\/cfg-node-a \(uid [0-9a-f]+, from --pod-manifest-path\): waiting\n {2}- wait for volume settings: volume "settings" \(configMap\) cannot be served by a standalone agent: no API server$/m);
    expect(run.stdout).toContain(`  - wait for volume data: MountVolume.SetUp failed for volume "data" : hostPath type check failed: ${join(t.dir, 'absent')} is not a directory\n`);
    expect(run.stdout).toMatch(/^pod default\/sysctl-node-a \(uid [0-9a-f]+, from --pod-manifest-path\): rejected\n {2}- reject at admission: SysctlForbidden: forbidden sysctl: "kernel\.msgmax" not allowlisted$/m);
    expect(cri.runtime.calls.map((c) => c.method).filter((m) => MUTATING.has(m))).toEqual([]);
  });

  it('exits 1 for an invalid configuration without reading anything', async () => {
    const run = await runAgentProcess(['--print-plan', '--sync-frequency=often']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/sync-frequency/);
  });

  it('exits 1 naming the runtime when the runtime cannot be reached', async () => {
    const t = tempDir();
    cleanups.push(() => t.cleanup());
    const run = await runAgentProcess([`--pod-manifest-path=${t.dir}`, `--container-runtime-endpoint=unix://${join(t.dir, 'none.sock')}`, '--runtime-request-timeout=2s', '--print-plan'], { timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/Could not compute the plan/);
    expect(run.stderr).toContain('none.sock');
  }, 70_000);
});
