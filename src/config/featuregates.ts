// Feature gates as the 1.28 kubelet knows them (renamed: Kubelet→Agent,
// Kube→Platform), with component-base's SetFromMap semantics: explicit values
// win, AllAlpha/AllBeta fill in the rest of their stage, locked gates refuse
// the opposite value. The table is the single list; help and validation derive from it.
import { AgentError } from '../errors.js';
import { compareStrings } from '../util/compare.js';

export type GateStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface GateSpec {
  readonly name: string;
  readonly stage: GateStage;
  readonly default: boolean;
  /** GA or deprecated gates that may no longer be changed. */
  readonly lockToDefault?: boolean;
}

const ALPHA_OFF = [
  'AllAlpha', 'CPUManagerPolicyAlphaOptions', 'CRDValidationRatcheting', 'CSIVolumeHealth',
  'CloudControllerManagerWebhook', 'CloudDualStackNodeIPs', 'ClusterTrustBundle', 'ConsistentListFromCache',
  'ContainerCheckpoint', 'ContextualLogging', 'CrossNamespaceVolumeDataSource', 'CustomCPUCFSQuotaPeriod',
  'DevicePluginCDIDevices', 'DisableCloudProviders', 'DisableAgentCloudCredentialProviders',
  'DynamicResourceAllocation', 'HPAScaleToZero', 'HonorPVReclaimPolicy', 'InPlacePodVerticalScaling',
  'InTreePluginAWSUnregister', 'InTreePluginAzureDiskUnregister', 'InTreePluginAzureFileUnregister',
  'InTreePluginGCEUnregister', 'InTreePluginOpenStackUnregister', 'InTreePluginPortworxUnregister',
  'InTreePluginvSphereUnregister', 'JobBackoffLimitPerIndex', 'JobPodReplacementPolicy',
  'PlatformProxyDrainingTerminatingNodes', 'AgentCgroupDriverFromCRI', 'AgentInUserNamespace',
  'AgentPodResourcesDynamicResources', 'AgentPodResourcesGet', 'LegacyServiceAccountTokenCleanUp',
  'LocalStorageCapacityIsolationFSQuotaMonitoring', 'LoggingAlphaOptions', 'MaxUnavailableStatefulSet',
  'MemoryQoS', 'MultiCIDRRangeAllocator', 'MultiCIDRServiceAllocator', 'NodeLogQuery',
  'PersistentVolumeLastPhaseTransitionTime', 'PodAndContainerStatsFromCRI', 'PodHostIPs',
  'PodReadyToStartContainersCondition', 'ProcMountType', 'QOSReserved', 'RecoverVolumeExpansionFailure',
  'SecurityContextDeny', 'SidecarContainers', 'SkipReadOnlyValidationGCE', 'StorageVersionAPI',
  'TopologyManagerPolicyAlphaOptions', 'UnknownVersionInteroperabilityProxy',
  'UserNamespacesStatelessPodsSupport', 'VolumeCapacityPriority', 'WatchList', 'WinDSR',
];

const ALPHA_ON = ['WindowsHostNetwork'];

const BETA_ON = [
  'APIListChunking', 'APIPriorityAndFairness', 'APIResponseCompression', 'APIServerIdentity', 'APIServerTracing',
  'AdmissionWebhookMatchConditions', 'AggregatedDiscoveryEndpoint', 'AnyVolumeDataSource', 'AppArmor',
  'CPUManagerPolicyBetaOptions', 'CPUManagerPolicyOptions', 'CSINodeExpandSecret', 'ComponentSLIs',
  'CronJobsScheduledAnnotation', 'CustomResourceValidationExpressions', 'ElasticIndexedJob',
  'GracefulNodeShutdown', 'GracefulNodeShutdownBasedOnPodPriority', 'HPAContainerMetrics', 'JobPodFailurePolicy',
  'JobReadyPods', 'KMSv2', 'AgentTracing', 'LogarithmicScaleDown', 'LoggingBetaOptions',
  'MatchLabelKeysInPodTopologySpread', 'MemoryManager', 'MinDomainsInPodTopologySpread',
  'NewVolumeManagerReconstruction', 'NodeInclusionPolicyInPodTopologySpread', 'OpenAPIEnums',
  'PDBUnhealthyPodEvictionPolicy', 'PodDeletionCost', 'PodDisruptionConditions', 'PodIndexLabel',
  'PodSchedulingReadiness', 'ReadWriteOncePod', 'RemainingItemCount', 'RotateAgentServerCertificate',
  'SELinuxMountReadWriteOncePod', 'SchedulerQueueingHints', 'ServiceNodePortStaticSubrange',
  'SizeMemoryBackedVolumes', 'StableLoadBalancerNodeSet', 'StatefulSetAutoDeletePVC', 'StatefulSetStartOrdinal',
  'StorageVersionHash', 'TopologyAwareHints', 'TopologyManagerPolicyOptions', 'WinOverlay',
];

const BETA_OFF = [
  'AllBeta', 'CSIMigrationPortworx', 'EventedPLEG', 'KMSv2KDF', 'NodeSwap', 'TopologyManagerPolicyBetaOptions',
  'ValidatingAdmissionPolicy',
];

/**
 * GA and deprecated gates the 1.28 kubelet still registers (pkg/features and
 * the generic-apiserver gates it relists), renamed as the spec renames. They
 * are not listed in --help; setting one warns that it will be removed, and a
 * locked one refuses the opposite value, as component-base's SetFromMap does.
 * Operators' configurations often still carry them (SeccompDefault=true).
 */
const GA_LOCKED_ON = [
  'APISelfSubjectReview', 'CPUManager', 'CSIMigrationAzureFile', 'CSIMigrationvSphere', 'CronJobTimeZone',
  'DownwardAPIHugePages', 'ExpandedDNSConfig', 'GRPCContainerProbe', 'IPTablesOwnershipCleanup',
  'JobMutableNodeSchedulingDirectives', 'JobTrackingWithFinalizers', 'AgentPodResources',
  'AgentPodResourcesGetAllocatable', 'LegacyServiceAccountTokenNoAutoGeneration', 'LegacyServiceAccountTokenTracking',
  'MinimizeIPTablesRestore', 'NodeOutOfServiceVolumeDetach', 'OpenAPIV3', 'ProbeTerminationGracePeriod',
  'ProxyTerminatingEndpoints', 'RetroactiveDefaultStorageClass', 'SeccompDefault', 'ServerSideApply',
  'ServerSideFieldValidation', 'TopologyManager',
];
/** GA gates that may still be switched off (with the same warning). */
const GA_ON = ['ConsistentHTTPGetHandlers', 'ExecProbeTimeout'];
const DEPRECATED_OFF = ['CSIMigrationRBD', 'DefaultHostNetworkHostPortsInPodTemplates', 'InTreePluginRBDUnregister'];
const DEPRECATED_LOCKED_OFF = ['ExperimentalHostUserNamespaceDefaultingGate'];

const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';

function specs(stage: GateStage, dflt: boolean, names: readonly string[], lockToDefault = false): GateSpec[] {
  return names.map((name) => (lockToDefault ? { name, stage, default: dflt, lockToDefault } : { name, stage, default: dflt }));
}

export const KNOWN_GATES: ReadonlyMap<string, GateSpec> = new Map(
  [
    ...specs('ALPHA', false, ALPHA_OFF), ...specs('ALPHA', true, ALPHA_ON), ...specs('BETA', true, BETA_ON), ...specs('BETA', false, BETA_OFF),
    ...specs('GA', true, GA_LOCKED_ON, true), ...specs('GA', true, GA_ON),
    ...specs('DEPRECATED', false, DEPRECATED_OFF), ...specs('DEPRECATED', false, DEPRECATED_LOCKED_OFF, true),
  ]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((g) => [g.name, g]),
);

export interface ResolvedGates {
  /** The effective value of every known gate. */
  gates: Record<string, boolean>;
  problems: string[];
  warnings: string[];
}

/** Applies requested gate values over the defaults; `known` is replaceable for tests of locked gates. */
export function resolveFeatureGates(
  requested: Readonly<Record<string, boolean>>,
  known: ReadonlyMap<string, GateSpec> = KNOWN_GATES,
): ResolvedGates {
  const problems: string[] = [];
  const warnings: string[] = [];
  const explicit = new Map<string, boolean>();
  for (const [name, value] of Object.entries(requested)) {
    const spec = known.get(name);
    if (spec === undefined) {
      problems.push(`unrecognized feature gate: ${name}`);
      continue;
    }
    if (spec.lockToDefault === true && value !== spec.default) {
      problems.push(`cannot set feature gate ${name} to ${String(value)}, feature is locked to ${String(spec.default)}`);
      continue;
    }
    explicit.set(name, value);
    if (spec.stage === 'DEPRECATED') {
      warnings.push(`Setting deprecated feature gate ${name}=${String(value)}. It will be removed in a future release.`);
    } else if (spec.stage === 'GA') {
      warnings.push(`Setting GA feature gate ${name}=${String(value)}. It will be removed in a future release.`);
    }
  }

  const stageDefault = new Map<GateStage, boolean>();
  const allAlpha = explicit.get(ALL_ALPHA);
  const allBeta = explicit.get(ALL_BETA);
  if (allAlpha !== undefined) stageDefault.set('ALPHA', allAlpha);
  if (allBeta !== undefined) stageDefault.set('BETA', allBeta);

  const gates: Record<string, boolean> = {};
  for (const spec of known.values()) {
    gates[spec.name] = explicit.get(spec.name) ?? stageDefault.get(spec.stage) ?? spec.default;
  }
  return { gates, problems, warnings };
}

/** `--help` lines, `Name=true|false (STAGE - default=x)`, sorted as component-base sorts them; GA and deprecated gates are not listed. */
export function gateHelpLines(known: ReadonlyMap<string, GateSpec> = KNOWN_GATES): string[] {
  return [...known.values()]
    .filter((g) => g.stage === 'ALPHA' || g.stage === 'BETA')
    .map((g) => `${g.name}=true|false (${g.stage} - default=${String(g.default)})`)
    .sort(compareStrings);
}

/** Read-only view of the effective gates, for the managers that branch on them. */
export class FeatureGates {
  readonly #effective: ReadonlyMap<string, boolean>;

  constructor(effective: Readonly<Record<string, boolean>>) {
    this.#effective = new Map(Object.entries(effective));
  }

  enabled(name: string): boolean {
    const spec = KNOWN_GATES.get(name);
    if (spec === undefined) throw new AgentError('EINTERNAL', `unknown feature gate ${JSON.stringify(name)} queried`);
    return this.#effective.get(name) ?? spec.default;
  }
}
