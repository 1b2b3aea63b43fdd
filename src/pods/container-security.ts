// A container's CRI security context (the kubelet's
// determineEffectiveSecurityContext and verifyRunAsNonRoot, with
// pkg/securitycontext's procMount paths), as pure functions. The pod's
// securityContext fills in what the container's leaves unset; the image's
// configured user (from ImageStatus, handed over by the image manager) is the
// user when runAsUser is unset, and is what runAsNonRoot is checked against.
// Called by containerConfig() for every container it builds; never blocks.
import type { Container, Pod, SecurityContext } from '../pod-model/pod-types.js';
import type { ContainerConfig, NamespaceOptions, SecurityProfile } from '../cri/types.js';
import type { ImageUser } from '../images/manager.js';

export type { ImageUser } from '../images/manager.js';

type CriSecurityContext = ContainerConfig['linux']['securityContext'];


/** What the runtime masks in /proc and /sys for a container with procMount Default (pkg/securitycontext defaultMaskedPaths). */
export const DEFAULT_MASKED_PATHS: readonly string[] = [
  '/proc/asound',
  '/proc/acpi',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
];

/** What it makes read-only (defaultReadonlyPaths). */
export const DEFAULT_READONLY_PATHS: readonly string[] = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

/** Why a container's configuration cannot be made: the caller reports it as CreateContainerConfigError. */
export class SecurityConfigError extends Error {
  override name = 'SecurityConfigError';
  readonly reason = 'CreateContainerConfigError';
}

/** The kubelet's format.Pod: name_namespace(uid). */
const podRef = (pod: Pod): string => `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;

/** The container's settings with the pod's filling the gaps (securitycontext.DetermineEffectiveSecurityContext). */
export function effectiveSecurityContext(pod: Pod, c: Container): SecurityContext {
  const psc = pod.spec.securityContext;
  const sc: SecurityContext = { ...c.securityContext };
  if (sc.runAsUser === undefined && psc?.runAsUser !== undefined) sc.runAsUser = psc.runAsUser;
  if (sc.runAsGroup === undefined && psc?.runAsGroup !== undefined) sc.runAsGroup = psc.runAsGroup;
  if (sc.runAsNonRoot === undefined && psc?.runAsNonRoot !== undefined) sc.runAsNonRoot = psc.runAsNonRoot;
  if (sc.seccompProfile === undefined && psc?.seccompProfile !== undefined) sc.seccompProfile = psc.seccompProfile;
  return sc;
}

/**
 * Refuses a container with runAsNonRoot that would run as root (the
 * kubelet's verifyRunAsNonRoot): its runAsUser when set, else the image's
 * user; a non-numeric image user cannot be verified. Throws SecurityConfigError.
 */
export function verifyRunAsNonRoot(pod: Pod, c: Container, image: ImageUser): void {
  const sc = effectiveSecurityContext(pod, c);
  if (sc.runAsNonRoot !== true) return;
  if (sc.runAsUser !== undefined) {
    if (sc.runAsUser === 0) throw new SecurityConfigError(`container's runAsUser breaks non-root policy (pod: "${podRef(pod)}", container: ${c.name})`);
    return;
  }
  if (image.uid === 0 || (image.uid === undefined && image.username === '')) {
    throw new SecurityConfigError(`container has runAsNonRoot and image will run as root (pod: "${podRef(pod)}", container: ${c.name})`);
  }
  if (image.uid === undefined) {
    throw new SecurityConfigError(`container has runAsNonRoot and image has non-numeric user (${image.username}), cannot verify user is non-root (pod: "${podRef(pod)}", container: ${c.name})`);
  }
}

/** The pod's namespaces as the sandbox and its containers share them. */
export function podNamespaces(pod: Pod): NamespaceOptions {
  return {
    network: pod.spec.hostNetwork ? 'NODE' : 'POD',
    pid: pod.spec.hostPID ? 'NODE' : pod.spec.shareProcessNamespace ? 'POD' : 'CONTAINER',
    ipc: pod.spec.hostIPC ? 'NODE' : 'POD',
  };
}

export function runtimeProfile(p: SecurityContext['seccompProfile']): SecurityProfile | undefined {
  if (p === undefined) return undefined;
  return { type: p.type, ...(p.localhostProfile ? { localhostRef: p.localhostProfile } : {}) };
}

/** The pod's fsGroup then its supplementalGroups: the extra groups of every process of the pod. */
export function podSupplementalGroups(pod: Pod): number[] {
  const psc = pod.spec.securityContext;
  return [...(psc?.fsGroup !== undefined ? [psc.fsGroup] : []), ...(psc?.supplementalGroups ?? [])];
}

/** Whether the container's user must be checked against its image's (runAsNonRoot without runAsUser). Pure. */
export function needsImageUser(pod: Pod, c: Container): boolean {
  const sc = effectiveSecurityContext(pod, c);
  return sc.runAsNonRoot === true && sc.runAsUser === undefined;
}

export interface SecurityInput {
  /** --seccomp-default: RuntimeDefault where neither the container nor the pod names a profile. */
  seccompDefault: boolean;
  /** The image's configured user; undefined when it is not known (the user is then left to the runtime). */
  image?: ImageUser;
}

/**
 * The CRI security context of one container. Throws SecurityConfigError when
 * runAsNonRoot cannot be honoured (only when the image's user is known).
 */
export function containerSecurity(pod: Pod, c: Container, inp: SecurityInput): CriSecurityContext {
  const sc = effectiveSecurityContext(pod, c);
  if (inp.image) verifyRunAsNonRoot(pod, c, inp.image);
  const seccomp = runtimeProfile(sc.seccompProfile ?? (inp.seccompDefault ? { type: 'RuntimeDefault' } : undefined));
  const privileged = sc.privileged === true;
  // runAsUser unset: the image's user, as a number when it has one (a missing USER is root), else by name.
  let runAsUser = sc.runAsUser;
  let runAsUsername: string | undefined;
  if (runAsUser === undefined && inp.image) {
    if (inp.image.uid !== undefined) runAsUser = inp.image.uid;
    else if (inp.image.username !== '') runAsUsername = inp.image.username;
    else runAsUser = 0;
  }
  const groups = podSupplementalGroups(pod);
  // A privileged container sees /proc unmasked whatever procMount says (runtimes skip the paths for it).
  const masked = !privileged && sc.procMount !== 'Unmasked';
  return {
    privileged,
    ...(runAsUser !== undefined ? { runAsUser } : {}),
    ...(sc.runAsGroup !== undefined ? { runAsGroup: sc.runAsGroup } : {}),
    ...(runAsUsername !== undefined ? { runAsUsername } : {}),
    readonlyRootfs: sc.readOnlyRootFilesystem === true,
    namespaceOptions: podNamespaces(pod),
    ...(seccomp ? { seccompProfile: seccomp } : {}),
    ...(sc.capabilities ? { capabilities: { addCapabilities: sc.capabilities.add ?? [], dropCapabilities: sc.capabilities.drop ?? [] } } : {}),
    ...(groups.length > 0 ? { supplementalGroups: groups } : {}),
    ...(sc.allowPrivilegeEscalation === false ? { noNewPrivs: true } : {}),
    ...(masked ? { maskedPaths: [...DEFAULT_MASKED_PATHS], readonlyPaths: [...DEFAULT_READONLY_PATHS] } : {}),
  };
}
