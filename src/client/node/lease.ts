// The pure half of the node lease heartbeat (component-helpers
// apimachinery/lease/controller.go with the kubelet's nodelease owner
// function): the constants, the lease object the agent writes, the timing of
// renewals and of the ensure back-off, and what a failed update leads to.
// lease-controller.ts does the requests.
import { isConflict } from '../../api/errors.js';
import { formatMicroTime } from '../../api/codec/special.js';
import type { ApiObject } from '../types.js';

export const NODE_LEASE_NAMESPACE = 'platform-node-lease';
export const LEASE_API_VERSION = 'coordination.platform.io/v1';
/** kubelet's --node-lease-duration-seconds default. */
export const DEFAULT_LEASE_DURATION_SECONDS = 40;
/** kubelet's nodeLeaseRenewIntervalFraction: renew every quarter of the duration (10 s for 40 s). */
export const LEASE_RENEW_INTERVAL_FRACTION = 0.25;
/** wait.JitterUntil's factor in the lease controller: each wait is 0–4 % longer than the interval. */
export const LEASE_RENEW_JITTER = 0.04;
/** maxUpdateRetries: PUTs per heartbeat before falling back to GET (and create). */
export const MAX_LEASE_UPDATE_RETRIES = 5;
/** backoffEnsureLease: 100 ms doubled before each wait (so the first wait is 200 ms), at most 7 s. */
export const ENSURE_LEASE_BACKOFF = { initialMs: 100, maxMs: 7_000 } as const;

/** Who holds the lease and for how long: the node's name is both the lease's name and its holder. */
export interface LeaseIdentity {
  readonly nodeName: string;
  readonly namespace: string;
  readonly durationSeconds: number;
}

export const renewIntervalMs = (durationSeconds: number): number => durationSeconds * LEASE_RENEW_INTERVAL_FRACTION * 1000;

/** wait.Jitter: `periodMs` plus up to LEASE_RENEW_JITTER of it; `random` in [0, 1). */
export const jitteredMs = (periodMs: number, random: number): number => periodMs + random * LEASE_RENEW_JITTER * periodMs;

/** The wait after a failed ensure, given the previous one (start from ENSURE_LEASE_BACKOFF.initialMs). */
export const nextEnsureBackoffMs = (previousMs: number): number => Math.min(2 * previousMs, ENSURE_LEASE_BACKOFF.maxMs);

/** metav1.MicroTime's JSON form of a millisecond clock reading. */
export function microTime(epochMs: number): string {
  const whole = Math.floor(epochMs);
  const seconds = Math.floor(whole / 1000);
  return formatMicroTime(seconds, (whole - seconds * 1000) * 1_000_000);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether the lease already names its owner (the node), so no GET of the node is needed. */
export function hasOwnerReferences(lease: ApiObject): boolean {
  const meta = lease['metadata'];
  return isRecord(meta) && Array.isArray(meta['ownerReferences']) && meta['ownerReferences'].length > 0;
}

/**
 * The lease to send: a copy of `base` (the last one the server returned) or,
 * without one, a new lease (name, namespace, holderIdentity,
 * leaseDurationSeconds), with `spec.renewTime` = now, and the ownerReference
 * to the node when the lease has none and `nodeUid` is known. `base` is not
 * changed.
 */
export function desiredLease(base: ApiObject | undefined, id: LeaseIdentity, nowMs: number, nodeUid: string | undefined): ApiObject {
  const lease: ApiObject =
    base === undefined
      ? {
          apiVersion: LEASE_API_VERSION,
          kind: 'Lease',
          metadata: { name: id.nodeName, namespace: id.namespace },
          spec: { holderIdentity: id.nodeName, leaseDurationSeconds: id.durationSeconds },
        }
      : structuredClone(base);
  const spec = isRecord(lease['spec']) ? lease['spec'] : {};
  lease['spec'] = { ...spec, renewTime: microTime(nowMs) };
  if (nodeUid !== undefined && !hasOwnerReferences(lease)) {
    const meta = isRecord(lease['metadata']) ? lease['metadata'] : {};
    lease['metadata'] = { ...meta, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: id.nodeName, uid: nodeUid }] };
  }
  return lease;
}

/**
 * What a failed lease PUT leads to: a conflict means someone else wrote the
 * lease, so the next try starts from a fresh GET (`refetch`); anything else
 * is tried again from the same base (`retry`), counted as a repeated
 * heartbeat failure from the second try on.
 */
export function onLeaseUpdateFailure(err: unknown, attempt: number): { readonly action: 'refetch' | 'retry'; readonly repeatedFailure: boolean } {
  if (isConflict(err)) return { action: 'refetch', repeatedFailure: false };
  return { action: 'retry', repeatedFailure: attempt > 0 };
}
