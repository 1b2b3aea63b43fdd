import { describe, expect, it } from 'vitest';
import { FakeRuntime, ManualClock } from '../../../src/cri/fake-runtime.js';
import { fullContainerConfig, fullSandboxConfig } from './cri-fixtures.js';

describe('FakeRuntime stats (issue 18 F)', () => {
  it('reports staged usage for running containers only, and sums them per ready sandbox', async () => {
    const clock = new ManualClock(5_000_000_000n);
    const fake = new FakeRuntime({ now: clock.now, images: ['busybox'] });
    const sbConfig = fullSandboxConfig();
    const sb = await fake.runPodSandbox(sbConfig, 'runc');
    const a = await fake.createContainer(sb, fullContainerConfig('busybox', 'a'), sbConfig);
    const b = await fake.createContainer(sb, fullContainerConfig('busybox', 'b'), sbConfig);
    await fake.startContainer(a);
    await fake.startContainer(b);
    const created = await fake.createContainer(sb, fullContainerConfig('busybox', 'c'), sbConfig);
    fake.stats.set(a, { cpuCoreNanoSeconds: 10, workingSetBytes: 100, writableLayerBytes: 7 });
    fake.stats.set(b, { cpuCoreNanoSeconds: 5 });
    fake.stats.set(b, { workingSetBytes: 1 });

    const all = await fake.listContainerStats();
    expect(all.map((s) => s.id).sort()).toEqual([a, b].sort());
    expect(all.find((s) => s.id === a)).toMatchObject({ metadata: { name: 'a' }, cpu: { timestamp: 5_000_000_000n, usageCoreNanoSeconds: 10 }, memory: { workingSetBytes: 100 }, writableLayer: { usedBytes: 7 } });
    expect(all.find((s) => s.id === b)).toMatchObject({ cpu: { usageCoreNanoSeconds: 5 }, memory: { workingSetBytes: 1 } });
    expect(await fake.listContainerStats({ id: created })).toEqual([]);

    const [pod] = await fake.listPodSandboxStats({ id: sb });
    expect(pod).toMatchObject({ id: sb, metadata: sbConfig.metadata, cpu: { usageCoreNanoSeconds: 15 }, memory: { workingSetBytes: 101 }, processCount: 2 });
    await fake.stopPodSandbox(sb);
    expect(await fake.listPodSandboxStats()).toEqual([]);
    expect(fake.callsOf('listPodSandboxStats')).toEqual([[{ id: sb }], [undefined]]);
  });
});
