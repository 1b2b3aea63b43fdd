// restartPolicy on init containers and the SidecarContainers gate.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import { validatePod } from '../../../src/pod-model/pod-validate.js';

function pod(init: Record<string, unknown>) {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd' }, spec: { initContainers: [{ name: 'side', image: 'x', ...init }], containers: [{ name: 'a', image: 'x' }] } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}
const probe = { exec: { command: ['true'] } };

describe('sidecar validation', () => {
  it.each<[string, Record<string, unknown>, boolean | undefined, string[]]>([
    ['a sidecar, gate on', { restartPolicy: 'Always', startupProbe: probe }, true, []],
    ['a sidecar, gate unknown to the caller', { restartPolicy: 'Always' }, undefined, []],
    ['a sidecar, gate off: refused', { restartPolicy: 'Always' }, false, ['spec.initContainers[0].restartPolicy: may not be set: the SidecarContainers feature gate is disabled']],
    ['a sidecar with a probe, gate off: both refused', { restartPolicy: 'Always', readinessProbe: probe }, false, ['spec.initContainers[0].restartPolicy: may not be set: the SidecarContainers feature gate is disabled', 'spec.initContainers[0].readinessProbe: may not be set for init containers without restartPolicy=Always']],
    ['a plain init container, gate off', {}, false, []],
  ])('%s', (_n, init, gate, want) => {
    expect(validatePod(pod(init), gate === undefined ? {} : { sidecarContainers: gate }).map((p) => `${p.field}: ${p.message}`)).toEqual(want);
  });
});
