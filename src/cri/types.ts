// The agent's view of a container runtime: CRI runtime.v1 concepts in plain
// TypeScript. Nothing generated from protobuf leaves src/cri/; the sync loop,
// the PLEG and the fakes all speak these types.
//
// Times are int64 nanoseconds since the epoch, as the runtime reports them,
// kept as bigint so a value read twice compares equal (restart safety relies on it).

export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';

export interface PodSandboxMetadata {
  name: string;
  uid: string;
  namespace: string;
  attempt: number;
}

export interface PortMapping {
  protocol: Protocol;
  containerPort: number;
  hostPort: number;
  hostIp: string;
}

export interface DnsConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

export interface NamespaceOptions {
  network: NamespaceMode;
  pid: NamespaceMode;
  ipc: NamespaceMode;
}

export interface PodSandboxConfig {
  metadata: PodSandboxMetadata;
  /** Empty for host-network pods: runc cannot set a hostname in the host's UTS namespace. */
  hostname: string;
  logDirectory: string;
  dnsConfig?: DnsConfig;
  portMappings: PortMapping[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  linux: {
    cgroupParent: string;
    sysctls: Record<string, string>;
    securityContext: {
      namespaceOptions: NamespaceOptions;
      privileged: boolean;
      seccompProfile?: SecurityProfile;
      /** The pause process's user and group (the pod's runAsUser/runAsGroup). */
      runAsUser?: number;
      runAsGroup?: number;
      /** Absent or empty: none (the wire cannot tell them apart). */
      supplementalGroups?: number[];
    };
  };
}

export interface SecurityProfile {
  type: 'RuntimeDefault' | 'Unconfined' | 'Localhost';
  localhostRef?: string;
}

export interface ContainerMetadata {
  name: string;
  attempt: number;
}

export interface KeyValue {
  key: string;
  value: string;
}

export interface Mount {
  containerPath: string;
  hostPath: string;
  readonly: boolean;
  propagation?: 'PRIVATE' | 'HOST_TO_CONTAINER' | 'BIDIRECTIONAL';
}

export interface LinuxContainerResources {
  cpuPeriod: number;
  cpuQuota: number;
  cpuShares: number;
  memoryLimitInBytes: number;
  oomScoreAdj: number;
  cpusetCpus?: string;
}

export interface ContainerConfig {
  metadata: ContainerMetadata;
  image: string;
  command: string[];
  args: string[];
  workingDir: string;
  envs: KeyValue[];
  mounts: Mount[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Relative to the sandbox's logDirectory. */
  logPath: string;
  stdin: boolean;
  stdinOnce: boolean;
  tty: boolean;
  linux: {
    resources: LinuxContainerResources;
    securityContext: {
      privileged: boolean;
      runAsUser?: number;
      runAsGroup?: number;
      readonlyRootfs: boolean;
      namespaceOptions: NamespaceOptions;
      seccompProfile?: SecurityProfile;
      capabilities?: { addCapabilities: string[]; dropCapabilities: string[] };
      /** The image's user by name, when it has no numeric one and runAsUser is unset. */
      runAsUsername?: string;
      /** Absent or empty: none. */
      supplementalGroups?: number[];
      /** allowPrivilegeEscalation: false. */
      noNewPrivs?: boolean;
      /** Absent or empty: the runtime's defaults (the wire cannot tell an empty list from none). */
      maskedPaths?: string[];
      readonlyPaths?: string[];
    };
  };
}

export type SandboxState = 'READY' | 'NOTREADY';
export type ContainerState = 'CREATED' | 'RUNNING' | 'EXITED' | 'UNKNOWN';

export interface PodSandbox {
  id: string;
  metadata: PodSandboxMetadata;
  state: SandboxState;
  createdAt: bigint;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtimeHandler: string;
}

export interface PodSandboxStatus extends PodSandbox {
  /** Primary pod IP, '' for none. */
  ip: string;
  additionalIps: string[];
  namespaceOptions: NamespaceOptions;
}

export interface Container {
  id: string;
  podSandboxId: string;
  metadata: ContainerMetadata;
  image: string;
  imageRef: string;
  state: ContainerState;
  createdAt: bigint;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface ContainerStatus extends Omit<Container, 'podSandboxId'> {
  /** 0n until started. */
  startedAt: bigint;
  /** 0n until finished. */
  finishedAt: bigint;
  exitCode: number;
  reason: string;
  message: string;
  logPath: string;
}

export interface SandboxFilter {
  id?: string;
  state?: SandboxState;
  labelSelector?: Record<string, string>;
}

export interface ContainerFilter {
  id?: string;
  podSandboxId?: string;
  state?: ContainerState;
  labelSelector?: Record<string, string>;
}

export interface VersionInfo {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

export interface RuntimeCondition {
  type: string;
  status: boolean;
  reason: string;
  message: string;
}

/** The CRI RuntimeService, as the agent uses it. Every call honours `signal` (deadline or cancellation). */
export interface RuntimeService {
  version(signal?: AbortSignal): Promise<VersionInfo>;
  status(signal?: AbortSignal): Promise<RuntimeCondition[]>;
  runPodSandbox(config: PodSandboxConfig, runtimeHandler: string, signal?: AbortSignal): Promise<string>;
  stopPodSandbox(id: string, signal?: AbortSignal): Promise<void>;
  removePodSandbox(id: string, signal?: AbortSignal): Promise<void>;
  podSandboxStatus(id: string, signal?: AbortSignal): Promise<PodSandboxStatus>;
  listPodSandbox(filter?: SandboxFilter, signal?: AbortSignal): Promise<PodSandbox[]>;
  createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig, signal?: AbortSignal): Promise<string>;
  startContainer(id: string, signal?: AbortSignal): Promise<void>;
  /** Stops within `timeoutSeconds` (SIGTERM, then SIGKILL); the call's own deadline must exceed it. */
  stopContainer(id: string, timeoutSeconds: number, signal?: AbortSignal): Promise<void>;
  removeContainer(id: string, signal?: AbortSignal): Promise<void>;
  listContainers(filter?: ContainerFilter, signal?: AbortSignal): Promise<Container[]>;
  containerStatus(id: string, signal?: AbortSignal): Promise<ContainerStatus>;
  /**
   * Runs `cmd` in the running container and waits for it (probes and hooks of
   * kind exec). `timeoutSeconds` > 0 bounds the command in the runtime (and
   * the call's deadline is that plus the request timeout); 0 waits as long as
   * the command runs. A non-zero exit is a result, not an error.
   */
  execSync(id: string, cmd: readonly string[], timeoutSeconds: number, signal?: AbortSignal): Promise<ExecSyncResult>;
  /** Asks the runtime to reopen the container's log file (after the agent rotated it). */
  reopenContainerLog(id: string, signal?: AbortSignal): Promise<void>;
  // issue 18 F: stats
  listContainerStats(filter?: ContainerStatsFilter, signal?: AbortSignal): Promise<ContainerStats[]>;
  listPodSandboxStats(filter?: PodSandboxStatsFilter, signal?: AbortSignal): Promise<PodSandboxStats[]>;
  // issue 18 D: streaming. Each asks the runtime to prepare a stream and
  // resolves the one-use URL of its streaming server (the node's HTTP server
  // proxies the client's upgrade to it); nothing runs until a client connects there.
  exec(req: ExecRequest, signal?: AbortSignal): Promise<string>;
  attach(req: AttachRequest, signal?: AbortSignal): Promise<string>;
  portForward(req: PortForwardRequest, signal?: AbortSignal): Promise<string>;
}

// issue 18 D: streaming
export interface ExecRequest {
  containerId: string;
  cmd: string[];
  tty: boolean;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
}

export interface AttachRequest {
  containerId: string;
  stdin: boolean;
  tty: boolean;
  stdout: boolean;
  stderr: boolean;
}

export interface PortForwardRequest {
  podSandboxId: string;
  /** Empty: the client names ports per stream. */
  port: number[];
}

export interface ExecSyncResult {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
}

export interface AuthConfig {
  username?: string;
  password?: string;
  auth?: string;
  serverAddress?: string;
  identityToken?: string;
  registryToken?: string;
}

export interface Image {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  size: number;
  /** The image's configured user as a number (`USER 1000`), when it is numeric. */
  uid?: number;
  /** The image's configured user when it is a name (`USER nobody`); '' when numeric or unset. */
  username: string;
  pinned: boolean;
}

export interface FilesystemUsage {
  mountpoint: string;
  usedBytes: number;
  inodesUsed: number;
}

/** The CRI ImageService. `pullImage` has no default deadline (the kubelet's rule). */
export interface ImageService {
  pullImage(image: string, auth: AuthConfig | undefined, sandboxConfig: PodSandboxConfig | undefined, signal?: AbortSignal): Promise<string>;
  imageStatus(image: string, signal?: AbortSignal): Promise<Image | undefined>;
  listImages(signal?: AbortSignal): Promise<Image[]>;
  removeImage(image: string, signal?: AbortSignal): Promise<void>;
  imageFsInfo(signal?: AbortSignal): Promise<FilesystemUsage[]>;
}

export interface Runtime extends RuntimeService, ImageService {}

// ---- issue 18 F: stats (ListContainerStats, ListPodSandboxStats) ----
// Counters the runtime did not report are absent (the wire's unset UInt64Value),
// never 0: the summary then leaves the field out, as the kubelet does.

export interface CpuUsage {
  /** ns since the epoch when the runtime sampled it. */
  timestamp: bigint;
  usageCoreNanoSeconds?: number;
  usageNanoCores?: number;
}

export interface MemoryUsage {
  timestamp: bigint;
  workingSetBytes?: number;
  availableBytes?: number;
  usageBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface ContainerStats {
  id: string;
  metadata: ContainerMetadata;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  cpu?: CpuUsage;
  memory?: MemoryUsage;
  /** The writable layer's usage. */
  writableLayer?: FilesystemUsage;
}

export interface NetworkInterfaceUsage {
  name: string;
  rxBytes?: number;
  rxErrors?: number;
  txBytes?: number;
  txErrors?: number;
}

export interface NetworkUsage {
  timestamp: bigint;
  defaultInterface?: NetworkInterfaceUsage;
  interfaces: NetworkInterfaceUsage[];
}

export interface PodSandboxStats {
  id: string;
  metadata: PodSandboxMetadata;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  cpu?: CpuUsage;
  memory?: MemoryUsage;
  network?: NetworkUsage;
  processCount?: number;
  containers: ContainerStats[];
}

export interface ContainerStatsFilter {
  id?: string;
  podSandboxId?: string;
  labelSelector?: Record<string, string>;
}

export interface PodSandboxStatsFilter {
  id?: string;
  labelSelector?: Record<string, string>;
}

