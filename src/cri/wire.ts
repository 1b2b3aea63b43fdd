// Shapes of the runtime.v1 messages as plain objects, the form protobufjs
// converts to and from (field names in camelCase). Decoding always uses
// WIRE_DECODE_OPTIONS, so every scalar, list and map is present, int64 and
// uint64 are bigint, enums are value names, and an absent sub-message is null.
// Private to src/cri/: nothing outside this folder sees these types.

/** An enum value: its name, or its number when the value is newer than our definition. */
export type WireEnum = string | number;
export type WireMap = Record<string, string>;

export interface WKeyValue { key: string; value: string }
export interface WInt64Value { value: bigint }
export interface WUInt64Value { value: bigint }
export interface WImageSpec { image: string; annotations: WireMap }
export interface WDnsConfig { servers: string[]; searches: string[]; options: string[] }
export interface WPortMapping { protocol: WireEnum; containerPort: number; hostPort: number; hostIp: string }
export interface WMount { containerPath: string; hostPath: string; readonly: boolean; propagation: WireEnum }
export interface WNamespaceOption { network: WireEnum; pid: WireEnum; ipc: WireEnum; targetId: string }
export interface WSecurityProfile { profileType: WireEnum; localhostRef: string }

export interface WPodSandboxMetadata { name: string; uid: string; namespace: string; attempt: number }

export interface WPodSandboxConfig {
  metadata: WPodSandboxMetadata | null;
  hostname: string;
  logDirectory: string;
  dnsConfig: WDnsConfig | null;
  portMappings: WPortMapping[];
  labels: WireMap;
  annotations: WireMap;
  linux: {
    cgroupParent: string;
    securityContext: {
      namespaceOptions: WNamespaceOption | null;
      runAsUser: WInt64Value | null;
      readonlyRootfs: boolean;
      supplementalGroups: bigint[];
      privileged: boolean;
      runAsGroup: WInt64Value | null;
      seccomp: WSecurityProfile | null;
    } | null;
    sysctls: WireMap;
  } | null;
}

export interface WLinuxContainerResources {
  cpuPeriod: bigint;
  cpuQuota: bigint;
  cpuShares: bigint;
  memoryLimitInBytes: bigint;
  oomScoreAdj: bigint;
  cpusetCpus: string;
}

export interface WContainerConfig {
  metadata: { name: string; attempt: number } | null;
  image: WImageSpec | null;
  command: string[];
  args: string[];
  workingDir: string;
  envs: WKeyValue[];
  mounts: WMount[];
  labels: WireMap;
  annotations: WireMap;
  logPath: string;
  stdin: boolean;
  stdinOnce: boolean;
  tty: boolean;
  linux: {
    resources: WLinuxContainerResources | null;
    securityContext: {
      capabilities: { addCapabilities: string[]; dropCapabilities: string[] } | null;
      privileged: boolean;
      namespaceOptions: WNamespaceOption | null;
      runAsUser: WInt64Value | null;
      runAsUsername: string;
      readonlyRootfs: boolean;
      supplementalGroups: bigint[];
      noNewPrivs: boolean;
      runAsGroup: WInt64Value | null;
      maskedPaths: string[];
      readonlyPaths: string[];
      seccomp: WSecurityProfile | null;
    } | null;
  } | null;
}

export interface WPodSandbox {
  id: string;
  metadata: WPodSandboxMetadata | null;
  state: WireEnum;
  createdAt: bigint;
  labels: WireMap;
  annotations: WireMap;
  runtimeHandler: string;
}

export interface WPodSandboxStatus extends WPodSandbox {
  network: { ip: string; additionalIps: Array<{ ip: string }> } | null;
  linux: { namespaces: { options: WNamespaceOption | null } | null } | null;
}

export interface WContainer {
  id: string;
  podSandboxId: string;
  metadata: { name: string; attempt: number } | null;
  image: WImageSpec | null;
  imageRef: string;
  state: WireEnum;
  createdAt: bigint;
  labels: WireMap;
  annotations: WireMap;
}

export interface WContainerStatus {
  id: string;
  metadata: { name: string; attempt: number } | null;
  state: WireEnum;
  createdAt: bigint;
  startedAt: bigint;
  finishedAt: bigint;
  exitCode: number;
  image: WImageSpec | null;
  imageRef: string;
  reason: string;
  message: string;
  labels: WireMap;
  annotations: WireMap;
  logPath: string;
}

export interface WPodSandboxFilter {
  id: string;
  state: { state: WireEnum } | null;
  labelSelector: WireMap;
}

export interface WContainerFilter {
  id: string;
  state: { state: WireEnum } | null;
  podSandboxId: string;
  labelSelector: WireMap;
}

export interface WImage {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  size: bigint;
  uid: WInt64Value | null;
  username: string;
  pinned: boolean;
}

export interface WAuthConfig {
  username: string;
  password: string;
  auth: string;
  serverAddress: string;
  identityToken: string;
  registryToken: string;
}

export interface WFilesystemUsage {
  timestamp: bigint;
  fsId: { mountpoint: string } | null;
  usedBytes: WUInt64Value | null;
  inodesUsed: WUInt64Value | null;
}

export interface WVersionResponse { version: string; runtimeName: string; runtimeVersion: string; runtimeApiVersion: string }
export interface WRuntimeCondition { type: string; status: boolean; reason: string; message: string }

// ---- issue 18 F: stats ----
export interface WCpuUsage { timestamp: bigint; usageCoreNanoSeconds: WUInt64Value | null; usageNanoCores: WUInt64Value | null }
export interface WMemoryUsage {
  timestamp: bigint;
  workingSetBytes: WUInt64Value | null;
  availableBytes: WUInt64Value | null;
  usageBytes: WUInt64Value | null;
  rssBytes: WUInt64Value | null;
  pageFaults: WUInt64Value | null;
  majorPageFaults: WUInt64Value | null;
}
export interface WContainerStats {
  attributes: { id: string; metadata: { name: string; attempt: number } | null; labels: WireMap; annotations: WireMap } | null;
  cpu: WCpuUsage | null;
  memory: WMemoryUsage | null;
  writableLayer: WFilesystemUsage | null;
}
export interface WNetworkInterfaceUsage { name: string; rxBytes: WUInt64Value | null; rxErrors: WUInt64Value | null; txBytes: WUInt64Value | null; txErrors: WUInt64Value | null }
export interface WPodSandboxStats {
  attributes: { id: string; metadata: WPodSandboxMetadata | null; labels: WireMap; annotations: WireMap } | null;
  linux: {
    cpu: WCpuUsage | null;
    memory: WMemoryUsage | null;
    network: { timestamp: bigint; defaultInterface: WNetworkInterfaceUsage | null; interfaces: WNetworkInterfaceUsage[] } | null;
    process: { timestamp: bigint; processCount: WUInt64Value | null } | null;
    containers: WContainerStats[];
  } | null;
}
export interface WContainerStatsFilter { id: string; podSandboxId: string; labelSelector: WireMap }
export interface WPodSandboxStatsFilter { id: string; labelSelector: WireMap }
