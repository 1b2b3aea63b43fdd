// A node's /proc and cgroup v1 files in a temporary directory, and a fake
// runtime with one running pod, for the stats provider's tests.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { fullContainerConfig, fullSandboxConfig } from '../cri/cri-fixtures.js';

export const PROC_STAT = 'cpu  100 20 30 4000 50 6 7 8 0 0\ncpu0 100 20 30 4000 50 6 7 8 0 0\nbtime 1700000000\n';
export const MEMINFO = 'MemTotal:       16000000 kB\nMemFree:         8000000 kB\nMemAvailable:   12000000 kB\n';
export const NET_DEV =
  'Inter-|   Receive                                                |  Transmit\n' +
  ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n' +
  '    lo: 999 9 0 0 0 0 0 0 999 9 0 0 0 0 0 0\n' +
  '  eth0: 1000 10 1 0 0 0 0 0 2000 20 2 0 0 0 0 0\n';
export const NET_ROUTE = 'Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\neth0\t00000000\t0102A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n';

export interface Fixture {
  dir: string;
  proc: string;
  cgroup: string;
  rootDir: string;
  logs: string;
  setContainerCgroup(id: string, f: { cpuNs: number; usage: number; inactiveFile: number; rss: number }): Promise<void>;
  cleanup(): Promise<void>;
}

export async function makeFixture(): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), 'stats-'));
  const proc = join(dir, 'proc');
  const cgroup = join(dir, 'cgroup');
  const files: Record<string, string> = {
    'stat': PROC_STAT,
    'meminfo': MEMINFO,
    'net/dev': NET_DEV,
    'net/route': NET_ROUTE,
    'sys/kernel/pid_max': '4194304\n',
    'loadavg': '0.10 0.20 0.30 2/345 6789\n',
    'self/stat': '42 (node) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 11 0 1000 0 0\n',
    'self/status': 'Name:\tnode\nVmRSS:\t   51200 kB\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(proc, rel, '..'), { recursive: true });
    await writeFile(join(proc, rel), text);
  }
  await mkdir(join(cgroup, 'cpuacct'), { recursive: true });
  await mkdir(join(cgroup, 'memory'), { recursive: true });
  await writeFile(join(cgroup, 'cpuacct', 'cpuacct.usage'), '5000000000\n');
  await writeFile(join(cgroup, 'memory', 'memory.usage_in_bytes'), '4000000000\n');
  await writeFile(join(cgroup, 'memory', 'memory.stat'), 'total_inactive_file 1000000000\ntotal_rss 2000000000\ntotal_pgfault 10\ntotal_pgmajfault 1\n');
  const rootDir = join(dir, 'root');
  const logs = join(dir, 'logs');
  await mkdir(rootDir, { recursive: true });
  await mkdir(logs, { recursive: true });
  return {
    dir, proc, cgroup, rootDir, logs,
    async setContainerCgroup(id, f) {
      const cpu = join(cgroup, 'cpuacct', 'k8s.io', id);
      const mem = join(cgroup, 'memory', 'k8s.io', id);
      await mkdir(cpu, { recursive: true });
      await mkdir(mem, { recursive: true });
      await writeFile(join(cpu, 'cpuacct.usage'), `${f.cpuNs}\n`);
      await writeFile(join(mem, 'memory.usage_in_bytes'), `${f.usage}\n`);
      await writeFile(join(mem, 'memory.limit_in_bytes'), '9223372036854771712\n');
      await writeFile(join(mem, 'memory.stat'), `total_inactive_file ${f.inactiveFile}\ntotal_rss ${f.rss}\ntotal_pgfault 100\ntotal_pgmajfault 3\n`);
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A fake runtime with one READY sandbox and one RUNNING container. */
export async function runningPod(fake: FakeRuntime): Promise<{ sandboxId: string; containerId: string }> {
  const sbConfig = fullSandboxConfig();
  const sandboxId = await fake.runPodSandbox(sbConfig, 'runc');
  const containerId = await fake.createContainer(sandboxId, fullContainerConfig('busybox', 'app'), sbConfig);
  await fake.startContainer(containerId);
  return { sandboxId, containerId };
}
