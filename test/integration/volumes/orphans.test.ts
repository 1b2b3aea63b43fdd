// The sweep of orphaned pod directories: once every source has delivered its
// pods, a pod directory whose UID neither a source wants nor the runtime holds
// is torn down; the others stay. Driven by the sweep's own calls (a recording
// volume manager around the real one), on the in-memory runtime.
import { existsSync, mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { createOrphanCleanup, createVolumes, type VolumeManager } from '../../../src/volumes/index.js';
import { tempDir } from '../../helpers/agent-process.js';
import { testLogger } from '../../helpers/test-logger.js';

const tmp = tempDir('agent-orphans-');
afterAll(() => tmp.cleanup());

describe('orphaned pod directories', () => {
  it('are removed once the sources are all seen; wanted and running pods keep theirs', async () => {
    for (const uid of ['wanted', 'running', 'orphan']) mkdirSync(`${tmp.dir}/pods/${uid}/volumes/platform.io~empty-dir/v`, { recursive: true });
    const runtime = new FakeRuntime();
    await runtime.runPodSandbox({ metadata: { name: 'r', namespace: 'ns', uid: 'running', attempt: 0 }, hostname: '', logDirectory: '', dnsConfig: { servers: [], searches: [], options: [] }, portMappings: [], labels: { 'io.platform.pod.uid': 'running' }, annotations: {}, linux: { securityContext: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } } } } as never, '');
    const real = createVolumes({ rootDirectory: tmp.dir, node: { memoryBytes: 1 << 30, cpuMilli: 1000, ephemeralStorageBytes: 0 }, sizeMemoryBackedVolumes: true, log: testLogger() });
    // The sources are all seen from the third check on: the first two periods must sweep nothing.
    let checks = 0;
    const allSourcesSeen = () => ++checks >= 3;
    let sweptAtCheck = 0;
    let swept!: () => void;
    const done = new Promise<void>((r) => (swept = r));
    const volumes: VolumeManager = {
      ...real,
      async cleanupOrphans(keep, signal) {
        sweptAtCheck = checks;
        await real.cleanupOrphans(keep, signal);
        swept();
      },
    };
    const ac = new AbortController();
    const cleanup = createOrphanCleanup({ volumes, desired: () => ['wanted'], allSourcesSeen, runtime, log: testLogger(), everyMs: 1 });
    const run = cleanup.run(ac.signal);
    await cleanup.ready;
    await done;
    expect(sweptAtCheck).toBe(3);
    ac.abort();
    await run;
    expect(['wanted', 'running', 'orphan'].map((u) => existsSync(`${tmp.dir}/pods/${u}`))).toEqual([true, true, false]);
  });
});
