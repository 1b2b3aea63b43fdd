// What the runtime holds for one pod, as the relist (PLEG) builds it from
// the runtime's sandboxes and containers, grouped by the pod UID label.
import type { LifecycleHandler } from '../pod-model/pod-types.js';
import type { ContainerState, PodSandboxStatus, ContainerStatus, Container as RuntimeContainer, PodSandbox } from '../cri/types.js';
import {
  ANN_CONTAINER_HASH,
  ANN_CONTAINER_INDEX,
  ANN_CONTAINER_PRESTOP_HANDLER,
  ANN_CONTAINER_RESTART_COUNT,
  ANN_CONTAINER_TYPE,
  ANN_SANDBOX_HASH,
  ANN_SANDBOX_HOST_NETWORK,
  ANN_POD_TERMINATION_GRACE_PERIOD,
  LABEL_CONTAINER_NAME,
  LABEL_POD_NAME,
  LABEL_POD_NAMESPACE,
  LABEL_POD_UID,
  type ContainerType,
} from './labels.js';

export interface ObservedSandbox {
  id: string;
  ready: boolean;
  attempt: number;
  createdAt: bigint;
  /** '' when the runtime reports none (host network, or not yet known). */
  ip: string;
  additionalIps: string[];
  hostNetwork: boolean;
  /** The sandbox-settings hash it was created with; '' when unknown. */
  configHash: string;
}

export interface ObservedContainer {
  id: string;
  name: string;
  sandboxId: string;
  type: ContainerType;
  state: ContainerState;
  hash: string;
  restartCount: number;
  createdAt: bigint;
  startedAt: bigint;
  finishedAt: bigint;
  exitCode: number;
  reason: string;
  message: string;
  image: string;
  imageRef: string;
  /** The pod's grace period recorded on the container, for pods whose spec is gone. */
  gracePeriodSeconds?: number;
  /** Its index in its spec list, as recorded at creation; absent on containers of older agents. */
  specIndex?: number;
  /** The preStop handler recorded on the instance (named ports resolved); absent: none. */
  preStop?: LifecycleHandler;
}

export interface ObservedPod {
  uid: string;
  name: string;
  namespace: string;
  /** Newest first. */
  sandboxes: ObservedSandbox[];
  /** Newest first. */
  containers: ObservedContainer[];
}

export const emptyObserved = (uid: string, name = '', namespace = ''): ObservedPod => ({ uid, name, namespace, sandboxes: [], containers: [] });

const newestFirst = <T extends { createdAt: bigint }>(a: T, b: T): number => (a.createdAt > b.createdAt ? -1 : a.createdAt < b.createdAt ? 1 : 0);

/** A sandbox whose annotation says it shares the node's network: it has no IP of its own to read from its status. */
export const isHostNetworkSandbox = (s: PodSandbox): boolean => s.annotations[ANN_SANDBOX_HOST_NETWORK] === 'true';

export function observeSandbox(s: PodSandbox, status?: PodSandboxStatus): ObservedSandbox {
  return {
    id: s.id,
    ready: s.state === 'READY',
    attempt: s.metadata.attempt,
    createdAt: s.createdAt,
    ip: status?.ip ?? '',
    additionalIps: status?.additionalIps ?? [],
    hostNetwork: status ? status.namespaceOptions.network === 'NODE' : isHostNetworkSandbox(s),
    configHash: s.annotations[ANN_SANDBOX_HASH] ?? '',
  };
}

export function observeContainer(c: RuntimeContainer, status?: ContainerStatus): ObservedContainer {
  const restart = Number(c.annotations[ANN_CONTAINER_RESTART_COUNT] ?? '0');
  return {
    id: c.id,
    name: c.labels[LABEL_CONTAINER_NAME] ?? c.metadata.name,
    sandboxId: c.podSandboxId,
    type: c.annotations[ANN_CONTAINER_TYPE] === 'init' ? 'init' : 'container',
    state: status?.state ?? c.state,
    hash: c.annotations[ANN_CONTAINER_HASH] ?? '',
    restartCount: Number.isFinite(restart) ? restart : 0,
    createdAt: c.createdAt,
    startedAt: status?.startedAt ?? 0n,
    finishedAt: status?.finishedAt ?? 0n,
    exitCode: status?.exitCode ?? 0,
    reason: status?.reason ?? '',
    message: status?.message ?? '',
    image: status?.image ?? c.image,
    imageRef: status?.imageRef ?? c.imageRef,
    ...gracePeriod(c.annotations[ANN_POD_TERMINATION_GRACE_PERIOD]),
    ...specIndex(c.annotations[ANN_CONTAINER_INDEX]),
    ...preStop(c.annotations[ANN_CONTAINER_PRESTOP_HANDLER]),
  };
}

/** The recorded preStop handler; absent when none, or unreadable (a foreign writer). */
function preStop(text: string | undefined): { preStop?: LifecycleHandler } {
  if (text === undefined) return {};
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? { preStop: v as LifecycleHandler } : {};
  } catch {
    return {};
  }
}

function specIndex(text: string | undefined): { specIndex?: number } {
  const v = Number(text);
  return text !== undefined && text !== '' && Number.isInteger(v) && v >= 0 ? { specIndex: v } : {};
}

function gracePeriod(text: string | undefined): { gracePeriodSeconds?: number } {
  const v = Number(text);
  return text !== undefined && Number.isFinite(v) && v >= 0 ? { gracePeriodSeconds: v } : {};
}

/** Groups managed sandboxes and containers by pod UID. */
export function groupByPod(sandboxes: ObservedSandboxInput[], containers: ObservedContainerInput[]): Map<string, ObservedPod> {
  const pods = new Map<string, ObservedPod>();
  const get = (labels: Record<string, string>): ObservedPod | undefined => {
    const uid = labels[LABEL_POD_UID];
    if (uid === undefined) return undefined;
    let p = pods.get(uid);
    if (!p) {
      p = emptyObserved(uid, labels[LABEL_POD_NAME] ?? '', labels[LABEL_POD_NAMESPACE] ?? '');
      pods.set(uid, p);
    }
    return p;
  };
  for (const { raw, observed } of sandboxes) get(raw.labels)?.sandboxes.push(observed);
  for (const { raw, observed } of containers) get(raw.labels)?.containers.push(observed);
  for (const p of pods.values()) {
    p.sandboxes.sort(newestFirst);
    p.containers.sort(newestFirst);
  }
  return pods;
}

export interface ObservedSandboxInput {
  raw: PodSandbox;
  observed: ObservedSandbox;
}
export interface ObservedContainerInput {
  raw: RuntimeContainer;
  observed: ObservedContainer;
}

/** The newest instance of each container name (what the pod's status shows as current). */
export function latestByName(containers: readonly ObservedContainer[]): Map<string, ObservedContainer> {
  const out = new Map<string, ObservedContainer>();
  for (const c of containers) if (!out.has(c.name)) out.set(c.name, c);
  return out;
}
