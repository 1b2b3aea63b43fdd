// The kubelet's histogram buckets and label values (pkg/kubelet/metrics,
// component-base's DefBuckets), so dashboards and alerts written for the
// kubelet's series read the agent's unchanged. Pure data.

/** component-base metrics.DefBuckets (Prometheus' defaults). */
export const DEF_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** metrics.ExponentialBuckets(.005, 2.5, 14): runtime operation latencies (ms to minutes). */
export const RUNTIME_BUCKETS: readonly number[] = exponential(0.005, 2.5, 14);

/** The kubelet's pod start buckets (pod_start_duration_seconds, pod_start_sli_duration_seconds). */
export const POD_START_BUCKETS: readonly number[] = [0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600];

/** The kubelet's image pull buckets (image_pull_duration_seconds). */
export const IMAGE_PULL_BUCKETS: readonly number[] = [1, 5, 10, 20, 30, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600];

/** Per-phase pod start buckets (the agent's own family): sub-second phases (admission) up to long pulls. */
export const PHASE_BUCKETS: readonly number[] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800];

export function exponential(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0, v = start; i < count; i++, v *= factor) out.push(Number(v.toPrecision(12)));
  return out;
}

const MB = 1024 * 1024;
const GB = 1024 * MB;
/** The kubelet's image_size_in_bytes label: the size class of a pulled image. */
const SIZE_CLASSES: ReadonlyArray<readonly [number, string]> = [
  [10 * MB, '0-10MB'],
  [100 * MB, '10MB-100MB'],
  [500 * MB, '100MB-500MB'],
  [GB, '500MB-1GB'],
  [5 * GB, '1GB-5GB'],
  [10 * GB, '5GB-10GB'],
  [20 * GB, '10GB-20GB'],
  [50 * GB, '20GB-50GB'],
  [100 * GB, '50GB-100GB'],
  [200 * GB, '100GB-200GB'],
];

/** The size class of `bytes`; 'unknown' when the runtime did not say (the kubelet always knows it from its pull result). */
export function imageSizeClass(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return 'unknown';
  for (const [limit, label] of SIZE_CLASSES) if (bytes < limit) return label;
  return '200GB+';
}
