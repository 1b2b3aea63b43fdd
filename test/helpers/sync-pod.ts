// One pod sync against the in-memory runtime, with the dependencies the
// pipeline would give it (pod logs under a temporary directory).
import { afterAll } from 'vitest';
import { decodePod } from '../../src/pod-model/pod-decode.js';
import type { Pod } from '../../src/pod-model/pod-types.js';
import type { FakeRuntime } from '../../src/cri/fake-runtime.js';
import { ImageManager } from '../../src/images/manager.js';
import { observePod } from '../../src/runtime-view/observe.js';
import { syncPod, type SyncDeps } from '../../src/pods/sync-pod.js';
import { applyStaticPodDefaults } from '../../src/sources/static-pod.js';
import { KeyedBackoff } from '../../src/util/backoff.js';
import { tempDir } from './agent-process.js';
import { testLogger } from './test-logger.js';

export const IMAGE = 'localhost/busybox:latest';

const tmp = tempDir('agent-sync-');
afterAll(() => tmp.cleanup());

/** A static pod (node "n") with one container "main" of IMAGE, IfNotPresent, host network; `container` overrides fields. */
export function staticPod(container: Record<string, unknown>, name = 'p'): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { hostNetwork: true, containers: [{ name: 'main', image: IMAGE, imagePullPolicy: 'IfNotPresent', ...container }] } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return applyStaticPodDefaults(d.pod, 'n', 'file', `/m/${name}.yaml`, new Date());
}

export function syncDeps(runtime: FakeRuntime, more: Partial<SyncDeps> & { pullBackoff?: KeyedBackoff } = {}): SyncDeps {
  const { pullBackoff = new KeyedBackoff({ initialMs: 60_000, maxMs: 300_000 }), ...rest } = more;
  const log = testLogger();
  return {
    runtime,
    images: new ImageManager({ images: runtime, maxParallel: 1, backoff: pullBackoff, credentials: async () => [], log }),
    crashBackoff: new KeyedBackoff({ initialMs: 10_000, maxMs: 300_000 }),
    nodeName: 'n',
    hostIP: '127.0.0.1',
    log,
    sandbox: { dns: { clusterDNS: [], clusterDomain: '', host: () => undefined, nodeIPs: ['127.0.0.1'] }, podLogsDir: tmp.dir, cgroupParent: '' },
    container: { cpuCFSQuota: true, cpuCFSQuotaPeriodMs: 100, memoryCapacity: 1 << 30, seccompDefault: false, rootDirectory: tmp.dir },
    ...rest,
  };
}

/** Observes the pod in the runtime, then syncs it once. */
export async function syncOnce(runtime: FakeRuntime, p: Pod, d = syncDeps(runtime)) {
  const ac = new AbortController();
  return syncPod(p, await observePod(runtime, p.metadata.uid, ac.signal), d, ac.signal);
}
