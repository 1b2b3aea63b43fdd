// Merges the sources' pod sets into one desired state (the kubelet's
// pkg/kubelet/config/config.go). Each source reports its complete set; the
// merger turns that into the minimal ADD / UPDATE / REMOVE updates, rejects a
// pod whose namespace/name another source already declares, and knows when
// every source has reported once (before that, absence from the desired state
// does not mean "tear down": garbage collection waits for it).
//
// Pure and synchronous: the composition root calls set() with each source's
// pod set and hands the updates to the pod manager. Not re-entrant: do not
// call set() again while handling the updates of a set() still running.
import type { Pod } from '../pod-model/pod-types.js';
import { podRef } from '../pod-model/pod-types.js';
import { sameDesiredPod } from './static-pod.js';

export type SourceName = 'file' | 'http' | 'api';

export type PodUpdate =
  | { readonly op: 'ADD'; readonly pod: Pod; readonly source: SourceName }
  | { readonly op: 'UPDATE'; readonly pod: Pod; readonly source: SourceName }
  | { readonly op: 'REMOVE'; readonly pod: Pod; readonly source: SourceName };

export interface Rejection {
  readonly pod: Pod;
  readonly source: SourceName;
  readonly reason: string;
}

export class PodConfigMerger {
  /** uid → pod, per source. */
  private readonly bySource = new Map<SourceName, Map<string, Pod>>();
  private readonly seen = new Set<SourceName>();
  /** namespace/name → owning source and uid, across sources. */
  private readonly names = new Map<string, { source: SourceName; uid: string }>();

  constructor(private readonly sources: readonly SourceName[]) {
    for (const s of sources) this.bySource.set(s, new Map());
  }

  /** Replaces `source`'s set; returns the updates and the pods rejected for name collisions. */
  set(source: SourceName, pods: readonly Pod[]): { updates: PodUpdate[]; rejected: Rejection[] } {
    const current = this.bySource.get(source);
    if (current === undefined) throw new Error(`unknown pod source ${source}`);
    this.seen.add(source);
    const updates: PodUpdate[] = [];
    const rejected: Rejection[] = [];
    const next = new Map<string, Pod>();
    const nextNames = new Set<string>();
    for (const pod of pods) {
      const ref = podRef(pod);
      const owner = this.names.get(ref);
      if (owner && owner.source !== source) {
        rejected.push({ pod, source, reason: `pod ${ref} is already declared by the ${owner.source} source` });
        continue;
      }
      if (nextNames.has(ref)) {
        rejected.push({ pod, source, reason: `pod ${ref} is declared twice by the ${source} source` });
        continue;
      }
      nextNames.add(ref);
      next.set(pod.metadata.uid, pod);
    }
    for (const [uid, pod] of current) {
      if (!next.has(uid)) {
        updates.push({ op: 'REMOVE', pod, source });
        this.names.delete(podRef(pod));
      }
    }
    for (const [uid, pod] of next) {
      const old = current.get(uid);
      if (old === undefined) updates.push({ op: 'ADD', pod, source });
      else if (!sameDesiredPod(old, pod)) updates.push({ op: 'UPDATE', pod, source });
      else next.set(uid, old); // keep the first-seen annotation of the pod already known
      this.names.set(podRef(pod), { source, uid });
    }
    this.bySource.set(source, next);
    return { updates, rejected };
  }

  /** True once every configured source has reported at least once. */
  allSourcesSeen(): boolean {
    return this.sources.every((s) => this.seen.has(s));
  }

  pods(): Pod[] {
    return [...this.bySource.values()].flatMap((m) => [...m.values()]);
  }
}
