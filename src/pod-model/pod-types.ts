// The part of the core/v1 Pod object the agent reads and writes, in its JSON
// shape (camelCase field names as the API serves them). Fields the agent does
// not act on are carried through untouched in `extra` objects by the decoder;
// they are not modelled here.

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';
export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';
export type DNSPolicy = 'ClusterFirst' | 'ClusterFirstWithHostNet' | 'Default' | 'None';
export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export type TerminationMessagePolicy = 'File' | 'FallbackToLogsOnError';

export interface ObjectMeta {
  name: string;
  namespace: string;
  uid: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  resourceVersion?: string;
  generation?: number;
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  hostPort?: number;
  protocol: Protocol;
  hostIP?: string;
}

export interface ObjectFieldSelector {
  apiVersion?: string;
  fieldPath: string;
}

export interface ResourceFieldSelector {
  containerName?: string;
  resource: string;
  divisor?: string;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: ObjectFieldSelector;
    resourceFieldRef?: ResourceFieldSelector;
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}

export interface ResourceRequirements {
  limits: Record<string, string>;
  requests: Record<string, string>;
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
  /** subPath with $(VAR) expanded from the container's environment; exclusive with subPath. */
  subPathExpr?: string;
  mountPropagation?: 'None' | 'HostToContainer' | 'Bidirectional';
}

export interface Capabilities {
  add?: string[];
  drop?: string[];
}

export interface SecurityContext {
  privileged?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: Capabilities;
  seccompProfile?: { type: 'RuntimeDefault' | 'Unconfined' | 'Localhost'; localhostProfile?: string };
  /** Default: the runtime masks and makes read-only parts of /proc; Unmasked: none. */
  procMount?: 'Default' | 'Unmasked';
}

export interface ExecAction {
  command: string[];
}

export interface Probe {
  exec?: ExecAction;
  httpGet?: { path?: string; port: number | string; host?: string; scheme?: 'HTTP' | 'HTTPS'; httpHeaders?: Array<{ name: string; value: string }> };
  tcpSocket?: { port: number | string; host?: string };
  grpc?: { port: number; service?: string };
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

export interface LifecycleHandler {
  exec?: ExecAction;
  httpGet?: Probe['httpGet'];
  tcpSocket?: Probe['tcpSocket'];
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  resources: ResourceRequirements;
  volumeMounts?: VolumeMount[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { postStart?: LifecycleHandler; preStop?: LifecycleHandler };
  terminationMessagePath: string;
  terminationMessagePolicy: TerminationMessagePolicy;
  imagePullPolicy: PullPolicy;
  securityContext?: SecurityContext;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  /** Init containers only: `Always` makes a sidecar (SidecarContainers gate). */
  restartPolicy?: 'Always';
}

export interface DownwardAPIVolumeFile {
  path: string;
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  mode?: number;
}

/** One key of a ConfigMap or Secret projected to a file (items of configMap, secret, projected sources). */
export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

export interface ConfigMapProjection {
  name: string;
  items?: KeyToPath[];
  optional?: boolean;
}

export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** One source of a projected volume; exactly one field is set. */
export interface VolumeProjection {
  configMap?: ConfigMapProjection;
  secret?: ConfigMapProjection;
  downwardAPI?: { items?: DownwardAPIVolumeFile[] };
  serviceAccountToken?: { audience?: string; expirationSeconds?: number; path: string };
  /** labelSelector absent: matches nothing; empty: everything (the API's rule). */
  clusterTrustBundle?: { name?: string; signerName?: string; labelSelector?: LabelSelectorSpec; optional?: boolean; path: string };
}

export interface Volume {
  name: string;
  /** API-backed sources (served with an ApiObjectSource only); also named in otherSources. */
  configMap?: ConfigMapProjection & { defaultMode?: number };
  secret?: { secretName?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  projected?: { sources?: VolumeProjection[]; defaultMode?: number };
  hostPath?: { path: string; type?: string };
  emptyDir?: { medium?: string; sizeLimit?: string };
  downwardAPI?: { items?: DownwardAPIVolumeFile[]; defaultMode?: number };
  /**
   * The API's other volume sources given (`configMap`, `secret`, `projected`,
   * `persistentVolumeClaim`, `csi`, ...), by key: kept only by name, so that the
   * volume layer can say which kind a standalone agent cannot serve.
   */
  otherSources?: string[];
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface PodDNSConfig {
  nameservers?: string[];
  searches?: string[];
  options?: Array<{ name: string; value?: string }>;
}

export interface PodSecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  supplementalGroups?: number[];
  fsGroup?: number;
  sysctls?: Array<{ name: string; value: string }>;
  seccompProfile?: SecurityContext['seccompProfile'];
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  restartPolicy: RestartPolicy;
  terminationGracePeriodSeconds: number;
  activeDeadlineSeconds?: number;
  dnsPolicy: DNSPolicy;
  dnsConfig?: PodDNSConfig;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  shareProcessNamespace?: boolean;
  hostname?: string;
  subdomain?: string;
  nodeName?: string;
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  /** Secrets (dockerconfigjson / dockercfg) whose credentials the pod's pulls use. */
  imagePullSecrets?: Array<{ name?: string }>;
  securityContext?: PodSecurityContext;
  tolerations?: Toleration[];
  priority?: number;
  priorityClassName?: string;
  enableServiceLinks?: boolean;
  hostAliases?: Array<{ ip: string; hostnames: string[] }>;
  runtimeClassName?: string;
  nodeSelector?: Record<string, string>;
  /** Only carried so that validation can refuse it: a static pod may not have ephemeral containers. */
  ephemeralContainers?: unknown;
}

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export interface PodCondition {
  type: 'PodScheduled' | 'Initialized' | 'ContainersReady' | 'Ready' | 'PodReadyToStartContainers' | string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ContainerStateWaiting {
  reason?: string;
  message?: string;
}
export interface ContainerStateRunning {
  startedAt?: string;
}
export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason?: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  containerID?: string;
}

export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: ContainerStateRunning;
  terminated?: ContainerStateTerminated;
}

export interface ContainerStatus {
  name: string;
  state: ContainerState;
  lastState: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
}

export interface PodStatus {
  phase: PodPhase;
  conditions: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  hostIPs?: Array<{ ip: string }>;
  podIP?: string;
  podIPs?: Array<{ ip: string }>;
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses: ContainerStatus[];
  qosClass?: 'Guaranteed' | 'Burstable' | 'BestEffort';
}

export interface Pod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: PodStatus;
}

/** `namespace/name`: how logs and errors name a pod. */
export const podRef = (p: { metadata: Pick<ObjectMeta, 'name' | 'namespace'> }): string => `${p.metadata.namespace}/${p.metadata.name}`;
