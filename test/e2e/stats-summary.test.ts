// /stats/summary's figures on a real containerd: a busybox pod burning CPU
// and holding ~30 MB is run by the agent; a stats provider reads the same
// runtime, and right after one of its refreshes the test reads the runtime's
// ContainerStats and the container's v1 cgroup files itself. The summary's
// numbers must be within 10 % of both.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createStatsProvider, type StatsProvider } from '../../src/stats/index.js';
import { container, pod, podUid, running, waitFor } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('stats summary');
const quiet = { info() {}, warn() {}, error() {} };
const HOG = ['sh', '-c', "x=$(head -c 30000000 /dev/zero | tr '\\0' a); while :; do :; done"];

/** The container's cgroup path below the v1 hierarchy root, found independently of the provider's search. */
function cgroupOf(id: string): string {
  const out = execFileSync('find', ['/sys/fs/cgroup/memory', '-maxdepth', '5', '-type', 'd', '-name', id], { encoding: 'utf8' }).trim().split('\n')[0] ?? '';
  if (out === '') throw new Error(`no memory cgroup named ${id}`);
  return out.slice('/sys/fs/cgroup/memory'.length);
}
const num = (path: string): number => Number(readFileSync(path, 'utf8').trim());
const near = (what: string, got: number | undefined, want: number): void => {
  expect(got, what).toBeDefined();
  expect(Math.abs((got ?? 0) - want), `${what}: summary ${got}, reference ${want}`).toBeLessThanOrEqual(0.1 * want);
};

describe.skipIf(skip)('stats summary on a real containerd', () => {
  const env = useRuntime();

  it('reports the container and pod within 10 % of the runtime\'s stats and the cgroup files', async () => {
    const node = env.newNode();
    node.writeManifest('hog.yaml', pod('hog', [container('main', HOG)]));
    const agent = await node.start();
    const uid = await podUid(agent, 'hog');
    const c = await running(env.cri, uid, 'main', 30_000, agent);
    const cg = cgroupOf(c.id);
    // Holding its memory and having burnt some CPU before the comparison.
    await waitFor('the hog to hold 25 MB and burn 1 s of CPU', 30_000, () =>
      num(`/sys/fs/cgroup/memory${cg}/memory.usage_in_bytes`) > 25_000_000 && num(`/sys/fs/cgroup/cpuacct${cg}/cpuacct.usage`) > 1e9, agent);

    let onRefresh: (() => void) | undefined;
    const provider: StatsProvider = createStatsProvider({
      runtime: env.cri, status: { all: () => [] }, rootDir: node.root, nodeName: 'e2e-node', periodMs: 1000, log: quiet,
      onTick: (w) => w === 'refreshed' && onRefresh?.(),
    });
    const ac = new AbortController();
    const run = provider.run(ac.signal);
    try {
      // The second refresh: usageNanoCores then has two samples behind it either way.
      let refreshes = 0;
      const reference = await new Promise<{ cpu: number; ws: number; cgCpu: number; cgUsage: number }>((resolve, reject) => {
        onRefresh = () => {
          if (++refreshes !== 2) return;
          onRefresh = undefined;
          Promise.all([env.cri.listContainerStats({ id: c.id })]).then(([[s]]) => {
            resolve({
              cpu: s?.cpu?.usageCoreNanoSeconds ?? NaN,
              ws: s?.memory?.workingSetBytes ?? NaN,
              cgCpu: num(`/sys/fs/cgroup/cpuacct${cg}/cpuacct.usage`),
              cgUsage: num(`/sys/fs/cgroup/memory${cg}/memory.usage_in_bytes`),
            });
          }, reject);
        };
      });
      const summary = provider.summary();
      const p = summary?.pods.find((x) => x.podRef.uid === uid);
      const sc = p?.containers.find((x) => x.name === 'main');
      near('container cpu vs CRI', sc?.cpu?.usageCoreNanoSeconds, reference.cpu);
      near('container cpu vs cpuacct.usage', sc?.cpu?.usageCoreNanoSeconds, reference.cgCpu);
      near('container working set vs CRI', sc?.memory?.workingSetBytes, reference.ws);
      near('container usage vs memory.usage_in_bytes', sc?.memory?.usageBytes, reference.cgUsage);
      expect(sc?.cpu?.usageNanoCores).toBeGreaterThan(0);
      // The pod: this container plus an idle pause process.
      near('pod cpu vs CRI', p?.cpu?.usageCoreNanoSeconds, reference.cpu);
      near('pod working set vs CRI', p?.memory?.workingSetBytes, reference.ws);
      expect(p?.podRef).toMatchObject({ name: 'hog-e2e-node', namespace: 'default' });
      expect(summary?.node.cpu?.usageCoreNanoSeconds).toBeGreaterThan(reference.cgCpu * 0.9);
      expect(summary?.node.memory?.workingSetBytes).toBeGreaterThan(reference.ws * 0.9);
      expect(summary?.node.runtime?.imageFs?.capacityBytes).toBeGreaterThan(0);
      expect(provider.snapshot()?.containers.find((x) => x.id === c.id)?.cgroup).toBe(cg);
    } finally {
      ac.abort();
      await run;
    }
  }, 120_000);
});
