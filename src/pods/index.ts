// Public surface of the pods folder: the pod manager (sync loop, pod workers,
// pod cache, admission) and the factory of what a pod sync needs. The
// composition root (src/agent.ts) builds both from the configuration and
// wires them to the sources, the PLEG and the status store.
import { totalmem } from 'node:os';
import type { AgentConfiguration } from '../config/options.js';
import type { RuntimeService } from '../cri/types.js';
import type { ImageManager } from '../images/manager.js';
import type { AgentLogger } from '../log/index.js';
import { CONTAINER_BACKOFF, KeyedBackoff } from '../util/backoff.js';
import { Semaphore } from '../util/rate-limit.js';
import { resolvConfReader } from './resolv-conf.js';
import type { SyncDeps } from './sync-pod.js';
import type { ProbeResultsView } from '../probes/view.js';

export { createPodManager, type PodManager, type PodManagerOptions } from './sync-loop.js';
export { RELIST_WAIT_MS } from './pod-cache.js';
export type { SyncDeps } from './sync-pod.js';

/** Pods started at once (see SyncDeps.startSlots); bench/pods.mjs measured 5 as containerd's best on 2 cores. */
export const POD_START_CONCURRENCY = 5;

export interface SyncDepsInput {
  runtime: RuntimeService;
  images: ImageManager;
  node: { name: string; ip: string };
  cfg: Pick<AgentConfiguration, 'resolvConf' | 'clusterDNS' | 'clusterDomain' | 'cpuCFSQuota' | 'cpuCFSQuotaPeriod' | 'seccompDefault'>;
  /** --root-dir: the pods' volume data lives under <root>/pods/<uid>. */
  rootDirectory: string;
  /** The agent's root logger: the syncs log as component `pods`. */
  log: AgentLogger;
  /** The prober's verdicts, read by every sync. */
  probes?: ProbeResultsView;
}

/**
 * What every pod sync needs, built once. Reads --resolv-conf now so an
 * unreadable file is reported at start, as the kubelet checks it at start
 * (and again for every new sandbox).
 */
export function createSyncDeps(inp: SyncDepsInput): SyncDeps {
  const { cfg, node, rootDirectory } = inp;
  const hostDns = resolvConfReader(cfg.resolvConf, inp.log);
  hostDns();
  return {
    runtime: inp.runtime,
    images: inp.images,
    crashBackoff: new KeyedBackoff(CONTAINER_BACKOFF),
    startSlots: new Semaphore(POD_START_CONCURRENCY),
    nodeName: node.name,
    hostIP: node.ip,
    log: inp.log.child({ component: 'pods' }),
    ...(inp.probes ? { probes: inp.probes } : {}),
    sandbox: { dns: { clusterDNS: cfg.clusterDNS, clusterDomain: cfg.clusterDomain, host: hostDns, nodeIPs: [node.ip] }, podLogsDir: '/var/log/pods', cgroupParent: '' },
    container: {
      cpuCFSQuota: cfg.cpuCFSQuota,
      cpuCFSQuotaPeriodMs: cfg.cpuCFSQuotaPeriod,
      memoryCapacity: totalmem(),
      seccompDefault: cfg.seccompDefault,
      emptyDirPath: (pod, volume) => `${rootDirectory}/pods/${pod.metadata.uid}/volumes/platform.io~empty-dir/${volume}`,
      podDataDir: (uid) => `${rootDirectory}/pods/${uid}`,
    },
  };
}
