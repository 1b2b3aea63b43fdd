// What the pod manager and the syncs report to the metrics (src/metrics'
// AgentMetrics fits structurally; the pods folder does not import it). Every
// call is synchronous, cheap and must not throw: they sit on the sync path.
import type { Pod } from '../pod-model/pod-types.js';
import { CriError } from '../cri/errors.js';

/** A pod start's phases, in order (src/metrics/pod-start.ts keeps the marks). */
export type PodStartPhaseName = 'seen' | 'admitted' | 'sandbox' | 'images' | 'containers' | 'running';

export interface PodRefLabels {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
}

export interface PodMetricsSink {
  /** The kubelet's operation_type: create (a pod's first sync), sync, kill (a teardown). */
  podWorker(operation: 'create' | 'update' | 'sync' | 'kill', seconds: number): void;
  podWorkerStart(seconds: number): void;
  containerStart(type: 'container' | 'init_container' | 'ephemeral_container', errorCode: string | undefined): void;
  podStartPhase(pod: PodRefLabels, phase: PodStartPhaseName, atMs?: number): void;
  podGone(uid: string): void;
}

export const podRefLabels = (pod: Pod): PodRefLabels => ({ uid: pod.metadata.uid, namespace: pod.metadata.namespace, name: pod.metadata.name });

/** The started_containers_errors_total `code`: the gRPC status as Go's codes.Code prints it (NOT_FOUND → NotFound), Unknown otherwise. Pure. */
export function startErrorCode(e: unknown): string {
  if (!(e instanceof CriError)) return 'Unknown';
  if (e.status === 'OK') return 'OK';
  return e.status
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}
