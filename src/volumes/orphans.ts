// The sweep of pod directories no pod owns any more (the kubelet's
// cleanupOrphanedPodDirs in its housekeeping): a pod removed before its
// sandbox existed (it waited for a volume, or its sandbox could not be made)
// never goes through the runtime teardown, and an agent restarted after its
// pods were removed finds their directories left. A component: runs every
// `everyMs` once every source has delivered its pods, stops with its signal.
import { abortableSleep, defineComponent, type Component } from '../lifecycle/index.js';
import type { RuntimeService } from '../cri/types.js';
import type { AgentLogger } from '../log/index.js';
import { LABEL_POD_UID } from '../runtime-view/labels.js';
import type { VolumeManager } from './manager.js';

const SWEEP_EVERY_MS = 10_000;

export interface OrphanCleanupOptions {
  volumes: VolumeManager;
  /** The UIDs of the pods the sources want now; read afresh for every directory. */
  desired: () => Iterable<string>;
  /** Whether every source has delivered its first set of pods (before that, every pod looks unwanted). */
  allSourcesSeen: () => boolean;
  runtime: Pick<RuntimeService, 'listPodSandbox' | 'listContainers'>;
  log: AgentLogger;
  everyMs?: number;
}

export function createOrphanCleanup(opts: OrphanCleanupOptions): Component {
  const log = opts.log.child({ component: 'volumes' });
  return defineComponent('volume-cleanup', async (signal, markReady) => {
    markReady();
    for (;;) {
      try {
        await abortableSleep(opts.everyMs ?? SWEEP_EVERY_MS, signal);
      } catch {
        return;
      }
      if (!opts.allSourcesSeen()) continue;
      try {
        // Listed before the directories are read: a pod the runtime still holds is the teardown's to clean.
        const inRuntime = new Set<string>();
        for (const s of await opts.runtime.listPodSandbox({}, signal)) inRuntime.add(s.labels[LABEL_POD_UID] ?? '');
        for (const c of await opts.runtime.listContainers({}, signal)) inRuntime.add(c.labels[LABEL_POD_UID] ?? '');
        await opts.volumes.cleanupOrphans((uid) => inRuntime.has(uid) || new Set(opts.desired()).has(uid), signal);
      } catch (e) {
        if (signal.aborted) return;
        log.warn('Could not sweep orphaned pod directories', { err: e });
      }
    }
  });
}
