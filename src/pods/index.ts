// Public surface of the pods folder: the pod manager (sync loop, pod workers,
// pod cache, admission) and the factory of what a pod sync needs. The
// composition root (src/agent.ts) builds both from the configuration and
// wires them to the sources, the PLEG and the status store.
import { statfsSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { apiVolumePlugins, createVolumes, type NodeFacts, type VolumePlugin } from '../volumes/index.js';
import type { ApiObjectSource } from '../api-objects/index.js';
import type { AgentConfiguration } from '../config/options.js';
import type { RuntimeService } from '../cri/types.js';
import type { ImageManager } from '../images/manager.js';
import type { AgentLogger } from '../log/index.js';
import { resolveFeatureGates } from '../config/featuregates.js';
import { CONTAINER_BACKOFF, KeyedBackoff } from '../util/backoff.js';
import { Semaphore } from '../util/rate-limit.js';
import { resolvConfReader } from './resolv-conf.js';
import { createPodCgroups } from './pod-cgroup.js';
import type { SyncDeps } from './sync-pod.js';
import type { ProbeResultsView } from '../probes/view.js';
import type { EventRecorder } from '../events/index.js';

export { createPodManager, type PodManager, type PodManagerOptions } from './sync-loop.js';
export { RELIST_WAIT_MS } from './pod-cache.js';
export { awaitRunOnce, runOnceVerdict, RUN_ONCE_TIMEOUT_MS, type RunOnceVerdict } from './run-once.js';
export type { SyncDeps } from './sync-pod.js';
export { createSysctlAllowlist, SysctlPatternError, type SysctlAllowlist } from './sysctls.js';

/** Pods started at once (see SyncDeps.startSlots); bench/pods.mjs measured 5 as containerd's best on 2 cores. */
export const POD_START_CONCURRENCY = 5;

export interface SyncDepsInput {
  runtime: RuntimeService;
  images: ImageManager;
  node: { name: string; ip: string };
  cfg: Pick<AgentConfiguration, 'resolvConf' | 'clusterDNS' | 'clusterDomain' | 'cpuCFSQuota' | 'cpuCFSQuotaPeriod' | 'seccompDefault' | 'podPidsLimit' | 'cgroupRoot' | 'cgroupDriver'> & Partial<Pick<AgentConfiguration, 'featureGates'>>;
  /** --root-dir: the pods' volume data lives under <root>/pods/<uid>. */
  rootDirectory: string;
  /** The agent's root logger: the syncs log as component `pods`. */
  log: AgentLogger;
  /** The prober's verdicts, read by every sync. */
  probes?: ProbeResultsView;
  /** The pods' events (src/events); none: not recorded. */
  events?: EventRecorder;
  /** API-server mode: configMap/secret/projected volumes, API env and imagePullSecrets read through it; absent (standalone): such pods wait. */
  apiObjects?: ApiObjectSource;
}

/** The node's allocatable resources as volumes see them (nothing reserved): memory, CPUs, the root directory's filesystem. */
function nodeFacts(rootDirectory: string): NodeFacts {
  let ephemeralStorageBytes = 0;
  try {
    const fs = statfsSync(rootDirectory);
    ephemeralStorageBytes = fs.blocks * fs.bsize;
  } catch {
    // Not there yet: a downward API file asking for it reads 0.
  }
  return { memoryBytes: totalmem(), cpuMilli: availableParallelism() * 1000, ephemeralStorageBytes };
}

/** The API-backed volume plugins when there is an object source; ClusterTrustBundle projections follow their gate (alpha, off in 1.28). */
function apiObjectDeps(source: ApiObjectSource | undefined, gates: Readonly<Record<string, boolean>>): { extraPlugins?: VolumePlugin[] } {
  return source ? { extraPlugins: apiVolumePlugins(source, { clusterTrustBundles: gates['ClusterTrustBundle'] === true }) } : {};
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
  const gates = resolveFeatureGates(cfg.featureGates ?? {}).gates;
  const podCgroups = createPodCgroups({ podPidsLimit: cfg.podPidsLimit, cgroupRoot: cfg.cgroupRoot, cgroupDriver: cfg.cgroupDriver }, inp.log.child({ component: 'pods' }));
  return {
    runtime: inp.runtime,
    images: inp.images,
    crashBackoff: new KeyedBackoff(CONTAINER_BACKOFF),
    startSlots: new Semaphore(POD_START_CONCURRENCY),
    nodeName: node.name,
    hostIP: node.ip,
    log: inp.log.child({ component: 'pods' }),
    // SidecarContainers is alpha in 1.28: off unless --feature-gates turns it (or AllAlpha) on.
    sidecars: gates['SidecarContainers'] === true,
    ...(inp.probes ? { probes: inp.probes } : {}),
    ...(inp.events ? { events: inp.events } : {}),
    sandbox: { dns: { clusterDNS: cfg.clusterDNS, clusterDomain: cfg.clusterDomain, host: hostDns, nodeIPs: [node.ip] }, podLogsDir: '/var/log/pods', cgroupParent: '', podCgroupParent: podCgroups.parentOf, seccompDefault: cfg.seccompDefault },
    podCgroups,
    container: {
      cpuCFSQuota: cfg.cpuCFSQuota,
      cpuCFSQuotaPeriodMs: cfg.cpuCFSQuotaPeriod,
      memoryCapacity: totalmem(),
      seccompDefault: cfg.seccompDefault,
      rootDirectory,
    },
    volumes: createVolumes({ rootDirectory, node: nodeFacts(rootDirectory), sizeMemoryBackedVolumes: gates['SizeMemoryBackedVolumes'] ?? true, log: inp.log, ...apiObjectDeps(inp.apiObjects, gates) }),
    ...(inp.apiObjects ? { apiObjects: inp.apiObjects } : {}),
  };
}
