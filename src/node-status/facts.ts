// Gathers one status update's facts (effects) and turns them into the pure
// status builder's input. Called by the node agent's status loop once per
// update; each reader is bounded (small files, one statfs, two CRI calls
// under the caller's signal) and none throws: a fact that cannot be read is
// left out and the status says so (missing capacity → not Ready; unknown
// images or addresses → the server's kept).
import { effectiveMaxPods } from '../config/effective.js';
import { parseCpuSet } from '../config/values/cpuset.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Image, ImageService, RuntimeCondition, RuntimeService, VersionInfo } from '../cri/types.js';
import { hostNetwork, nodeAddresses, type HostNetwork } from '../node/addresses.js';
import { onlineCpuCount } from '../node/cpus.js';
import { readHostInfo, type HostInfo } from '../node/host-info.js';
import { nodeAllocatable, nodeCapacity, nodeReservation } from './resources.js';
import { statusImages, type StatusFacts } from './status.js';

/** What the node agent needs from the runtime (absent in a pod-less agent); with `status`, its conditions feed Ready. */
export type NodeRuntime = Pick<RuntimeService, 'version'> & Pick<ImageService, 'listImages'> & Partial<Pick<RuntimeService, 'status'>>;

export interface HostFacts {
  readonly host: HostInfo;
  readonly network: HostNetwork;
  /** Online CPUs; undefined when neither /sys nor os.cpus() says. */
  readonly cpus: number | undefined;
}

/** The production reader: the host under '/', the filesystem of --root-dir. */
export async function readHostFacts(rootDir: string): Promise<HostFacts> {
  return { host: await readHostInfo(rootDir), network: hostNetwork(), cpus: onlineCpuCount() };
}

/** The node's pressure, from whoever watches it (the eviction manager); all false without one. */
export interface NodePressure {
  readonly memory: boolean;
  readonly disk: boolean;
  readonly pid: boolean;
}

export interface RuntimeFacts {
  readonly version: VersionInfo | undefined;
  readonly images: readonly Image[] | undefined;
  /** The runtime's conditions; undefined when not asked (no status call), null when the call failed. */
  readonly conditions: readonly RuntimeCondition[] | null | undefined;
  /** Why the runtime did not answer, for the log. */
  readonly problem: string | undefined;
}

const errText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Asks the runtime for its version and images; a failure leaves them undefined. */
export async function readRuntimeFacts(runtime: NodeRuntime | undefined, signal: AbortSignal): Promise<RuntimeFacts> {
  if (runtime === undefined) return { version: undefined, images: undefined, conditions: undefined, problem: undefined };
  const [v, i, c] = await Promise.allSettled([runtime.version(signal), runtime.listImages(signal), runtime.status?.(signal)]);
  const failed = [v, i, c].find((r): r is PromiseRejectedResult => r.status === 'rejected');
  return {
    version: v.status === 'fulfilled' ? v.value : undefined,
    images: i.status === 'fulfilled' ? i.value : undefined,
    conditions: c.status === 'fulfilled' ? c.value : null,
    problem: failed === undefined ? undefined : errText(failed.reason),
  };
}

/** kubecontainer.RuntimeCondition's %v: `RuntimeReady=false reason:X message:Y`; `<nil>` when absent. */
const conditionText = (c: RuntimeCondition | undefined): string => (c === undefined ? '<nil>' : `${c.type}=${String(c.status)} reason:${c.reason} message:${c.message}`);

/**
 * Why the runtime makes the node not ready, in the kubelet's order and words
 * (runtimeState.runtimeErrors then networkErrors; `health` — the PLEG's — in
 * between): the status call failing, RuntimeReady or NetworkReady not true.
 */
export function runtimeNotReady(conditions: readonly RuntimeCondition[] | null | undefined, health: string | undefined): string[] {
  const out: string[] = [];
  if (conditions === null) out.push('container runtime is down');
  if (health !== undefined) out.push(health);
  if (conditions === null || conditions === undefined) return out;
  const runtime = conditions.find((c) => c.type === 'RuntimeReady');
  const network = conditions.find((c) => c.type === 'NetworkReady');
  if (runtime?.status !== true) out.push(`container runtime not ready: ${conditionText(runtime)}`);
  if (network?.status !== true) out.push(`container runtime network not ready: ${conditionText(network)}`);
  return out;
}

export interface FactsContext {
  readonly resolved: ResolvedConfig;
  readonly hostname: string;
  readonly version: string;
  readonly notReady: readonly string[];
  readonly pressure: NodePressure;
}

function reservedCpuCount(text: string): number {
  try {
    return text.trim() === '' ? 0 : parseCpuSet(text.trim()).length;
  } catch {
    return 0;
  }
}

/** Pure: the facts gathered this time and the configuration → the status builder's input (and an address problem to log). */
export function statusFacts(h: HostFacts, rt: RuntimeFacts, c: FactsContext): { facts: StatusFacts; addressProblem: string | undefined } {
  const { config: cfg, flags } = c.resolved;
  const cpus = h.cpus ?? 0;
  const capacity = nodeCapacity({ cpus, memoryBytes: h.host.memoryBytes, hugePages: h.host.hugePages, rootFsBytes: h.host.rootFsBytes, maxPods: effectiveMaxPods(cfg, cpus) });
  if (h.cpus === undefined) delete capacity['cpu'];
  const reservation = nodeReservation(
    { platformReserved: cfg.platformReserved, systemReserved: cfg.systemReserved, reservedCpuCount: reservedCpuCount(cfg.reservedSystemCPUs), evictionHard: cfg.evictionHard, ignoreEviction: flags.experimentalAllocatableIgnoreEviction },
    capacity,
  );
  const addr = nodeAddresses(flags.nodeIP, c.hostname, h.network);
  const facts: StatusFacts = {
    capacity,
    allocatable: nodeAllocatable(capacity, reservation),
    addresses: addr.ok ? addr.addresses : undefined,
    port: cfg.port,
    nodeInfo: {
      machineID: h.host.machineID,
      systemUUID: h.host.systemUUID,
      bootID: h.host.bootID,
      kernelVersion: h.host.kernelVersion,
      osImage: h.host.osImage,
      containerRuntimeVersion: rt.version === undefined ? '' : `${rt.version.runtimeName}://${rt.version.runtimeVersion}`,
      kubeletVersion: c.version,
      kubeProxyVersion: c.version,
      operatingSystem: h.host.operatingSystem,
      architecture: h.host.architecture,
    },
    images: rt.images === undefined ? undefined : statusImages(rt.images, cfg.nodeStatusMaxImages),
    conditions: { notReady: c.notReady, memoryPressure: c.pressure.memory, diskPressure: c.pressure.disk, pidPressure: c.pressure.pid },
  };
  return { facts, addressProblem: addr.ok ? undefined : addr.error };
}
