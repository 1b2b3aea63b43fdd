import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { createStatsProvider, type StatsProvider } from '../../../src/stats/provider.js';
import { testLogger } from '../../helpers/test-logger.js';
import { makeFixture, runningPod, type Fixture } from './fixtures.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

function provider(fake: FakeRuntime, onTick?: (w: 'refreshed' | 'skipped') => void, periodMs = 10_000): StatsProvider {
  return createStatsProvider({
    runtime: fake, status: { all: () => [] }, rootDir: fx.rootDir, nodeName: 'node-a', periodMs, log: testLogger(),
    podLogsDir: fx.logs, procRoot: fx.proc, cgroupMount: fx.cgroup, ...(onTick ? { onTick } : {}),
  });
}

/** Resolves after the provider reported `n` ticks of kind `what`. */
function ticks(what: 'refreshed' | 'skipped', n: number): { onTick: (w: 'refreshed' | 'skipped') => void; done: Promise<void> } {
  let seen = 0;
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  return { onTick: (w) => { if (w === what && ++seen === n) resolve(); }, done };
}

describe('createStatsProvider', () => {
  it('has no summary before the first refresh, then the node and the pod from CRI stats and cgroups', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    const { containerId } = await runningPod(fake);
    fake.stats.set(containerId, { cpuCoreNanoSeconds: 3_000_000_000, workingSetBytes: 700, writableLayerBytes: 4096 });
    await fx.setContainerCgroup(containerId, { cpuNs: 2_900_000_000, usage: 1000, inactiveFile: 200, rss: 600 });
    const t = ticks('refreshed', 1);
    const p = provider(fake, t.onTick);
    expect(p.summary()).toBeUndefined();
    const ac = new AbortController();
    const run = p.run(ac.signal);
    await p.ready;
    await t.done;
    const s = p.summary();
    expect(s?.node).toMatchObject({
      nodeName: 'node-a',
      startTime: '2023-11-14T22:13:20Z',
      cpu: { usageCoreNanoSeconds: 5_000_000_000 },
      memory: { usageBytes: 4_000_000_000, workingSetBytes: 3_000_000_000, rssBytes: 2_000_000_000, availableBytes: 16_000_000 * 1024 - 3_000_000_000 },
      network: { name: 'eth0', rxBytes: 1000, txErrors: 2, interfaces: [{ name: 'eth0', rxBytes: 1000, rxErrors: 1, txBytes: 2000, txErrors: 2 }] },
      rlimit: { maxpid: 4194304, curproc: 345 },
      runtime: { imageFs: { usedBytes: expect.any(Number) } },
      systemContainers: [{ name: 'agent', cpu: { usageCoreNanoSeconds: 3_000_000_000 }, memory: { rssBytes: 51200 * 1024 } }],
    });
    expect(s?.node.fs?.capacityBytes).toBeGreaterThan(0);
    expect(s?.pods).toHaveLength(1);
    const pod = s?.pods[0];
    expect(pod?.podRef).toEqual({ name: 'web-node1', namespace: 'default', uid: '0a1b2c3d-uid' });
    // The runtime's figures win; the cgroup fills usage, rss and faults (containerd 1.6 reports the working set only).
    expect(pod?.containers[0]).toMatchObject({
      name: 'app',
      cpu: { usageCoreNanoSeconds: 3_000_000_000 },
      memory: { workingSetBytes: 700, usageBytes: 700, rssBytes: 600, pageFaults: 100, majorPageFaults: 3 },
      rootfs: { usedBytes: 4096, inodesUsed: 1 },
    });
    expect(pod?.containers[0]?.memory?.availableBytes).toBeUndefined(); // no limit
    expect(pod?.cpu?.usageCoreNanoSeconds).toBe(3_000_000_000); // the fake's sandbox stats: the sum of its containers
    expect(pod?.process_stats).toEqual({ process_count: 1 });
    expect(p.snapshot()?.containers).toEqual([{ podUid: '0a1b2c3d-uid', container: 'app', id: containerId, image: 'busybox', cgroup: `/k8s.io/${containerId}` }]);
    // Built on first read, once per refresh: the same object until the next refresh.
    expect(p.summary()).toBe(s);
    expect(p.snapshot()?.summary).toBe(s);
    expect(p.snapshot()?.cpuAndMemory).toBe(p.snapshot()?.cpuAndMemory);
    expect(p.snapshot()?.cpuAndMemory.pods[0]?.containers[0]).toMatchObject({ name: 'app', cpu: { usageCoreNanoSeconds: 3_000_000_000 } });
    ac.abort();
    await run;
  });

  it('derives usageNanoCores from two samples when the runtime reports none, and takes the runtime\'s when it does', async () => {
    let nowMs = Date.parse('2026-01-01T00:00:00Z');
    const fake = new FakeRuntime({ images: ['busybox'], now: () => BigInt(nowMs) * 1_000_000n });
    const { containerId } = await runningPod(fake);
    fake.stats.set(containerId, { cpuCoreNanoSeconds: 1_000_000_000 });
    fake.failNext('listPodSandboxStats', 'UNIMPLEMENTED');
    const seen: Array<number | undefined> = [];
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    let p: StatsProvider | undefined;
    const onTick = (w: 'refreshed' | 'skipped'): void => {
      if (w !== 'refreshed' || p === undefined || seen.length >= 3) return;
      seen.push(p.summary()?.pods[0]?.containers[0]?.cpu?.usageNanoCores);
      nowMs += 2000;
      if (seen.length === 1) fake.stats.set(containerId, { cpuCoreNanoSeconds: 3_000_000_000 }); // 2 core-seconds in 2 s
      if (seen.length === 2) fake.stats.set(containerId, { usageNanoCores: 123 });
      if (seen.length === 3) done();
    };
    p = createStatsProvider({
      runtime: fake, status: { all: () => [] }, rootDir: fx.rootDir, nodeName: 'n', periodMs: 5, log: testLogger(),
      podLogsDir: fx.logs, procRoot: fx.proc, cgroupMount: fx.cgroup, now: () => new Date(nowMs), onTick,
    });
    const ac = new AbortController();
    const run = p.run(ac.signal);
    await finished;
    ac.abort();
    await run;
    expect(seen).toEqual([undefined, 1_000_000_000, 123]);
    // UNIMPLEMENTED is remembered: the runtime is not asked again.
    expect(fake.callsOf('listPodSandboxStats')).toHaveLength(1);
    expect(p.summary()?.pods[0]?.cpu?.usageCoreNanoSeconds).toBe(3_000_000_000); // summed from the containers
  });

  it('reads the pod\'s own cgroup (pod<uid>, made for --pod-max-pids) when the runtime serves no sandbox stats', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    const { sandboxId, containerId } = await runningPod(fake);
    fake.failNext('listPodSandboxStats', 'UNIMPLEMENTED');
    fake.stats.set(containerId, { cpuCoreNanoSeconds: 1_000, workingSetBytes: 10 });
    const podDir = ['platformpods', 'pod0a1b2c3d-uid'];
    for (const [ctl, file, value] of [['cpuacct', 'cpuacct.usage', '7777'], ['memory', 'memory.usage_in_bytes', '5000']] as const) {
      await mkdir(join(fx.cgroup, ctl, ...podDir, sandboxId), { recursive: true });
      await writeFile(join(fx.cgroup, ctl, ...podDir, file), value);
    }
    const t = ticks('refreshed', 1);
    const p = provider(fake, t.onTick);
    const ac = new AbortController();
    const run = p.run(ac.signal);
    await t.done;
    ac.abort();
    await run;
    expect(p.summary()?.pods[0]).toMatchObject({ cpu: { usageCoreNanoSeconds: 7777 }, memory: { usageBytes: 5000, workingSetBytes: 5000 } });
  });

  it('with the runtime down: the node alone, scrape error set, each failing source logged once until it recovers', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    await runningPod(fake);
    fake.setDown(true);
    const log = testLogger();
    let n = 0;
    let whileDown: unknown;
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const p = createStatsProvider({
      runtime: fake, status: { all: () => [] }, rootDir: fx.rootDir, nodeName: 'n', periodMs: 5, log, podLogsDir: fx.logs, procRoot: fx.proc, cgroupMount: fx.cgroup,
      onTick: (w) => {
        if (w !== 'refreshed') return;
        n += 1;
        if (n === 1) whileDown = { scrapeError: p.snapshot()?.scrapeError, pods: p.summary()?.pods.length, node: p.summary()?.node.nodeName };
        if (n === 2) fake.setDown(false);
        if (n === 3) done();
      },
    });
    const ac = new AbortController();
    const run = p.run(ac.signal);
    await finished;
    ac.abort();
    await run;
    expect(whileDown).toEqual({ scrapeError: true, pods: 0, node: 'n' });
    const warned = log.records.filter((r) => r.level === 'warn').map((r) => String(r.fields['error']).split(':')[0]);
    expect(warned.sort()).toEqual(['ImageFsInfo', 'ListContainerStats', 'ListContainers', 'ListPodSandbox', 'ListPodSandboxStats']);
    expect(log.records.filter((r) => r.msg === 'A stats source recovered')).toHaveLength(5);
    expect(p.snapshot()?.scrapeError).toBe(false);
    expect(p.summary()?.pods).toHaveLength(1);
  });

  it.each([0, -1, Number.NaN, Infinity])('refuses periodMs %s', (periodMs) => {
    expect(() => provider(new FakeRuntime(), undefined, periodMs)).toThrow(/periodMs must be a positive number/);
  });

  it('reads the unified (v2) hierarchy when the mount is one; the node\'s memory then comes from /proc/meminfo', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    const { containerId } = await runningPod(fake);
    fake.stats.set(containerId, { cpuCoreNanoSeconds: 1_000, workingSetBytes: 10 });
    const v2 = join(fx.dir, 'unified');
    await mkdir(join(v2, 'system.slice', containerId), { recursive: true });
    await writeFile(join(v2, 'cgroup.controllers'), 'cpu memory pids\n');
    await writeFile(join(v2, 'cpu.stat'), 'usage_usec 9000000\n');
    await writeFile(join(v2, 'system.slice', containerId, 'memory.current'), '800\n');
    await writeFile(join(v2, 'system.slice', containerId, 'memory.stat'), 'anon 300\ninactive_file 100\npgfault 4\npgmajfault 1\n');
    const t = ticks('refreshed', 1);
    const p = createStatsProvider({
      runtime: fake, status: { all: () => [] }, rootDir: fx.rootDir, nodeName: 'n', log: testLogger(), podLogsDir: fx.logs, procRoot: fx.proc, cgroupMount: v2, onTick: t.onTick,
    });
    const ac = new AbortController();
    const run = p.run(ac.signal);
    await t.done;
    ac.abort();
    await run;
    const s = p.summary();
    expect(s?.node.cpu?.usageCoreNanoSeconds).toBe(9_000_000_000);
    expect(s?.node.memory).toMatchObject({ usageBytes: 8_000_000 * 1024, workingSetBytes: 4_000_000 * 1024, availableBytes: 12_000_000 * 1024 });
    expect(s?.pods[0]?.containers[0]?.memory).toMatchObject({ workingSetBytes: 10, usageBytes: 10, rssBytes: 300, pageFaults: 4, majorPageFaults: 1 });
    expect(p.snapshot()?.containers[0]?.cgroup).toBe(`/system.slice/${containerId}`);
  });

  it('skips a tick while a refresh is still running instead of stacking another', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    await runningPod(fake);
    const block = fake.block('listContainerStats');
    const skipped = ticks('skipped', 3);
    const p = provider(fake, skipped.onTick, 5);
    const ac = new AbortController();
    const run = p.run(ac.signal);
    await skipped.done;
    expect(fake.callsOf('listContainerStats')).toHaveLength(1);
    expect(p.summary()).toBeUndefined();
    block.release();
    ac.abort();
    await run;
  });

  it('stops: the refresh in flight is cancelled and awaited, the timer cleared', async () => {
    const fake = new FakeRuntime({ images: ['busybox'] });
    fake.block('listContainerStats');
    const p = provider(fake, undefined, 5);
    const ac = new AbortController();
    const run = p.run(ac.signal);
    await p.ready;
    ac.abort();
    await run;
    const calls = fake.calls.length;
    expect(p.summary()).toBeUndefined();
    // The leak check of this tier fails the file if an interval or handle survived.
    expect(fake.calls.length).toBe(calls);
  });
});
