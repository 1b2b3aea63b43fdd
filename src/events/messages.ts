// The kubelet's event messages that need more than a template string at the
// emit site: Go's duration format (image pulls) and the probe messages. Pure.

/**
 * `d.Truncate(time.Millisecond).String()` of Go for `ms` milliseconds: `0s`,
 * `250ms`, `1.2s`, `1m2.005s`, `1h0m0.5s`.
 */
export function goDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms));
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const sMs = total % 60_000;
  const frac = String(sMs % 1000).padStart(3, '0').replace(/0+$/, '');
  const s = `${Math.floor(sMs / 1000)}${frac === '' ? '' : `.${frac}`}s`;
  if (h > 0) return `${h}h${m}m${s}`;
  if (m > 0) return `${m}m${s}`;
  return s;
}

/** `Successfully pulled image "x" in 1.2s (1.5s including waiting)`. */
export function pulledMessage(image: string, pullMs: number, totalMs: number): string {
  return `Successfully pulled image "${image}" in ${goDuration(pullMs)} (${goDuration(totalMs)} including waiting)`;
}

export type ProbeEventKind = 'liveness' | 'readiness' | 'startup';

const TITLE: Record<ProbeEventKind, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

/** The prober's events: `Liveness probe failed: <output>` (Unhealthy), `... probe warning: ...` (ProbeWarning), `... probe errored: ...` (Unhealthy). */
export function probeEvent(kind: ProbeEventKind, verdict: 'failed' | 'warning' | 'errored', output: string): { type: 'Warning'; reason: 'Unhealthy' | 'ProbeWarning'; message: string } {
  return { type: 'Warning', reason: verdict === 'warning' ? 'ProbeWarning' : 'Unhealthy', message: `${TITLE[kind]} probe ${verdict}: ${output}` };
}

/** `Back-off restarting failed container c in pod web_ns(uid)` (format.Pod: name_namespace(uid)). */
export function crashBackOffMessage(container: string, pod: { namespace: string; name: string; uid: string }): string {
  return `Back-off restarting failed container ${container} in pod ${pod.name}_${pod.namespace}(${pod.uid})`;
}
