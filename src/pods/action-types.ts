// The vocabulary of a pod's plan (what computePodActions decides and
// sync-pod.ts carries out), shared by the decision files so that none of them
// imports another's module for its types. Pure data.
import type { ContainerType } from '../runtime-view/labels.js';

export interface ContainerToStart {
  type: ContainerType;
  /** Index in spec.initContainers or spec.containers. */
  index: number;
  name: string;
  /** Restart count the new instance carries (previous instance's + 1, or 0). */
  restartCount: number;
}

/**
 * Why a running container is stopped, as the kubelet's containerKillReason:
 * its spec changed, it is in an unknown or never-started state, or a liveness
 * or startup probe failed (the kubelet's event reason for those is `Unhealthy`,
 * its kill reasons `LivenessProbe` / `StartupProbe`).
 */
export type KillReason = 'Changed' | 'Unknown' | 'NotStarted' | 'Orphaned' | 'LivenessProbe' | 'StartupProbe';

export interface ContainerToKill {
  id: string;
  name: string;
  /** Machine-readable reason, as the kubelet's events use. */
  reason: KillReason;
  /** What the kubelet's Killing event says, e.g. "Container web failed liveness probe, will be restarted". */
  message: string;
  /**
   * The stop's grace period when it is not the pod's: a failed liveness or
   * startup probe's own terminationGracePeriodSeconds (the kubelet's
   * setTerminationGracePeriod). The executor still applies the 2 s minimum.
   */
  gracePeriodSeconds?: number;
}

export interface PodActions {
  /** Stop every container and sandbox of the pod before anything else. */
  killPod: boolean;
  createSandbox: boolean;
  /** Attempt number for a new sandbox. */
  sandboxAttempt: number;
  /** The sandbox to start containers in; '' when a new one is created. */
  sandboxId: string;
  containersToKill: ContainerToKill[];
  /** Init containers first (in spec order), then app containers; carried out in this order. */
  containersToStart: ContainerToStart[];
}
