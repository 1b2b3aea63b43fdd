// Assembles the pod pipeline from the configuration: runtime (CRI, with the
// version handshake), image manager, sources → merger → pod manager, PLEG.
// Returns its components in start order; the composition root runs them.
import { networkInterfaces, totalmem } from 'node:os';
import { isIP } from 'node:net';
import type { AgentConfiguration } from '../config/options.js';
import type { AgentFlags } from '../config/flag-options.js';
import { effectiveMaxPods, maxParallelImagePulls, registryRateLimit } from '../config/effective.js';
import type { Component } from '../lifecycle/component.js';
import type { LivenessRegistry } from '../lifecycle/liveness.js';
import type { AgentLogger } from '../log/index.js';
import { nodeName } from '../node/name.js';
import { ImageManager } from '../images/manager.js';
import { configFileCandidates, credentialLookup } from '../images/credentials.js';
import { CredentialPlugins, loadProviderConfig } from '../images/credential-plugins.js';
import { createPleg } from '../pleg/generic.js';
import { PodConfigMerger, type SourceName } from '../sources/merger.js';
import { createFileSource } from '../sources/file.js';
import { createUrlSource } from '../sources/http.js';
import { createManifestParser } from '../sources/parser.js';
import { StatusStore } from '../status/store.js';
import { CONTAINER_BACKOFF, IMAGE_PULL_BACKOFF, KeyedBackoff } from '../util/backoff.js';
import { PodManager } from './manager.js';
import { createBurstCollector, exposedGc } from '../memory/after-burst.js';
import { Semaphore } from '../util/rate-limit.js';
import { resolvConfReader } from './resolv-conf.js';
import type { Pod } from '../api/pod-types.js';

/** Pods started at once (see SyncDeps.startSlots); bench/pods.mjs measured 5 as containerd's best on 2 cores. */
export const POD_START_CONCURRENCY = 5;

export interface PipelineInput {
  cfg: AgentConfiguration;
  flags: AgentFlags;
  log: AgentLogger;
  liveness: LivenessRegistry;
  cpuCount: number;
  signal: AbortSignal;
}

export interface Pipeline {
  components: Component[];
  status: StatusStore;
  /** Pods the sources want (after admission). */
  desired(): Pod[];
  allSourcesSeen(): boolean;
  close(): void;
}

/** The node's IP: the first --node-ip address, else the first non-loopback IPv4, else 127.0.0.1. */
export function hostIP(nodeIP: string): string {
  const first = nodeIP.split(',')[0]?.trim() ?? '';
  if (first !== '' && first !== '::' && first !== '0.0.0.0') return first;
  const wantV6 = first === '::';
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (!a.internal && isIP(a.address) === (wantV6 ? 6 : 4)) return a.address;
  }
  return wantV6 ? '::1' : '127.0.0.1';
}

export async function buildPodPipeline(inp: PipelineInput): Promise<Pipeline | undefined> {
  const { cfg, flags, log } = inp;
  const sources: SourceName[] = [];
  if (cfg.staticPodPath !== '') sources.push('file');
  if (cfg.staticPodURL !== '') sources.push('http');
  if (sources.length === 0) {
    log.info('No pod sources configured (--pod-manifest-path, --manifest-url); not connecting to the container runtime');
    return undefined;
  }
  const node = nodeName(flags.hostnameOverride);
  const ip = hostIP(flags.nodeIP);
  const { createCriRuntime } = await import('../cri/grpc-client.js');
  const runtime = await createCriRuntime({
    runtimeEndpoint: cfg.containerRuntimeEndpoint,
    imageEndpoint: cfg.imageServiceEndpoint,
    requestTimeoutMs: cfg.runtimeRequestTimeout,
    log: log.child({ component: 'cri' }),
    signal: inp.signal,
  });

  const candidates = configFileCandidates(flags.rootDirectory, process.cwd(), process.env['HOME']);
  const credLog = log.child({ component: 'credentials' });
  const plugins =
    flags.imageCredentialProviderConfig !== ''
      ? new CredentialPlugins(await loadProviderConfig(flags.imageCredentialProviderConfig), flags.imageCredentialProviderBinDir, credLog)
      : undefined;
  const images = new ImageManager({
    images: runtime,
    maxParallel: maxParallelImagePulls(cfg),
    rateLimit: registryRateLimit(cfg),
    backoff: new KeyedBackoff(IMAGE_PULL_BACKOFF),
    credentials: credentialLookup(candidates, plugins, credLog),
    log: log.child({ component: 'images' }),
  });
  // Read once now so an unreadable file is reported at start, as the kubelet checks it at start.
  const hostDns = resolvConfReader(cfg.resolvConf, log);
  hostDns();
  const status = new StatusStore();
  const merger = new PodConfigMerger(sources);
  const gc = exposedGc();
  const burstGc = gc && createBurstCollector({ collect: gc, busy: () => manager.busy(), log: log.child({ component: 'memory' }) });
  const manager = new PodManager({
    runtime,
    status,
    runtimeName: () => runtime.runtimeInfo.runtimeName,
    hostIP: ip,
    syncFrequencyMs: cfg.syncFrequency,
    maxPods: effectiveMaxPods(cfg, inp.cpuCount),
    allSourcesSeen: () => merger.allSourcesSeen(),
    requestRelist: () => pleg.kick(),
    onSettled: (changes) => burstGc?.settled(changes),
    log: log.child({ component: 'pods' }),
    sync: {
      runtime,
      images,
      crashBackoff: new KeyedBackoff(CONTAINER_BACKOFF),
      startSlots: new Semaphore(POD_START_CONCURRENCY),
      nodeName: node,
      hostIP: ip,
      log: log.child({ component: 'pods' }),
      sandbox: { dns: { clusterDNS: cfg.clusterDNS, clusterDomain: cfg.clusterDomain, host: hostDns, nodeIPs: [ip] }, podLogsDir: '/var/log/pods', cgroupParent: '' },
      container: {
        cpuCFSQuota: cfg.cpuCFSQuota,
        cpuCFSQuotaPeriodMs: cfg.cpuCFSQuotaPeriod,
        memoryCapacity: totalmem(),
        seccompDefault: cfg.seccompDefault,
        emptyDirPath: (pod, volume) => `${flags.rootDirectory}/pods/${pod.metadata.uid}/volumes/platform.io~empty-dir/${volume}`,
        podDataDir: (uid) => `${flags.rootDirectory}/pods/${uid}`,
      },
    },
  });
  const feed = (source: SourceName) => (pods: Pod[]) => {
    const { updates, rejected } = merger.set(source, pods);
    for (const r of rejected) log.error('Pod rejected', { source: r.source, pod: `${r.pod.metadata.namespace}/${r.pod.metadata.name}`, reason: r.reason });
    manager.applyUpdates(updates);
  };
  const pleg = createPleg({ runtime, log: log.child({ component: 'pleg' }), onRelist: (changed, snapshot, startedAt) => manager.onRelist(changed, snapshot, startedAt) });
  inp.liveness.register('pleg', () => pleg.unhealthy() ?? true);

  // One parser for both sources: large manifests go to its worker thread, one at a time.
  const parser = createManifestParser({ log: log.child({ component: 'manifest-parser' }) });
  const components: Component[] = [manager.component(), pleg];
  if (burstGc) components.push(burstGc);
  if (cfg.staticPodPath !== '') {
    components.push(createFileSource({ path: cfg.staticPodPath, node, checkFrequencyMs: cfg.fileCheckFrequency, log: log.child({ component: 'file-source' }), parser, onPods: feed('file') }));
  }
  if (cfg.staticPodURL !== '') {
    components.push(createUrlSource({ url: cfg.staticPodURL, headers: cfg.staticPodURLHeader, node, checkFrequencyMs: cfg.httpCheckFrequency, log: log.child({ component: 'http-source' }), parser, onPods: feed('http') }));
  }
  log.info('Pod pipeline ready', { node, hostIP: ip, sources, maxPods: effectiveMaxPods(cfg, inp.cpuCount) });
  const close = (): void => {
    void parser.close();
    runtime.close();
  };
  return { components, status, desired: () => manager.desiredPods(), allSourcesSeen: () => merger.allSourcesSeen(), close };
}
