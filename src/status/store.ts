// The latest status of every pod the agent knows. The sync loop writes it;
// the servers (/pods) and, in API-server mode, the status syncer read it.
import type { Pod, PodStatus } from '../pod-model/pod-types.js';

export interface PodWithStatus {
  pod: Pod;
  status: PodStatus;
}

export type StatusListener = (uid: string, next: PodWithStatus | undefined, previous: PodWithStatus | undefined) => void;

export class StatusStore {
  private readonly pods = new Map<string, PodWithStatus>();
  private readonly listeners = new Set<StatusListener>();
  private changes = 0;

  /**
   * Counts every set and delete: readers that derive something costly from
   * all() (the servers' serialized /pods answer) rebuild it only when this moved.
   */
  get version(): number {
    return this.changes;
  }

  get(uid: string): PodWithStatus | undefined {
    return this.pods.get(uid);
  }

  all(): PodWithStatus[] {
    return [...this.pods.values()];
  }

  set(uid: string, value: PodWithStatus): void {
    const prev = this.pods.get(uid);
    this.pods.set(uid, value);
    this.changes++;
    for (const l of this.listeners) l(uid, value, prev);
  }

  delete(uid: string): void {
    const prev = this.pods.get(uid);
    if (!prev) return;
    this.pods.delete(uid);
    this.changes++;
    for (const l of this.listeners) l(uid, undefined, prev);
  }

  /** Returns an unsubscribe function. */
  subscribe(l: StatusListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}
