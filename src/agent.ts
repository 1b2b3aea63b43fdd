// The composition root: builds every manager from its folder's factory
// (index.ts), wires them together and runs them under one AbortSignal. A
// wiring file: state lives in the managers, and nothing below this file
// wires one folder to another. Pods flow: sources → merger → pod manager ⇄
// PLEG (relists in, relist requests out) → status store; the health server
// reads the PLEG's health; the node servers (serve.ts) read the pod wing's
// state and the metrics every part records into.
import { access, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createLogging } from './log/index.js';
import type { AgentLogger } from './log/index.js';
import { acquireLock, installSignalHandlers, LivenessRegistry, lockRootDir, rootDirLockPath, runComponents, type Component, type HeldLock } from './lifecycle/index.js';
import { createHealthzServer } from './server/index.js';
import { cpus } from 'node:os';
import type { Pod } from './pod-model/pod-types.js';
import { effectiveMaxPods, jsonInfoBufferBytes, maxParallelImagePulls, registryRateLimit } from './config/effective.js';
import { createImageManager } from './images/index.js';
import { createContainerLogManager, logRotationLimits } from './container-logs/index.js';
import { createBurstCollector, createGrowthCollector, exposedGc, mallocTrimmerIfAvailable } from './heap/index.js';
import { hostIP, nodeName } from './node/index.js';
import { createPleg } from './pleg/index.js';
import { awaitRunOnce, createPodManager, createSyncDeps, createSysctlAllowlist } from './pods/index.js';
import { createProber } from './probes/index.js';
import { createOrphanCleanup } from './volumes/index.js';
import { configuredSourceNames, createConfiguredSources, createManifestParser, PodConfigMerger, type SourceName } from './sources/index.js';
import { createStatusStore, type StatusStore } from './status/index.js';
import type { ResolvedConfig } from './config/resolve.js';
import { explicitSettings } from './config/redact.js';
import { clusterPodParts, connectCluster, type Cluster } from './cluster.js';
import { createAgentMetrics, instrumentRuntime, type AgentMetrics } from './metrics/index.js';
import type { RuntimeService } from './cri/types.js';
import { wireNodeServers } from './serve.js';
import { loggingRecorder, type EventRecorder } from './events/index.js';

export interface RunAgentOptions {
  readonly resolved: ResolvedConfig;
  readonly warnings: readonly string[];
  /** The version the agent reports (built-in, or --version=vX.Y.Z). */
  readonly version: string;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Called on a second SIGTERM/SIGINT; bin/ exits there with status 1, as the kubelet does. */
  readonly forceExit: (signal: NodeJS.Signals) => void;
}

/** How long a graceful shutdown may take before the agent gives up on stragglers. */
export const SHUTDOWN_TIMEOUT_MS = 10_000;

export type Mode = 'api-server' | 'standalone';

export const modeOf = (r: ResolvedConfig): Mode => (r.flags.platformconfig !== '' ? 'api-server' : 'standalone');

/** Runs until SIGTERM/SIGINT (or lock contention); resolves with the exit code. */
export async function runAgent(opts: RunAgentOptions): Promise<number> {
  const { config: cfg, flags } = opts.resolved;
  const logging = createLogging({
    format: cfg.logging.format,
    verbosity: cfg.logging.verbosity,
    vmodule: cfg.logging.vmodule,
    flushFrequencyMs: cfg.logging.flushFrequency,
    json: { splitStream: cfg.logging.options.json.splitStream, infoBufferSize: jsonInfoBufferBytes(cfg) },
    stdout: opts.stdout,
    stderr: opts.stderr,
  });
  const log = logging.root;
  for (const w of opts.warnings) log.warn(w);

  const controller = new AbortController();
  const uninstall = installSignalHandlers(controller, log, {
    forceExit: (signal) => {
      log.error('Second signal: exiting immediately', { signal });
      logging.flush();
      opts.forceExit(signal);
    },
  });
  let lock: HeldLock | undefined;
  let rootDirLock: HeldLock | undefined;
  let wing: PodWing | undefined;
  let cluster: Cluster | undefined;
  let lockLost = false;
  try {
    const mode = modeOf(opts.resolved);
    log.info('Starting agent', { version: opts.version, mode, files: opts.resolved.files, nodeVersion: process.version });
    log.v(2)?.info('Configuration set by files and flags', { settings: explicitSettings(opts.resolved) });
    if (mode === 'api-server') await checkPlatformConfig(opts.resolved);

    if (flags.lockFilePath !== '') {
      lock = await acquireLock(flags.lockFilePath, {
        signal: controller.signal,
        watchContention: flags.exitOnLockContention,
        onWaiting: () => log.info('Waiting for the lock file, held by another process', { path: flags.lockFilePath }),
      });
      log.info('Acquired the lock file', { path: lock.path });
      const held = lock;
      // Another agent may take the lock now; running on would make two of them.
      void held.lost.then(() => {
        lockLost = true;
        log.error('Lost the lock file: the process holding it for the agent died; stopping', { path: held.path });
        controller.abort(new Error('lock file lost'));
      });
      if (flags.exitOnLockContention) {
        void lock.contended.then((reason) => {
          log.info('Lock contention detected, exiting', { path: flags.lockFilePath, reason });
          controller.abort(new Error('lock file contention'));
        });
      }
    }
    // After --lock-file: a handover through it must find this lock free (released first, below).
    // (Unless --lock-file names that very file: its lock is then held already.)
    if (managesPods(opts.resolved) && (flags.lockFilePath === '' || resolve(flags.lockFilePath) !== rootDirLockPath(flags.rootDirectory))) {
      rootDirLock = await lockRootDir(flags.rootDirectory, { signal: controller.signal });
      log.v(1)?.info('Locked the root directory for this agent', { path: rootDirLockPath(flags.rootDirectory) });
    }
    await applyOomScoreAdj(cfg.oomScoreAdj, log);

    const liveness = new LivenessRegistry();
    const metrics = createAgentMetrics({ log: log.child({ component: 'pods' }) });
    // --runonce runs the local sources only, as the kubelet's.
    if (mode === 'api-server' && !cfg.runOnce) cluster = await connectCluster(opts.resolved, nodeName(flags.hostnameOverride), log, controller.signal);
    // Standalone, events have nowhere to go: the kubelet drops them; the agent logs them at -v=4.
    const events = cluster?.events ?? loggingRecorder(log.child({ component: 'events' }));
    wing = await wirePods({ resolved: opts.resolved, version: opts.version, log, liveness, metrics, events, cluster }, controller.signal);
    if (cfg.runOnce) return await runOnce(wing, controller, log);
    const servers = await wireNodeServers({
      resolved: opts.resolved,
      log,
      liveness,
      metrics,
      node: { name: nodeName(flags.hostnameOverride), ip: hostIP(flags.nodeIP) },
      pods: wing === undefined ? undefined : { runtime: wing.runtime, status: wing.status, podLogsDir: wing.podLogsDir, busy: () => wing?.busy() ?? false },
      reviews: cluster?.reviews,
      servingCertificate: cluster?.servingCertificate,
    });
    const components: Component[] = [...(cluster?.components ?? []), ...(wing?.components ?? []), ...servers, createHealthzServer({ address: cfg.healthzBindAddress, port: cfg.healthzPort, liveness, log: log.child({ component: 'healthz' }) })];
    const trimmer = mallocTrimmerIfAvailable(log.child({ component: 'heap' }));
    if (trimmer) components.push(trimmer);
    // Pending promises do not keep node running: with nothing listening (--healthz-port=0,
    // no other server yet) the event loop would drain and the process exit 0 at once.
    // The agent runs until it is told to stop, like the kubelet's final `select {}`.
    const keepAlive = setInterval(() => {}, 2 ** 31 - 1);
    try {
      await runComponents(components, { signal: controller.signal, shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS, log });
    } finally {
      clearInterval(keepAlive);
    }
    log.info('Agent stopped');
    return lockLost ? 1 : 0;
  } catch (e) {
    // Stopped while still starting (waiting for the lock or the runtime): a clean stop, not a failure.
    if (controller.signal.aborted) return lockLost ? 1 : 0;
    log.error('Agent failed', { err: e });
    return 1;
  } finally {
    await wing?.close();
    await cluster?.close();
    await rootDirLock?.release();
    await lock?.release();
    await logging.close();
    // Last: a signal during the steps above still reaches our handler (second signal → forceExit).
    uninstall();
  }
}

/**
 * Whether this agent manages pods, and so must be the only one on its --root-dir:
 * a pod source is configured (also with --runonce, whose pods a second agent
 * would tear down as orphans), the API server's included. Without one it
 * touches no pod and takes no lock.
 */
export function managesPods(r: ResolvedConfig): boolean {
  return r.config.staticPodPath !== '' || r.config.staticPodURL !== '' || modeOf(r) === 'api-server';
}

/**
 * --runonce: serves nothing; spawns the pods of the local sources, waits until
 * each has run (pods/run-once.ts), reports each, and exits. The pods keep
 * running afterwards, as with the kubelet.
 */
async function runOnce(wing: PodWing | undefined, controller: AbortController, log: AgentLogger): Promise<number> {
  if (!wing) return 0;
  const run = runComponents(wing.components, { signal: controller.signal, shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS, log });
  const code = await awaitRunOnce({ status: wing.status, desired: wing.desired, allSourcesSeen: wing.allSourcesSeen, log }, controller.signal);
  controller.abort(new Error('run once finished'));
  await run;
  return code;
}

/** The pod wing as the root runs it: its components in start order, and what --runonce reads. */
interface PodWing {
  components: Component[];
  status: StatusStore;
  /** The runtime, instrumented (every call is timed into the metrics). */
  runtime: RuntimeService;
  /** Where the runtime writes container logs (<dir>/<namespace>_<name>_<uid>/). */
  podLogsDir: string;
  /** Whether a pod worker is syncing: the node servers hold a flood of requests only then. */
  busy(): boolean;
  /** Pods the sources want (after admission). */
  desired(): Pod[];
  allSourcesSeen(): boolean;
  /** Ends the parser's worker and the runtime connection. */
  close(): Promise<void>;
}

/**
 * Builds the pod wing from the configuration: runtime (CRI, with the version
 * handshake; may wait for the runtime's socket until `signal` aborts), image
 * manager, sources → merger → pod manager ⇄ PLEG, status store. Undefined
 * when no pod source is configured: the agent then never connects to the runtime.
 */
interface WireInput {
  readonly resolved: ResolvedConfig;
  readonly version: string;
  readonly log: AgentLogger;
  readonly liveness: LivenessRegistry;
  readonly metrics: AgentMetrics;
  readonly events: EventRecorder;
  /** API-server mode: the API pod source, pod status, mirror pods and the node join the wing. */
  readonly cluster: Cluster | undefined;
}

async function wirePods(x: WireInput, signal: AbortSignal): Promise<PodWing | undefined> {
  const { resolved: r, log, liveness, metrics, events, cluster } = x;
  const { config: cfg, flags } = r;
  const sources: SourceName[] = [...configuredSourceNames(cfg), ...(cluster ? (['api'] as const) : [])];
  if (sources.length === 0) {
    log.info('No pod sources configured (--pod-manifest-path, --manifest-url); not connecting to the container runtime');
    return undefined;
  }
  const node = { name: nodeName(flags.hostnameOverride), ip: hostIP(flags.nodeIP) };
  const maxPods = effectiveMaxPods(cfg, cpus().length);
  // A bad --allowed-unsafe-sysctls pattern fails the start, before the runtime is asked for anything (as the kubelet's).
  const sysctls = createSysctlAllowlist(cfg.allowedUnsafeSysctls);
  // Loaded on use: the CRI client (grpc-js, protobufjs) is not needed to check a configuration or print help.
  const { createCriRuntime } = await import('./cri/index.js');
  const cri = await createCriRuntime({
    runtimeEndpoint: cfg.containerRuntimeEndpoint,
    imageEndpoint: cfg.imageServiceEndpoint,
    requestTimeoutMs: cfg.runtimeRequestTimeout,
    log: log.child({ component: 'cri' }),
    signal,
  });
  // Every user of the runtime gets the instrumented one (the kubelet's runtime_operations_* metrics).
  const runtime = instrumentRuntime(cri, metrics);
  // What can still fail (a bad credential provider config, resolv.conf) must not leave the connection open.
  let sync: ReturnType<typeof createSyncDeps>;
  // A changed probe verdict asks the pod's sync to act on it (restart, Ready).
  const prober = createProber({ runtime, hostIP: node.ip, log: log.child({ component: 'prober' }), events, onChange: (uid) => manager.probeChanged(uid) });
  try {
    const images = await createImageManager({
      images: runtime,
      maxParallel: maxParallelImagePulls(cfg),
      rateLimit: registryRateLimit(cfg),
      rootDirectory: flags.rootDirectory,
      providers: { config: flags.imageCredentialProviderConfig, binDir: flags.imageCredentialProviderBinDir },
      log,
      metrics,
      events,
    });
    sync = { ...createSyncDeps({ runtime, images, node, cfg, rootDirectory: flags.rootDirectory, log, probes: prober, events, ...(cluster ? { apiObjects: cluster.apiObjects } : {}) }), metrics };
  } catch (e) {
    runtime.close();
    throw e;
  }
  const status = createStatusStore();
  const merger = new PodConfigMerger(sources);
  const gc = exposedGc();
  const burstGc = gc && createBurstCollector({ collect: gc, busy: () => manager.busy(), log: log.child({ component: 'heap' }) });
  const steadyGc = exposedGc({ compact: false });
  const growthGc = steadyGc && createGrowthCollector({ collect: steadyGc, busy: () => manager.busy(), log: log.child({ component: 'heap' }) });
  const manager = createPodManager({
    sync,
    status,
    runtimeName: () => runtime.runtimeInfo.runtimeName,
    syncFrequencyMs: cfg.syncFrequency,
    maxPods,
    sysctls,
    allSourcesSeen: () => merger.allSourcesSeen(),
    requestRelist: () => pleg.kick(),
    onSettled: (changes) => burstGc?.settled(changes),
  });
  const pleg = createPleg({
    runtime,
    metrics,
    log: log.child({ component: 'pleg' }),
    onRelist: (changed, snapshot, startedAt) => {
      manager.onRelist(changed, snapshot, startedAt);
      prober.observe(manager.desiredPods(), snapshot);
    },
  });
  liveness.register('pleg', () => pleg.unhealthy() ?? true);
  metrics.probeSource(prober.counters);
  const feed = (source: SourceName, pods: Pod[]): void => {
    const { updates, rejected } = merger.set(source, pods);
    for (const x of rejected) log.error('Pod rejected', { source: x.source, pod: `${x.pod.metadata.namespace}/${x.pod.metadata.name}`, reason: x.reason });
    manager.applyUpdates(updates);
    api?.staticPodsChanged(merger.pods(), merger.allSourcesSeen());
  };
  const api =
    cluster &&
    clusterPodParts(cluster, {
      resolved: r,
      version: x.version,
      nodeName: node.name,
      runtime,
      status,
      sidecars: sync.sidecars === true,
      health: () => {
        const why = pleg.unhealthy();
        return why === undefined ? undefined : `PLEG is not healthy: ${why}`;
      },
      couldHaveRunningContainers: (uid) => manager.couldHaveRunningContainers(uid),
      feedApiPods: (pods) => feed('api', pods),
      log,
    });
  // One parser for both sources: large manifests go to its worker thread, one at a time.
  const parser = createManifestParser({ log: log.child({ component: 'manifest-parser' }) });
  const components: Component[] = [manager, pleg, prober];
  if (sync.volumes) components.push(createOrphanCleanup({ volumes: sync.volumes, desired: () => manager.desiredPods().map((p) => p.metadata.uid), allSourcesSeen: () => merger.allSourcesSeen(), runtime, log }));
  if (burstGc) components.push(burstGc);
  if (growthGc) components.push(growthGc);
  const logLimits = logRotationLimits(cfg);
  if (logLimits) components.push(createContainerLogManager({ runtime, ...logLimits, podLogsDir: sync.sandbox.podLogsDir, log: log.child({ component: 'container-logs' }) }));
  if (api) components.push(...api.components);
  for (const s of createConfiguredSources({ cfg, node: node.name, sidecars: sync.sidecars === true, parser, log, onPods: feed })) components.push(s.component);
  if (api) components.push(api.source);
  log.info('Pod pipeline ready', { node: node.name, hostIP: node.ip, sources, maxPods });
  const close = async (): Promise<void> => {
    runtime.close();
    await parser.close();
  };
  return { components, status, runtime, podLogsDir: sync.sandbox.podLogsDir, busy: () => manager.busy(), desired: () => manager.desiredPods(), allSourcesSeen: () => merger.allSourcesSeen(), close };
}

async function checkPlatformConfig(r: ResolvedConfig): Promise<void> {
  const { platformconfig, bootstrapPlatformconfig } = r.flags;
  try {
    await access(platformconfig);
  } catch {
    if (bootstrapPlatformconfig === '') {
      throw new Error(`unable to load the API server connection file --platformconfig "${platformconfig}": it does not exist and no --bootstrap-platformconfig is given`);
    }
  }
}

/** Like the kubelet, protect the agent from the OOM killer; failure (no privilege) is logged, not fatal. */
async function applyOomScoreAdj(value: number, log: AgentLogger): Promise<void> {
  try {
    await writeFile('/proc/self/oom_score_adj', String(value));
  } catch (e) {
    log.v(1)?.info('Could not set the agent process OOM score adjustment', { value, err: e });
  }
}
