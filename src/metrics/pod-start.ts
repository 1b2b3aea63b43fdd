// The per-phase pod start breakdown, beyond the kubelet: when each pod was
// first seen by a source, admitted, got its sandbox, its images, its
// containers started, and was first reported Running. Pure bookkeeping: the
// caller observes the histograms and writes the log line from what finish()
// returns.

/** In start order. `images` and `containers` move with each container of the first start; the others keep their first mark. */
export const POD_START_PHASES = ['seen', 'admitted', 'sandbox', 'images', 'containers', 'running'] as const;
export type PodStartPhase = (typeof POD_START_PHASES)[number];

/** The phase label of each step between marks: the step *ending* at that phase. */
export const PHASE_STEPS: Readonly<Record<Exclude<PodStartPhase, 'seen'>, string>> = {
  admitted: 'admission',
  sandbox: 'sandbox',
  images: 'images',
  containers: 'containers',
  running: 'running',
};

export interface PodRef {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
}

export interface PodStartRecord {
  readonly pod: PodRef;
  /** seen → running, seconds (the kubelet's pod_start_duration_seconds). */
  readonly totalSeconds: number;
  /** The total without image pulling (the kubelet's pod_start_sli_duration_seconds excludes it). */
  readonly sliSeconds: number;
  /** Seconds of each step that was marked, keyed by PHASE_STEPS; a skipped phase (no pull needed is still marked) is absent. */
  readonly steps: Readonly<Record<string, number>>;
}

interface Entry {
  pod: PodRef;
  marks: Partial<Record<PodStartPhase, number>>;
}

/** Pods tracked at most; past it the oldest is forgotten (a start that never finishes must not grow memory). */
export const MAX_TRACKED = 10_000;

/**
 * Marks per pod UID, in ms from any monotonic clock. A pod counts only when
 * this agent created its sandbox: pods found running after a restart, or
 * whose sandbox was recreated later, report nothing. Each pod reports once.
 * Not thread-safe, never blocks, never throws.
 */
export class PodStartTracker {
  private readonly entries = new Map<string, Entry>();
  private readonly done = new Set<string>();

  mark(pod: PodRef, phase: PodStartPhase, atMs: number): PodStartRecord | undefined {
    if (this.done.has(pod.uid)) return undefined;
    let e = this.entries.get(pod.uid);
    if (e === undefined) {
      // Only a pod first seen by a source starts a record: a later phase alone means it predates us.
      if (phase !== 'seen') return undefined;
      e = { pod, marks: {} };
      this.entries.set(pod.uid, e);
      if (this.entries.size > MAX_TRACKED) this.forget(this.entries.keys().next().value!);
    }
    const movable = phase === 'images' || phase === 'containers';
    if (movable || e.marks[phase] === undefined) e.marks[phase] = atMs;
    if (phase !== 'running') return undefined;
    this.entries.delete(pod.uid);
    this.done.add(pod.uid);
    if (this.done.size > MAX_TRACKED) this.done.delete(this.done.values().next().value!);
    return finish(e);
  }

  /** The pod is gone (removed from its sources): its marks and its once-only guard go. */
  forget(uid: string): void {
    this.entries.delete(uid);
    this.done.delete(uid);
  }

  get size(): number {
    return this.entries.size;
  }
}

function finish(e: Entry): PodStartRecord | undefined {
  const m = e.marks;
  if (m.seen === undefined || m.sandbox === undefined || m.running === undefined) return undefined;
  // Differences in ms, divided once: seconds stay as exact as the marks.
  const steps: Record<string, number> = {};
  let prev = m.seen;
  let pullingMs = 0;
  for (const phase of POD_START_PHASES.slice(1)) {
    const at = m[phase];
    if (at === undefined) continue;
    const ms = Math.max(0, at - prev);
    if (phase === 'images') pullingMs = ms;
    steps[PHASE_STEPS[phase as Exclude<PodStartPhase, 'seen'>]] = ms / 1000;
    prev = Math.max(prev, at);
  }
  const totalMs = Math.max(0, m.running - m.seen);
  return { pod: e.pod, totalSeconds: totalMs / 1000, sliSeconds: Math.max(0, totalMs - pullingMs) / 1000, steps };
}
