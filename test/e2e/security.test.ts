// Security and kernel settings on a real containerd (issue 15.6): sysctls
// allowed (the safe set, --allowed-unsafe-sysctls) and refused at admission
// (SysctlForbidden), runAsNonRoot against the image's user (the busybox image
// runs as root: CreateContainerConfigError), runAsUser, a read-only root
// filesystem, capabilities, privileged, allowPrivilegeEscalation, and the
// pod's PID limit (--pod-max-pids) as the pod cgroup's pids.max. One agent,
// every pod at once.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container, createNode, field, logLine, pod, podSandboxes, podUid, running, staticName, waitFor, waitForLineAfter, type Node } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';
import type { AgentDaemon } from '../helpers/agent-daemon.js';

const skip = skipWithoutRuntime('security');

const PIDS_LIMIT = 24;
/** Where the pod cgroups' pids controller is: cgroups v1 (these machines) or the unified v2 hierarchy. */
const PIDS_CGROUP = existsSync('/sys/fs/cgroup/cgroup.controllers') ? '/sys/fs/cgroup/platformpods' : '/sys/fs/cgroup/pids/platformpods';

/** CapEff of the container's own process (pid 1), as hex. */
const CAP_EFF = ['sh', '-c', "grep CapEff /proc/1/status | cut -f2"];

describe.skipIf(skip)('security settings on a real containerd', () => {
  const env = useRuntime();
  let node: Node;
  let agent: AgentDaemon;
  const uids = new Map<string, string>();

  const exec = async (podName: string, name: string, cmd: string[]) => {
    const c = await running(env.cri, uids.get(podName)!, name, 20_000, agent);
    const r = await env.cri.execSync(c.id, cmd, 10);
    return { code: r.exitCode, out: r.stdout.toString().trim(), err: r.stderr.toString().trim() };
  };

  beforeAll(async () => {
    node = createNode(env.rt, env.cri);
    const sysctls = (list: Array<[string, string]>) => ({ securityContext: { sysctls: list.map(([name, value]) => ({ name, value })) } });
    // Sysctls of the IPC namespace: these pods run on the host network (but have their own IPC namespace).
    node.writeManifest('sysctl-ok.yaml', pod('sysctl-ok', [container('main')], { ...sysctls([['kernel.shm_rmid_forced', '1'], ['kernel.msgmax', '12345']]) }));
    node.writeManifest('sysctl-unsafe.yaml', pod('sysctl-unsafe', [container('main')], sysctls([['kernel.sem', '250 32000 32 128']])));
    node.writeManifest('sysctl-hostnet.yaml', pod('sysctl-hostnet', [container('main')], sysctls([['net.ipv4.tcp_syncookies', '1']])));
    node.writeManifest('nonroot.yaml', pod('nonroot', [container('main')], { securityContext: { runAsNonRoot: true } }));
    node.writeManifest('nonroot-uid.yaml', pod('nonroot-uid', [container('main', undefined, { securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 3000 } })], { securityContext: { supplementalGroups: [4000], fsGroup: 2000 } }));
    node.writeManifest('readonly.yaml', pod('readonly', [container('main', undefined, { securityContext: { readOnlyRootFilesystem: true } })]));
    node.writeManifest('caps.yaml', pod('caps', [
      container('dropped', undefined, { securityContext: { capabilities: { drop: ['ALL'], add: ['CHOWN'] }, allowPrivilegeEscalation: false } }),
      container('plain'),
      container('privileged', undefined, { securityContext: { privileged: true } }),
    ]));
    node.writeManifest('pids.yaml', pod('pids', [container('main')]));
    agent = await node.start(['--allowed-unsafe-sysctls=kernel.msg*', `--pod-max-pids=${PIDS_LIMIT}`]);
    for (const name of ['sysctl-ok', 'nonroot', 'nonroot-uid', 'readonly', 'caps', 'pids']) uids.set(name, await podUid(agent, name));
    // A pod rejected at admission is never added: its UID is in the rejection.
    for (const name of ['sysctl-unsafe', 'sysctl-hostnet']) {
      const line = await waitForLineAfter(agent, logLine('Pod rejected at admission', { pod: staticName(name) }), { timeoutMs: 10_000 });
      uids.set(name, field(line, 'podUID')!);
    }
  }, 90_000);

  afterAll(async () => {
    await node?.dispose();
  }, 60_000);

  it('an allowed unsafe sysctl and a safe one are set in the pod; the container sees them in /proc/sys', async () => {
    expect((await exec('sysctl-ok', 'main', ['cat', '/proc/sys/kernel/msgmax'])).out).toBe('12345');
    expect((await exec('sysctl-ok', 'main', ['cat', '/proc/sys/kernel/shm_rmid_forced'])).out).toBe('1');
  }, 30_000);

  it('a sysctl outside the allowlist, and a network one on the host network, reject the pod at admission (SysctlForbidden)', async () => {
    const unsafe = await waitForLineAfter(agent, logLine('Pod rejected at admission', { pod: staticName('sysctl-unsafe') }), { timeoutMs: 10_000 });
    expect(field(unsafe, 'reason')).toBe('SysctlForbidden');
    expect(field(unsafe, 'message')).toBe('forbidden sysctl: "kernel.sem" not allowlisted');
    const hostnet = await waitForLineAfter(agent, logLine('Pod rejected at admission', { pod: staticName('sysctl-hostnet') }), { timeoutMs: 10_000 });
    expect(field(hostnet, 'reason')).toBe('SysctlForbidden');
    expect(field(hostnet, 'message')).toBe('forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled');
    // Rejected pods never start: no sandbox, while the allowed pod runs.
    await running(env.cri, uids.get('sysctl-ok')!, 'main', 20_000, agent);
    expect(await podSandboxes(env.cri, uids.get('sysctl-unsafe')!)).toEqual([]);
    expect(await podSandboxes(env.cri, uids.get('sysctl-hostnet')!)).toEqual([]);
  }, 30_000);

  it('runAsNonRoot on an image that runs as root: CreateContainerConfigError with the kubelet\'s message, nothing created', async () => {
    const line = await waitForLineAfter(agent, logLine('Container is waiting', { pod: staticName('nonroot'), container: 'main', reason: 'CreateContainerConfigError' }), { timeoutMs: 20_000 });
    expect(field(line, 'message')).toBe(`container has runAsNonRoot and image will run as root (pod: "nonroot-e2e-node_default(${uids.get('nonroot')})", container: main)`);
    expect(await env.cri.listContainers({ labelSelector: { 'io.platform.pod.uid': uids.get('nonroot')! } })).toEqual([]);
  }, 30_000);

  it('runAsNonRoot with runAsUser 1000 runs as that user, with its group and the pod\'s groups', async () => {
    expect((await exec('nonroot-uid', 'main', ['id', '-u'])).out).toBe('1000');
    expect((await exec('nonroot-uid', 'main', ['id', '-g'])).out).toBe('3000');
    const groups = (await exec('nonroot-uid', 'main', ['id', '-G'])).out.split(/\s+/);
    expect(groups).toEqual(expect.arrayContaining(['3000', '2000', '4000']));
  }, 30_000);

  it('a read-only root filesystem refuses a write', async () => {
    const w = await exec('readonly', 'main', ['sh', '-c', 'echo x > /written']);
    expect(w.code).not.toBe(0);
    expect(w.err).toMatch(/Read-only file system/i);
  }, 30_000);

  it('capabilities drop/add, privileged, and no_new_privs show in the processes', async () => {
    // CHOWN alone is bit 0.
    expect((await exec('caps', 'dropped', CAP_EFF)).out).toBe('0000000000000001');
    expect((await exec('caps', 'dropped', ['sh', '-c', 'grep NoNewPrivs /proc/1/status | cut -f2'])).out).toBe('1');
    expect((await exec('caps', 'plain', ['sh', '-c', 'grep NoNewPrivs /proc/1/status | cut -f2'])).out).toBe('0');
    const plain = BigInt(`0x${(await exec('caps', 'plain', CAP_EFF)).out}`);
    const privileged = BigInt(`0x${(await exec('caps', 'privileged', CAP_EFF)).out}`);
    // The runtime's default set is a strict subset of a privileged container's.
    expect(plain & privileged).toBe(plain);
    expect(privileged).toBeGreaterThan(plain);
    // procMount Default: /proc/timer_list is masked for the plain container, not for the privileged one.
    expect((await exec('caps', 'plain', ['sh', '-c', 'wc -c < /proc/timer_list'])).out).toBe('0');
    expect(Number((await exec('caps', 'privileged', ['sh', '-c', 'wc -c < /proc/timer_list'])).out)).toBeGreaterThan(0);
  }, 30_000);

  it('--pod-max-pids: the pod cgroup has the limit, the containers are in it, a fork beyond it fails, and it goes with the pod', async () => {
    const uid = uids.get('pids')!;
    const dir = `${PIDS_CGROUP}/pod${uid}`;
    await running(env.cri, uid, 'main', 20_000, agent);
    expect(readFileSync(`${dir}/pids.max`, 'utf8').trim()).toBe(String(PIDS_LIMIT));
    // The sandbox and the container have their cgroups below the pod's.
    expect(readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).length).toBeGreaterThanOrEqual(2);
    const fork = await exec('pids', 'main', ['sh', '-c', `i=0; while [ $i -lt ${PIDS_LIMIT + 8} ]; do sleep 30 >/dev/null 2>&1 & i=$((i+1)); done; echo forked $i`]);
    expect(`${fork.out}\n${fork.err}`).toMatch(/can't fork|Resource temporarily unavailable|Try again/i);
    expect(Number(readFileSync(`${dir}/pids.current`, 'utf8'))).toBeLessThanOrEqual(PIDS_LIMIT);
    node.removeManifest('pids.yaml');
    await waitFor('the pod cgroup removed after teardown', 20_000, () => !existsSync(dir), agent);
  }, 45_000);
});
