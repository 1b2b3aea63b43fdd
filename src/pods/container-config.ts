// The CRI container configuration of one container of a pod (the kubelet's
// generateContainerConfig), as pure functions: environment with the downward
// API and $(VAR) expansion, resources → CPU shares / CFS quota / memory limit /
// OOM score by QoS class, mounts, security context, log path.
import { metadataField } from '../pod-model/field-path.js';
import type { Container, EnvVar, Pod } from '../pod-model/pod-types.js';
import type { ContainerConfig, KeyValue, LinuxContainerResources, Mount } from '../cri/types.js';
import { parseQuantity } from '../config/values/quantity.js';
import { ANNOTATION_SOURCE } from '../sources/static-pod.js';
import { qosClass } from '../pod-model/qos.js';
import { containerAnnotations, containerLabels, type ContainerType } from '../runtime-view/labels.js';
import { containerMounts, MountConfigError } from '../volumes/index.js';
import { containerSecurity, type ImageUser } from './container-security.js';
import { envFromVars, EnvSourceError, keyRefValue, type EnvObjects } from './env-from.js';

export { qosClass, type QosClass } from '../pod-model/qos.js';

const milli = (q: string | undefined): number => (q === undefined ? 0 : Math.ceil(parseQuantity(q).value * 1000));
const bytes = (q: string | undefined): number => (q === undefined ? 0 : Math.ceil(parseQuantity(q).value));

const GUARANTEED_OOM_SCORE_ADJ = -997;
const BESTEFFORT_OOM_SCORE_ADJ = 1000;
/** scheduling.SystemCriticalPriority: pods at or above it are critical whatever their source. */
const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/** The kubelet's IsNodeCriticalPod: a critical pod (static, or of system-critical priority) of class system-node-critical. */
export function isNodeCriticalPod(pod: Pod): boolean {
  const source = pod.metadata.annotations?.[ANNOTATION_SOURCE];
  const critical = (source !== undefined && source !== 'api') || (pod.spec.priority ?? 0) >= SYSTEM_CRITICAL_PRIORITY;
  return critical && pod.spec.priorityClassName === 'system-node-critical';
}

/** OOM score adjustment by QoS (the kubelet's GetContainerOOMScoreAdjust). */
export function oomScoreAdj(pod: Pod, c: Container, memoryCapacity: number): number {
  if (isNodeCriticalPod(pod)) return GUARANTEED_OOM_SCORE_ADJ;
  const qos = qosClass(pod);
  if (qos === 'Guaranteed') return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === 'BestEffort') return BESTEFFORT_OOM_SCORE_ADJ;
  const request = bytes(c.resources.requests['memory']);
  const adj = 1000 - Math.floor((1000 * request) / memoryCapacity);
  // Burstable containers score above Guaranteed ones (a Guaranteed container using
  // all memory scores 1000 - 997 = 3) and below BestEffort ones.
  return Math.min(BESTEFFORT_OOM_SCORE_ADJ - 1, Math.max(1000 + GUARANTEED_OOM_SCORE_ADJ, adj));
}

export interface ResourceSettings {
  /** --cpu-cfs-quota. */
  cpuCFSQuota: boolean;
  /** --cpu-cfs-quota-period, in ms. */
  cpuCFSQuotaPeriodMs: number;
  /** Node memory, for the Burstable OOM score. */
  memoryCapacity: number;
}

const MIN_SHARES = 2;
/** The kernel's ceiling for cpu.shares. */
const MAX_SHARES = 262_144;
const MIN_QUOTA_US = 1000;

export function linuxResources(pod: Pod, c: Container, s: ResourceSettings): LinuxContainerResources {
  const cpuRequest = milli(c.resources.requests['cpu']);
  const cpuLimit = milli(c.resources.limits['cpu']);
  const periodUs = Math.round(s.cpuCFSQuotaPeriodMs * 1000);
  const quota = s.cpuCFSQuota && cpuLimit > 0 ? Math.max(MIN_QUOTA_US, Math.floor((cpuLimit * periodUs) / 1000)) : 0;
  return {
    cpuShares: Math.min(MAX_SHARES, Math.max(MIN_SHARES, Math.floor((cpuRequest * 1024) / 1000))),
    cpuQuota: quota,
    cpuPeriod: quota > 0 ? periodUs : 0,
    memoryLimitInBytes: bytes(c.resources.limits['memory']),
    oomScoreAdj: oomScoreAdj(pod, c, s.memoryCapacity),
  };
}

/** Kubernetes $(VAR) expansion: defined variables are replaced, `$$` escapes, anything else stays as written. */
export function expand(text: string, vars: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([^)\s]*)\)/g, (m, name: string | undefined) => {
    if (m === '$$') return '$';
    const v = name === undefined ? undefined : vars.get(name);
    return v === undefined ? m : v;
  });
}

export interface PodRuntimeFacts {
  nodeName: string;
  hostIP: string;
  podIP: string;
  podIPs: string[];
  /** The container's image's configured user (ImageStatus): runAsUser's default and what runAsNonRoot checks. */
  image?: ImageUser;
  /** The ConfigMaps and Secrets its env/envFrom reference (env-from.ts fetchEnvObjects); absent: a standalone agent. */
  envObjects?: EnvObjects;
}

export class ContainerConfigError extends Error {
  override name = 'ContainerConfigError';
  constructor(
    readonly reason: 'CreateContainerConfigError',
    message: string,
  ) {
    super(message);
  }
}

function fieldRef(pod: Pod, path: string, facts: PodRuntimeFacts): string {
  const own = metadataField(pod, path);
  if (own !== undefined) return own;
  switch (path) {
    case 'spec.nodeName':
      return facts.nodeName;
    case 'spec.serviceAccountName':
      return pod.spec.serviceAccountName ?? '';
    case 'status.hostIP':
      return facts.hostIP;
    case 'status.hostIPs':
      return facts.hostIP;
    case 'status.podIP':
      return facts.podIP;
    case 'status.podIPs':
      return facts.podIPs.join(',');
    default:
      throw new ContainerConfigError('CreateContainerConfigError', `unsupported fieldRef "${path}"`);
  }
}

function resourceRef(pod: Pod, c: Container, ref: NonNullable<EnvVar['valueFrom']>['resourceFieldRef'] & object): string {
  const target = ref.containerName ? [...(pod.spec.initContainers ?? []), ...pod.spec.containers].find((x) => x.name === ref.containerName) : c;
  if (!target) throw new ContainerConfigError('CreateContainerConfigError', `resourceFieldRef: no container "${ref.containerName}"`);
  const [kind, res] = ref.resource.split('.') as ['limits' | 'requests', string];
  const text = target.resources[kind]?.[res];
  const divisor = parseQuantity(ref.divisor ?? '1').value;
  if (text === undefined) return '0';
  return String(Math.ceil(parseQuantity(text).value / divisor));
}

/** Environment of a container in order, each value expanded against the ones before it. */
export function containerEnv(pod: Pod, c: Container, facts: PodRuntimeFacts): KeyValue[] {
  try {
    return envVars(pod, c, facts);
  } catch (e) {
    if (e instanceof EnvSourceError) throw new ContainerConfigError('CreateContainerConfigError', e.message);
    throw e;
  }
}

function envVars(pod: Pod, c: Container, facts: PodRuntimeFacts): KeyValue[] {
  // envFrom first, env after it (a name in both takes env's value), as the kubelet builds them.
  const out: KeyValue[] = envFromVars(c, facts.envObjects);
  const vars = new Map<string, string>(out.map((e) => [e.key, e.value]));
  for (const e of c.env ?? []) {
    let value: string;
    if (e.valueFrom?.fieldRef) value = fieldRef(pod, e.valueFrom.fieldRef.fieldPath, facts);
    else if (e.valueFrom?.resourceFieldRef) value = resourceRef(pod, c, e.valueFrom.resourceFieldRef);
    else if (e.valueFrom?.configMapKeyRef || e.valueFrom?.secretKeyRef) {
      const v = keyRefValue(pod, e.valueFrom, facts.envObjects);
      if (v === undefined) continue;
      value = v;
    } else value = expand(e.value ?? '', vars);
    vars.set(e.name, value);
    const i = out.findIndex((x) => x.key === e.name);
    if (i >= 0) out[i] = { key: e.name, value };
    else out.push({ key: e.name, value });
  }
  return out;
}

export interface ContainerSettings extends ResourceSettings {
  /** --seccomp-default. */
  seccompDefault: boolean;
  /** --root-dir: the pods' volumes live under <root>/pods/<uid>/volumes (src/volumes/). */
  rootDirectory: string;
}

/** The container's volume mounts (src/volumes/mounts.ts); a subPathExpr that cannot be expanded is a CreateContainerConfigError. */
function mounts(pod: Pod, c: Container, s: ContainerSettings, env: ReadonlyMap<string, string>): Mount[] {
  try {
    return containerMounts(pod, c, s.rootDirectory, env);
  } catch (e) {
    if (e instanceof MountConfigError) throw new ContainerConfigError('CreateContainerConfigError', e.message);
    throw e;
  }
}

export function containerConfig(pod: Pod, c: Container, type: ContainerType, restartCount: number, facts: PodRuntimeFacts, s: ContainerSettings): ContainerConfig {
  const env = containerEnv(pod, c, facts);
  const vars = new Map(env.map((e) => [e.key, e.value]));
  return {
    metadata: { name: c.name, attempt: restartCount },
    image: c.image,
    command: (c.command ?? []).map((x) => expand(x, vars)),
    args: (c.args ?? []).map((x) => expand(x, vars)),
    workingDir: c.workingDir ?? '',
    envs: env,
    mounts: mounts(pod, c, s, vars),
    labels: containerLabels(pod, c),
    annotations: containerAnnotations(pod, c, restartCount, type),
    logPath: `${c.name}/${restartCount}.log`,
    stdin: c.stdin === true,
    stdinOnce: c.stdinOnce === true,
    tty: c.tty === true,
    linux: {
      resources: linuxResources(pod, c, s),
      securityContext: containerSecurity(pod, c, { seccompDefault: s.seccompDefault, ...(facts.image ? { image: facts.image } : {}) }),
    },
  };
}
