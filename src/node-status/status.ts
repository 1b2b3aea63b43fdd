// One node status as the kubelet's setters build it (nodestatus: NodeAddress,
// MachineInfo, VersionInfo, DaemonEndpoints, Images, the conditions) and the
// comparison that decides whether an update is worth sending
// (nodeStatusHasChanged: heartbeat times do not count). Pure: the facts of
// this update and the node as the server holds it in, the status out.
import type { NodeAddress } from '../node/addresses.js';
import { conditionsForComparison, nodeConditions, type ConditionEvent, type ConditionInputs } from './conditions.js';
import { toResourceList, type Amounts } from './resources.js';
import { canonicalJson } from '../util/canonical-json.js';
import { compareStrings } from '../util/compare.js';

/** The kubelet's MaxNamesPerImageInNodeStatus. */
export const MAX_NAMES_PER_IMAGE = 5;

export interface StatusImage {
  readonly repoTags: readonly string[];
  readonly repoDigests: readonly string[];
  readonly size: number;
  readonly id: string;
}

/** status.images: largest first, at most `maxImages` (-1: all), each with its digests then tags, at most 5 names. */
export function statusImages(images: readonly StatusImage[], maxImages: number): Array<{ names: string[]; sizeBytes: number }> {
  const sorted = [...images].sort((a, b) => b.size - a.size || compareStrings(a.id, b.id));
  const kept = maxImages > -1 ? sorted.slice(0, maxImages) : sorted;
  return kept.map((i) => ({ names: [...i.repoDigests, ...i.repoTags].slice(0, MAX_NAMES_PER_IMAGE), sizeBytes: i.size }));
}

export interface NodeInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  /** `<runtime name>://<runtime version>`; '' while the runtime has not answered. */
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

export interface StatusFacts {
  readonly capacity: Amounts;
  readonly allocatable: Amounts;
  /** undefined: the addresses could not be worked out this time; the server's are kept. */
  readonly addresses: readonly NodeAddress[] | undefined;
  readonly port: number;
  readonly nodeInfo: NodeInfo;
  /** undefined: the runtime's image list is unknown this time; the server's are kept. */
  readonly images: ReadonlyArray<{ names: string[]; sizeBytes: number }> | undefined;
  readonly conditions: Omit<ConditionInputs, 'notReady'> & { readonly notReady: readonly string[] };
}

/** The resources the Ready condition requires (the kubelet's requiredCapacities with LocalStorageCapacityIsolation). */
export const REQUIRED_CAPACITY: readonly string[] = ['cpu', 'memory', 'pods', 'ephemeral-storage'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The reported nodeInfo: this update's facts over the server's, keeping a runtime version the runtime did not give this time. */
function nodeInfoOver(old: unknown, info: NodeInfo): Record<string, unknown> {
  const prev = isRecord(old) ? old : {};
  const runtime = info.containerRuntimeVersion === '' && typeof prev['containerRuntimeVersion'] === 'string' ? prev['containerRuntimeVersion'] : info.containerRuntimeVersion;
  return { ...prev, ...info, containerRuntimeVersion: runtime };
}

/**
 * The status to report at `now` (RFC 3339), over the server's `current`
 * status (kept fields: the ones other writers own, and addresses/images when
 * unknown this time). Also the condition events this status implies.
 */
export function buildNodeStatus(current: unknown, facts: StatusFacts, now: string): { status: Record<string, unknown>; events: ConditionEvent[] } {
  const old = isRecord(current) ? current : {};
  const missing = REQUIRED_CAPACITY.filter((r) => facts.capacity[r] === undefined);
  const notReady = [...facts.conditions.notReady, ...(missing.length > 0 ? [`missing node capacity for resources: ${missing.join(', ')}`] : [])];
  const { conditions, events } = nodeConditions(old['conditions'], { ...facts.conditions, notReady }, now);
  const status: Record<string, unknown> = {
    ...old,
    capacity: toResourceList(facts.capacity),
    allocatable: toResourceList(facts.allocatable),
    conditions,
    daemonEndpoints: { kubeletEndpoint: { Port: facts.port } },
    nodeInfo: nodeInfoOver(old['nodeInfo'], facts.nodeInfo),
  };
  if (facts.addresses !== undefined) status['addresses'] = facts.addresses.map((a) => ({ type: a.type, address: a.address }));
  if (facts.images !== undefined) {
    if (facts.images.length > 0) status['images'] = facts.images;
    else delete status['images'];
  }
  return { status, events };
}

/** The kubelet's nodeStatusHasChanged: anything but the conditions' heartbeat times. */
export function nodeStatusChanged(before: unknown, after: unknown): boolean {
  const norm = (s: unknown): string => {
    const o = isRecord(s) ? s : {};
    return canonicalJson({ ...o, conditions: conditionsForComparison(o['conditions']) });
  };
  return norm(before) !== norm(after);
}
