// The security settings of a pod as the API server validates them: each
// problem names its field.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import { validatePod } from '../../../src/pod-model/pod-validate.js';

type Obj = Record<string, unknown>;
const pod = (spec: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'i:1' }], ...spec } });
const ctr = (securityContext: Obj): Obj => pod({ containers: [{ name: 'c', image: 'i:1', securityContext }] });
const psc = (securityContext: Obj): Obj => pod({ securityContext });

function problems(raw: unknown): string[] {
  const d = decodePod(raw);
  return (d.ok ? validatePod(d.pod) : d.problems).map((p) => `${p.field}: ${p.message}`);
}

describe('security settings refused, naming the field', () => {
  it.each<[string, Obj, string]>([
    ['container runAsUser < 0', ctr({ runAsUser: -1 }), 'spec.containers[0].securityContext.runAsUser'],
    ['container runAsGroup < 0', ctr({ runAsGroup: -5 }), 'spec.containers[0].securityContext.runAsGroup'],
    ['pod runAsUser < 0', psc({ runAsUser: -1 }), 'spec.securityContext.runAsUser'],
    ['fsGroup < 0', psc({ fsGroup: -1 }), 'spec.securityContext.fsGroup'],
    ['supplementalGroups < 0', psc({ supplementalGroups: [1, -2] }), 'spec.securityContext.supplementalGroups[1]'],
    ['procMount not in the enum', ctr({ procMount: 'Sometimes' }), 'spec.containers[0].securityContext.procMount'],
    ['Localhost seccomp without a profile', ctr({ seccompProfile: { type: 'Localhost' } }), 'spec.containers[0].securityContext.seccompProfile.localhostProfile: must be set'],
    ['RuntimeDefault seccomp with a profile', psc({ seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'x.json' } }), 'spec.securityContext.seccompProfile.localhostProfile: can only be set'],
    ['capability name', ctr({ capabilities: { add: ['NET ADMIN'] } }), 'spec.containers[0].securityContext.capabilities.add[0]: "NET ADMIN" is not a capability name'],
    ['dropped capability name', ctr({ capabilities: { drop: ['ALL', '1X'] } }), 'spec.containers[0].securityContext.capabilities.drop[1]'],
    ['sysctl name', psc({ sysctls: [{ name: 'Net.Core', value: '1' }] }), 'spec.securityContext.sysctls[0].name'],
    ['duplicate sysctl', psc({ sysctls: [{ name: 'kernel.msgmax', value: '1' }, { name: 'kernel.msgmax', value: '2' }] }), 'spec.securityContext.sysctls[1].name: duplicate sysctl "kernel.msgmax"'],
    ['privileged without privilege escalation', ctr({ privileged: true, allowPrivilegeEscalation: false }), 'spec.containers[0].securityContext: cannot set allowPrivilegeEscalation to false and privileged to true'],
  ])('%s', (_what, raw, want) => {
    expect(problems(raw).join('\n')).toContain(want);
  });

  it.each<[string, Obj]>([
    ['every setting at once', pod({ securityContext: { runAsUser: 1000, runAsGroup: 1000, runAsNonRoot: true, fsGroup: 2000, supplementalGroups: [0, 3000], sysctls: [{ name: 'net.ipv4.ip_local_port_range', value: '1024 65000' }], seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'c', image: 'i:1', securityContext: { runAsUser: 0, privileged: false, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, procMount: 'Unmasked', capabilities: { add: ['NET_ADMIN', 'CAP_SYS_TIME'], drop: ['ALL'] }, seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/a.json' } } }] })],
  ])('accepted: %s', (_what, raw) => expect(problems(raw)).toEqual([]));
});
