// Domain <-> wire conversions of what the runtime reports: sandboxes,
// containers and their statuses, images, filesystem usage, version and
// conditions. The client decodes; the test server encodes. Timestamps stay
// int64 nanoseconds (bigint) end to end.

import {
  copyMap,
  decodeContainerState,
  decodeNamespaces,
  decodeSandboxState,
  encodeContainerState,
  encodeSandboxState,
  fromInt64,
  toInt64,
} from './convert-config.js';
import type {
  Container,
  ContainerStatus,
  FilesystemUsage,
  Image,
  PodSandbox,
  PodSandboxStatus,
  PodSandboxMetadata,
  RuntimeCondition,
  VersionInfo,
} from './types.js';
import type {
  WContainer,
  WContainerStatus,
  WFilesystemUsage,
  WImage,
  WPodSandbox,
  WPodSandboxMetadata,
  WPodSandboxStatus,
  WRuntimeCondition,
  WVersionResponse,
} from './wire.js';

function decodeSandboxMetadata(m: WPodSandboxMetadata | null): PodSandboxMetadata {
  return { name: m?.name ?? '', uid: m?.uid ?? '', namespace: m?.namespace ?? '', attempt: m?.attempt ?? 0 };
}

// ---- sandboxes ----------------------------------------------------------------

export function encodePodSandbox(s: PodSandbox): WPodSandbox {
  return {
    id: s.id,
    metadata: { ...s.metadata },
    state: encodeSandboxState(s.state),
    createdAt: s.createdAt,
    labels: copyMap(s.labels),
    annotations: copyMap(s.annotations),
    runtimeHandler: s.runtimeHandler,
  };
}

export function decodePodSandbox(w: WPodSandbox): PodSandbox {
  return {
    id: w.id,
    metadata: decodeSandboxMetadata(w.metadata),
    state: decodeSandboxState(w.state),
    createdAt: w.createdAt,
    labels: copyMap(w.labels),
    annotations: copyMap(w.annotations),
    runtimeHandler: w.runtimeHandler,
  };
}

export function encodePodSandboxStatus(s: PodSandboxStatus): WPodSandboxStatus {
  return {
    ...encodePodSandbox(s),
    network: { ip: s.ip, additionalIps: s.additionalIps.map((ip) => ({ ip })) },
    linux: { namespaces: { options: { network: s.namespaceOptions.network, pid: s.namespaceOptions.pid, ipc: s.namespaceOptions.ipc, targetId: '' } } },
  };
}

export function decodePodSandboxStatus(w: WPodSandboxStatus): PodSandboxStatus {
  return {
    ...decodePodSandbox(w),
    ip: w.network?.ip ?? '',
    additionalIps: (w.network?.additionalIps ?? []).map((p) => p.ip),
    namespaceOptions: decodeNamespaces(w.linux?.namespaces?.options ?? null),
  };
}

// ---- containers -----------------------------------------------------------------

export function encodeContainer(c: Container): WContainer {
  return {
    id: c.id,
    podSandboxId: c.podSandboxId,
    metadata: { ...c.metadata },
    image: { image: c.image, annotations: {} },
    imageRef: c.imageRef,
    state: encodeContainerState(c.state),
    createdAt: c.createdAt,
    labels: copyMap(c.labels),
    annotations: copyMap(c.annotations),
  };
}

export function decodeContainer(w: WContainer): Container {
  return {
    id: w.id,
    podSandboxId: w.podSandboxId,
    metadata: { name: w.metadata?.name ?? '', attempt: w.metadata?.attempt ?? 0 },
    image: w.image?.image ?? '',
    imageRef: w.imageRef,
    state: decodeContainerState(w.state),
    createdAt: w.createdAt,
    labels: copyMap(w.labels),
    annotations: copyMap(w.annotations),
  };
}

export function encodeContainerStatus(s: ContainerStatus): WContainerStatus {
  return {
    id: s.id,
    metadata: { ...s.metadata },
    state: encodeContainerState(s.state),
    createdAt: s.createdAt,
    startedAt: s.startedAt,
    finishedAt: s.finishedAt,
    exitCode: s.exitCode,
    image: { image: s.image, annotations: {} },
    imageRef: s.imageRef,
    reason: s.reason,
    message: s.message,
    labels: copyMap(s.labels),
    annotations: copyMap(s.annotations),
    logPath: s.logPath,
  };
}

export function decodeContainerStatus(w: WContainerStatus): ContainerStatus {
  return {
    id: w.id,
    metadata: { name: w.metadata?.name ?? '', attempt: w.metadata?.attempt ?? 0 },
    image: w.image?.image ?? '',
    imageRef: w.imageRef,
    state: decodeContainerState(w.state),
    createdAt: w.createdAt,
    startedAt: w.startedAt,
    finishedAt: w.finishedAt,
    exitCode: w.exitCode,
    reason: w.reason,
    message: w.message,
    labels: copyMap(w.labels),
    annotations: copyMap(w.annotations),
    logPath: w.logPath,
  };
}

// ---- images ----------------------------------------------------------------------

export function encodeImage(i: Image): WImage {
  return { id: i.id, repoTags: [...i.repoTags], repoDigests: [...i.repoDigests], size: toInt64(i.size, 'image size'), uid: i.uid === undefined ? null : { value: toInt64(i.uid, 'image uid') }, username: i.username, pinned: i.pinned };
}

export function decodeImage(w: WImage): Image {
  return { id: w.id, repoTags: [...w.repoTags], repoDigests: [...w.repoDigests], size: fromInt64(w.size), ...(w.uid ? { uid: fromInt64(w.uid.value) } : {}), username: w.username, pinned: w.pinned };
}

/** `timestamp` is the sample time in ns; the domain type does not keep it. */
export function encodeFilesystemUsage(f: FilesystemUsage, timestamp: bigint): WFilesystemUsage {
  return {
    timestamp,
    fsId: { mountpoint: f.mountpoint },
    usedBytes: { value: toInt64(f.usedBytes, 'usedBytes') },
    inodesUsed: { value: toInt64(f.inodesUsed, 'inodesUsed') },
  };
}

export function decodeFilesystemUsage(w: WFilesystemUsage): FilesystemUsage {
  return { mountpoint: w.fsId?.mountpoint ?? '', usedBytes: fromInt64(w.usedBytes?.value ?? 0n), inodesUsed: fromInt64(w.inodesUsed?.value ?? 0n) };
}

// ---- version and conditions ---------------------------------------------------------

export function encodeVersion(v: VersionInfo): WVersionResponse {
  return { version: v.version, runtimeName: v.runtimeName, runtimeVersion: v.runtimeVersion, runtimeApiVersion: v.runtimeApiVersion };
}

export function decodeVersion(w: WVersionResponse): VersionInfo {
  return { version: w.version, runtimeName: w.runtimeName, runtimeVersion: w.runtimeVersion, runtimeApiVersion: w.runtimeApiVersion };
}

export function encodeCondition(c: RuntimeCondition): WRuntimeCondition {
  return { type: c.type, status: c.status, reason: c.reason, message: c.message };
}

export function decodeCondition(w: WRuntimeCondition): RuntimeCondition {
  return { type: w.type, status: w.status, reason: w.reason, message: w.message };
}
