// The grace period of a kill that a failed probe asked for (the kubelet's
// setTerminationGracePeriod): a liveness or startup probe's own
// terminationGracePeriodSeconds, when set, replaces the pod's. Pure; for the
// pod wing's kill decisions.
import type { Container } from '../pod-model/pod-types.js';
import type { ProbeKind } from './view.js';

export function probeKillGracePeriod(podGracePeriodSeconds: number, c: Container, failed: Exclude<ProbeKind, 'readiness'>): number {
  const probe = failed === 'liveness' ? c.livenessProbe : c.startupProbe;
  return probe?.terminationGracePeriodSeconds ?? podGracePeriodSeconds;
}
