// Probe counters (the kubelet's prober_probe_total{probe_type, result,
// container, pod, namespace, pod_uid}) and probe timing (scheduled vs actual
// start), kept in memory. The /metrics/probes endpoint of the servers issue
// renders snapshot(); bench/ reads the timing. Cheap, synchronous, never
// blocks; a worker's series go when the worker stops, as the kubelet deletes them.
import type { ProbeKind } from './view.js';

export type CountedResult = 'successful' | 'failed' | 'unknown';

export interface ProbeSeries {
  readonly probeType: 'Liveness' | 'Readiness' | 'Startup';
  readonly result: CountedResult;
  readonly container: string;
  readonly pod: string;
  readonly namespace: string;
  readonly podUID: string;
}

export interface ProbeCount extends ProbeSeries {
  readonly count: number;
}

export interface WorkerLabels {
  readonly kind: ProbeKind;
  readonly container: string;
  readonly pod: string;
  readonly namespace: string;
  readonly podUID: string;
}

const TYPE: Record<ProbeKind, ProbeSeries['probeType']> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

export class ProbeCounters {
  private readonly counts = new Map<string, { series: ProbeSeries; count: number }>();

  private key(w: WorkerLabels, result: CountedResult): string {
    // NUL cannot occur in a UID, a container name or a kind: the key is unambiguous without JSON.
    return `${w.podUID}\u0000${w.container}\u0000${w.kind}\u0000${result}`;
  }

  inc(w: WorkerLabels, result: CountedResult): void {
    const k = this.key(w, result);
    const e = this.counts.get(k);
    if (e) e.count++;
    else this.counts.set(k, { series: { probeType: TYPE[w.kind], result, container: w.container, pod: w.pod, namespace: w.namespace, podUID: w.podUID }, count: 1 });
  }

  /** Drops the worker's series (its container or pod is gone). */
  delete(w: WorkerLabels): void {
    for (const r of ['successful', 'failed', 'unknown'] as const) this.counts.delete(this.key(w, r));
  }

  snapshot(): ProbeCount[] {
    return [...this.counts.values()].map((e) => ({ ...e.series, count: e.count }));
  }
}

/** How late each probe started against its schedule (monotonic ms), the last SAMPLES of them. */
export class ProbeTiming {
  static readonly SAMPLES = 4096;
  private readonly lateness: number[] = [];
  private next = 0;
  private total = 0;

  record(lateMs: number): void {
    this.total++;
    if (this.lateness.length < ProbeTiming.SAMPLES) this.lateness.push(lateMs);
    else this.lateness[this.next] = lateMs;
    this.next = (this.next + 1) % ProbeTiming.SAMPLES;
  }

  /** Probes timed in all, and percentiles of the recent lateness in ms (0 when none). */
  snapshot(): { probes: number; p50: number; p99: number; max: number } {
    const sorted = [...this.lateness].sort((a, b) => a - b);
    const at = (q: number): number => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
    return { probes: this.total, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
  }
}
