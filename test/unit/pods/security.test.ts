// The container's and the sandbox's CRI security context from the pod, the
// container and the image's user (the kubelet's determineEffectiveSecurityContext,
// verifyRunAsNonRoot, generatePodSandboxLinuxConfig), as tables.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { containerSecurity, DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS, needsImageUser, SecurityConfigError, type ImageUser } from '../../../src/pods/container-security.js';
import { containerConfig } from '../../../src/pods/container-config.js';
import { sandboxConfig } from '../../../src/pods/sandbox-config.js';

function pod(spec: Record<string, unknown>, container: Record<string, unknown> = {}): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'prod', uid: 'u1' }, spec: { containers: [{ name: 'c', image: 'i:1', ...container }], ...spec } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}
const ROOT: ImageUser = { username: '' };
const security = (p: Pod, image?: ImageUser, seccompDefault = false) => containerSecurity(p, p.spec.containers[0]!, { seccompDefault, ...(image ? { image } : {}) });

describe('container security context', () => {
  it.each<[string, Pod, ImageUser | undefined, Record<string, unknown>]>([
    ['image user unknown: the runtime picks the user', pod({}), undefined, { privileged: false, readonlyRootfs: false }],
    ['image without USER runs as root, as uid 0', pod({}), ROOT, { runAsUser: 0 }],
    ['numeric image user', pod({}), { uid: 1000, username: '' }, { runAsUser: 1000 }],
    ['named image user goes by name', pod({}), { username: 'nobody' }, { runAsUsername: 'nobody' }],
    ['runAsUser wins over the image', pod({}, { securityContext: { runAsUser: 5 } }), { uid: 1000, username: '' }, { runAsUser: 5 }],
    ['pod runAsUser/runAsGroup fill in', pod({ securityContext: { runAsUser: 7, runAsGroup: 8 } }), ROOT, { runAsUser: 7, runAsGroup: 8 }],
    ['container wins over pod', pod({ securityContext: { runAsUser: 7, runAsGroup: 8 } }, { securityContext: { runAsUser: 9, runAsGroup: 10 } }), ROOT, { runAsUser: 9, runAsGroup: 10 }],
    ['fsGroup then supplementalGroups', pod({ securityContext: { fsGroup: 2000, supplementalGroups: [3000, 4000] } }), ROOT, { supplementalGroups: [2000, 3000, 4000] }],
    ['readOnlyRootFilesystem', pod({}, { securityContext: { readOnlyRootFilesystem: true } }), ROOT, { readonlyRootfs: true }],
    ['allowPrivilegeEscalation false: no_new_privs', pod({}, { securityContext: { allowPrivilegeEscalation: false } }), ROOT, { noNewPrivs: true }],
    ['capabilities', pod({}, { securityContext: { capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] } } }), ROOT, { capabilities: { addCapabilities: ['NET_ADMIN'], dropCapabilities: ['ALL'] } }],
    ['procMount Default masks /proc', pod({}), ROOT, { maskedPaths: DEFAULT_MASKED_PATHS, readonlyPaths: DEFAULT_READONLY_PATHS }],
    ['pod seccomp', pod({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } } }), ROOT, { seccompProfile: { type: 'Localhost', localhostRef: 'p.json' } }],
    ['host namespaces', pod({ hostNetwork: true, hostPID: true, hostIPC: true }), ROOT, { namespaceOptions: { network: 'NODE', pid: 'NODE', ipc: 'NODE' } }],
    ['shareProcessNamespace: one PID namespace for the pod', pod({ shareProcessNamespace: true }), ROOT, { namespaceOptions: { network: 'POD', pid: 'POD', ipc: 'POD' } }],
  ])('%s', (_what, p, image, want) => {
    expect(security(p, image)).toMatchObject(want);
  });

  it.each<[string, Pod, string[]]>([
    ['no image user: no runAs fields', pod({}), ['runAsUser', 'runAsUsername']],
    ['allowPrivilegeEscalation unset: no no_new_privs', pod({}), ['noNewPrivs']],
    ['procMount Unmasked', pod({}, { securityContext: { procMount: 'Unmasked' } }), ['maskedPaths', 'readonlyPaths']],
    ['privileged: /proc unmasked', pod({}, { securityContext: { privileged: true } }), ['maskedPaths', 'readonlyPaths']],
    ['no groups', pod({}), ['supplementalGroups']],
    ['no seccomp without --seccomp-default', pod({}), ['seccompProfile']],
  ])('%s', (_what, p, absent) => {
    const sc = security(p);
    for (const k of absent) expect(sc).not.toHaveProperty(k);
  });

  it.each([
    [false, undefined, undefined],
    [true, undefined, { type: 'RuntimeDefault' }],
    [true, { type: 'Unconfined' }, { type: 'Unconfined' }],
  ])('--seccomp-default %s, container profile %j → %j', (def, profile, want) => {
    const p = pod({}, profile ? { securityContext: { seccompProfile: profile } } : {});
    expect(security(p, ROOT, def).seccompProfile).toEqual(want);
  });
});

describe('runAsNonRoot', () => {
  const ref = 'pod: "web_prod(u1)", container: c';
  it.each<[string, Pod, ImageUser | undefined, string | undefined]>([
    ['image runs as root', pod({ securityContext: { runAsNonRoot: true } }), ROOT, `container has runAsNonRoot and image will run as root (${ref})`],
    ['image uid 0', pod({}, { securityContext: { runAsNonRoot: true } }), { uid: 0, username: '' }, `container has runAsNonRoot and image will run as root (${ref})`],
    ['named image user', pod({}, { securityContext: { runAsNonRoot: true } }), { username: 'nobody' }, `container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (${ref})`],
    ['runAsUser 0', pod({}, { securityContext: { runAsNonRoot: true, runAsUser: 0 } }), { uid: 1000, username: '' }, `container's runAsUser breaks non-root policy (${ref})`],
    ['numeric non-root image user', pod({}, { securityContext: { runAsNonRoot: true } }), { uid: 1000, username: '' }, undefined],
    ['runAsUser 1000 over a root image', pod({ securityContext: { runAsNonRoot: true, runAsUser: 1000 } }), ROOT, undefined],
    ['container says runAsNonRoot false over the pod', pod({ securityContext: { runAsNonRoot: true } }, { securityContext: { runAsNonRoot: false } }), ROOT, undefined],
    ['image user unknown: not checked here', pod({ securityContext: { runAsNonRoot: true } }), undefined, undefined],
  ])('%s', (_what, p, image, message) => {
    if (message === undefined) expect(() => security(p, image)).not.toThrow();
    else {
      expect(() => security(p, image)).toThrow(SecurityConfigError);
      expect(() => security(p, image)).toThrow(message);
    }
  });

  it('a refusal carries the CreateContainerConfigError reason through containerConfig', () => {
    const p = pod({ securityContext: { runAsNonRoot: true } });
    const facts = { nodeName: 'n', hostIP: '127.0.0.1', podIP: '', podIPs: [], image: ROOT };
    const settings = { cpuCFSQuota: true, cpuCFSQuotaPeriodMs: 100, memoryCapacity: 1024 ** 3, seccompDefault: false, rootDirectory: '/var/lib/agent' };
    expect(() => containerConfig(p, p.spec.containers[0]!, 'container', 0, facts, settings)).toThrow(expect.objectContaining({ reason: 'CreateContainerConfigError' }));
  });

  it.each([
    [pod({ securityContext: { runAsNonRoot: true } }), true],
    [pod({ securityContext: { runAsNonRoot: true, runAsUser: 5 } }), false],
    [pod({}), false],
  ])('needsImageUser %#', (p, want) => expect(needsImageUser(p, p.spec.containers[0]!)).toBe(want));
});

describe('sandbox security context and sysctls', () => {
  const settings = { dns: { clusterDNS: [], clusterDomain: '', host: () => undefined, nodeIPs: ['192.0.2.10'] }, podLogsDir: '/var/log/pods', cgroupParent: '' };
  it('pod user, group, groups (fsGroup first), sysctls', () => {
    const p = pod({ securityContext: { runAsUser: 1, runAsGroup: 2, fsGroup: 3, supplementalGroups: [4], sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }] } });
    const cfg = sandboxConfig(p, 0, settings);
    expect(cfg.linux.sysctls).toEqual({ 'kernel.shm_rmid_forced': '1' });
    expect(cfg.linux.securityContext).toMatchObject({ runAsUser: 1, runAsGroup: 2, supplementalGroups: [3, 4], privileged: false });
  });
  it.each([
    ['none', {}, false],
    ['an app container', { containers: [{ name: 'c', image: 'i', securityContext: { privileged: true } }] }, true],
    ['an init container', { initContainers: [{ name: 'i', image: 'i', securityContext: { privileged: true } }] }, true],
  ])('privileged when any container is: %s', (_w, spec, want) => {
    expect(sandboxConfig(pod(spec), 0, settings).linux.securityContext.privileged).toBe(want);
  });
  it('--seccomp-default applies to the sandbox too; a pod profile wins', () => {
    expect(sandboxConfig(pod({}), 0, { ...settings, seccompDefault: true }).linux.securityContext.seccompProfile).toEqual({ type: 'RuntimeDefault' });
    expect(sandboxConfig(pod({ securityContext: { seccompProfile: { type: 'Unconfined' } } }), 0, { ...settings, seccompDefault: true }).linux.securityContext.seccompProfile).toEqual({ type: 'Unconfined' });
    expect(sandboxConfig(pod({}), 0, settings).linux.securityContext).not.toHaveProperty('seccompProfile');
  });
  it("the pod's own cgroup as cgroup_parent when there is one", () => {
    expect(sandboxConfig(pod({}), 0, { ...settings, podCgroupParent: (x) => `/platformpods/pod${x.metadata.uid}` }).linux.cgroupParent).toBe('/platformpods/podu1');
    expect(sandboxConfig(pod({}), 0, { ...settings, podCgroupParent: () => '' }).linux.cgroupParent).toBe('');
  });
});
