// The node lease heartbeat (component-helpers lease controller, as the
// kubelet runs it). Timeline: `run(signal)` heartbeats at once, then every
// quarter of the lease duration (jittered by up to 4 %) until `signal`
// aborts, and resolves once stopped (no timer or request is left behind). A
// heartbeat renews by PUT of the last lease the server returned, without a
// GET; a 409 re-GETs (the ensure step) and tries again, up to 5 PUTs; when
// those fail, or nothing is held yet, it GETs the lease (creating it on 404)
// with a back-off of 200 ms doubling to 7 s until that works. API failures
// are logged, never thrown: the next heartbeat tries again.
import { isNotFound } from '../../api/errors.js';
import { abortableSleep } from '../../lifecycle/abort.js';
import type { ApiObject, ClientLog, ResourceClient } from '../types.js';
import { NodeWriterError } from './errors.js';
import { uidOf } from '../meta.js';
import {
  DEFAULT_LEASE_DURATION_SECONDS,
  ENSURE_LEASE_BACKOFF,
  MAX_LEASE_UPDATE_RETRIES,
  desiredLease,
  hasOwnerReferences,
  jitteredMs,
  nextEnsureBackoffMs,
  onLeaseUpdateFailure,
  renewIntervalMs,
  type LeaseIdentity,
} from './lease.js';

export interface NodeLeaseOptions {
  /** Leases in the lease namespace (platform-node-lease for the agent). */
  readonly leases: ResourceClient;
  /** Read once per lease without an owner, for the node's uid. */
  readonly nodes: Pick<ResourceClient, 'get'>;
  readonly nodeName: string;
  /** Default 40. */
  readonly leaseDurationSeconds?: number;
  readonly log: ClientLog;
  /** Called on the second and later non-conflict failure of one heartbeat's PUTs. */
  readonly onRepeatedHeartbeatFailure?: () => void;
  /** Test seams: wall clock (ms), abortable wait, randomness in [0, 1). */
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly random?: () => number;
}

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));


export class NodeLeaseController {
  private readonly id: LeaseIdentity;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private latest: ApiObject | undefined;

  constructor(private readonly opts: NodeLeaseOptions) {
    this.id = { nodeName: opts.nodeName, namespace: opts.leases.namespace, durationSeconds: opts.leaseDurationSeconds ?? DEFAULT_LEASE_DURATION_SECONDS };
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? abortableSleep;
    this.random = opts.random ?? Math.random;
  }

  /** The last lease the server returned (what the next heartbeat PUTs); undefined before the first success. */
  get latestLease(): ApiObject | undefined {
    return this.latest;
  }

  get renewIntervalMs(): number {
    return renewIntervalMs(this.id.durationSeconds);
  }

  /** Heartbeats until `signal` aborts; resolves once stopped. Call once. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.sync(signal);
        await this.sleep(jitteredMs(this.renewIntervalMs, this.random()), signal);
      } catch (err) {
        if (signal.aborted) return;
        throw err;
      }
    }
  }

  /**
   * One heartbeat. Resolves whether or not the lease was renewed (failures
   * are logged); rejects only with `signal.reason` after an abort.
   */
  async sync(signal: AbortSignal): Promise<void> {
    if (this.latest !== undefined) {
      try {
        await this.retryUpdate(this.latest, signal);
        return;
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        this.opts.log.info('failed to update lease using latest lease, fallback to ensure lease', { lease: this.ref(), error: errText(err) });
      }
    }
    const { lease, created } = await this.backoffEnsure(signal);
    this.latest = lease;
    if (created || lease === undefined) return;
    try {
      await this.retryUpdate(lease, signal);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      this.opts.log.error('will retry updating lease', { lease: this.ref(), intervalMs: this.renewIntervalMs, error: errText(err) });
    }
  }

  private ref(): string {
    return `leases/${this.id.namespace}/${this.id.nodeName}`;
  }

  /** PUTs renewals of `base`; a conflict re-reads the lease first. Rejects with a NodeWriterError after MAX_LEASE_UPDATE_RETRIES. */
  private async retryUpdate(base: ApiObject | undefined, signal: AbortSignal): Promise<void> {
    let from = base;
    let last: unknown;
    for (let attempt = 0; attempt < MAX_LEASE_UPDATE_RETRIES; attempt++) {
      const lease = desiredLease(from, this.id, this.now(), (await this.ownerUid(from, signal)).uid);
      try {
        this.latest = await this.opts.leases.update(lease, { signal });
        return;
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        last = err;
        this.opts.log.error('failed to update lease', { lease: this.ref(), attempt: attempt + 1, error: errText(err) });
        const next = onLeaseUpdateFailure(err, attempt);
        if (next.action === 'refetch') from = (await this.backoffEnsure(signal)).lease;
        else if (next.repeatedFailure) this.opts.onRepeatedHeartbeatFailure?.();
      }
    }
    throw new NodeWriterError('renew lease', this.ref(), MAX_LEASE_UPDATE_RETRIES, last);
  }

  /** GETs the lease (creating it on 404) until that works or `signal` aborts; waits double from 200 ms to 7 s. */
  private async backoffEnsure(signal: AbortSignal): Promise<{ lease: ApiObject | undefined; created: boolean }> {
    let waitMs: number = ENSURE_LEASE_BACKOFF.initialMs;
    for (;;) {
      try {
        return await this.ensure(signal);
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        waitMs = nextEnsureBackoffMs(waitMs);
        this.opts.log.error('failed to ensure lease exists, will retry', { lease: this.ref(), intervalMs: waitMs, error: errText(err) });
        await this.sleep(waitMs, signal);
      }
    }
  }

  /**
   * The lease as the server has it, or a new one created now. A lease that
   * cannot name its owner (the node's GET failed) is not created this time:
   * `{ lease: undefined, created: false }`, and the next heartbeat tries again.
   */
  private async ensure(signal: AbortSignal): Promise<{ lease: ApiObject | undefined; created: boolean }> {
    try {
      return { lease: await this.opts.leases.get(this.id.nodeName, { signal }), created: false };
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const owner = await this.ownerUid(undefined, signal);
    if (owner.failed) return { lease: undefined, created: false };
    const lease = desiredLease(undefined, this.id, this.now(), owner.uid);
    return { lease: await this.opts.leases.create(lease, { signal }), created: true };
  }

  /**
   * The node's uid for the lease's ownerReference, read (GET of the node) only
   * while the lease has none. `failed` when that GET failed: a lease to create
   * is then not created this time, a lease to update is sent without owner.
   */
  private async ownerUid(base: ApiObject | undefined, signal: AbortSignal): Promise<{ uid: string | undefined; failed: boolean }> {
    if (base !== undefined && hasOwnerReferences(base)) return { uid: undefined, failed: false };
    try {
      return { uid: uidOf(await this.opts.nodes.get(this.id.nodeName, { signal })), failed: false };
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      this.opts.log.error('failed to get node when trying to set owner ref to the node lease', { node: this.id.nodeName, error: errText(err) });
      return { uid: undefined, failed: true };
    }
  }
}
