// The node's sysctl allowlist (the kubelet's pkg/kubelet/sysctl) and the
// admission decision it drives, as tables.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { admitOnNode, admitSysctls } from '../../../src/pods/admission.js';
import { handle, initialState, type SyncEvent } from '../../../src/pods/sync-step.js';
import { createSysctlAllowlist, namespaceOf, normalizeSysctlName, SAFE_SYSCTLS, sysctlRefusal, SysctlPatternError } from '../../../src/pods/sysctls.js';

function pod(sysctls: string[], spec: Record<string, unknown> = {}): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { containers: [{ name: 'c', image: 'i:1' }], securityContext: { sysctls: sysctls.map((name) => ({ name, value: '1' })) }, ...spec } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}

const none = { network: false, ipc: false };

describe('sysctl allowlist', () => {
  it('the safe set of 1.28', () => {
    expect([...SAFE_SYSCTLS].sort()).toEqual(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.ping_group_range', 'net.ipv4.tcp_syncookies']);
  });

  it.each([
    ['kernel.shm_rmid_forced', [], none, undefined],
    ['net.ipv4.tcp_syncookies', [], none, undefined],
    ['kernel.msgmax', [], none, '"kernel.msgmax" not allowlisted'],
    ['kernel.msgmax', ['kernel.msgmax'], none, undefined],
    ['kernel.msgmax', ['kernel.msg*'], none, undefined],
    ['kernel.msgmnb', ['kernel.msgmax'], none, '"kernel.msgmnb" not allowlisted'],
    ['net.core.somaxconn', ['net.*'], none, undefined],
    ['net.core.somaxconn', ['net.ipv4.*'], none, '"net.core.somaxconn" not allowlisted'],
    ['net/ipv4/conf/eth0.100/forwarding', ['net.ipv4.conf.*'], none, undefined],
    // Host namespaces: a namespaced sysctl would change the host's own.
    ['net.ipv4.tcp_syncookies', [], { network: true, ipc: false }, '"net.ipv4.tcp_syncookies" not allowed with host net enabled'],
    ['kernel.shm_rmid_forced', [], { network: false, ipc: true }, '"kernel.shm_rmid_forced" not allowed with host ipc enabled'],
    ['kernel.shm_rmid_forced', [], { network: true, ipc: false }, undefined],
    ['kernel.sem', ['kernel.sem'], { network: true, ipc: false }, undefined],
    ['fs.mqueue.msg_max', ['fs.mqueue.*'], { network: false, ipc: true }, '"fs.mqueue.msg_max" not allowed with host ipc enabled'],
    // Not allowlisted comes first, whatever the namespaces.
    ['net.core.somaxconn', [], { network: true, ipc: false }, '"net.core.somaxconn" not allowlisted'],
    ['vm.swappiness', [], none, '"vm.swappiness" not allowlisted'],
  ])('%s with --allowed-unsafe-sysctls=%j, host %j → %s', (name, unsafe, host, want) => {
    expect(sysctlRefusal(createSysctlAllowlist(unsafe), name, host)).toBe(want);
  });

  it.each([
    ['vm.swappiness', 'the sysctls "vm.swappiness" are not known to be namespaced'],
    ['kernel.*', 'the sysctls "kernel." are not known to be namespaced'],
    ['*', 'the sysctls "" are not known to be namespaced'],
    ['Net.Core', 'must have at most 253 characters'],
    ['net.*.x', 'must have at most 253 characters'],
    ['', 'must have at most 253 characters'],
  ])('pattern %j fails the start: %s', (pattern, message) => {
    expect(() => createSysctlAllowlist([pattern])).toThrow(SysctlPatternError);
    expect(() => createSysctlAllowlist([pattern])).toThrow(message);
  });

  it.each([
    ['kernel.sem', 'ipc'],
    ['kernel.shmmax', 'ipc'],
    ['kernel.msgmax', 'ipc'],
    ['fs.mqueue.queues_max', 'ipc'],
    ['net.ipv4.ip_forward', 'net'],
    ['kernel.semx', undefined],
    ['fs.file-max', undefined],
  ])('%s is in namespace %s', (name, ns) => expect(namespaceOf(name)).toBe(ns));

  it.each([
    ['net.ipv4.ip_forward', 'net.ipv4.ip_forward'],
    ['net/ipv4/ip_forward', 'net.ipv4.ip_forward'],
    ['net/ipv4/conf/eth0.100/forwarding', 'net.ipv4.conf.eth0/100.forwarding'],
    ['net.ipv4.conf.eth0/100.forwarding', 'net.ipv4.conf.eth0/100.forwarding'],
  ])('normalize %s → %s', (name, want) => expect(normalizeSysctlName(name)).toBe(want));
});

describe('admission with sysctls', () => {
  const list = createSysctlAllowlist(['kernel.msg*']);
  it.each([
    [pod([]), true, '', ''],
    [pod(['kernel.shm_rmid_forced', 'kernel.msgmax']), true, '', ''],
    [pod(['kernel.msgmax', 'net.core.somaxconn']), false, 'SysctlForbidden', 'forbidden sysctl: "net.core.somaxconn" not allowlisted'],
    [pod(['net.ipv4.tcp_syncookies'], { hostNetwork: true }), false, 'SysctlForbidden', 'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled'],
    [pod(['kernel.msgmax'], { hostIPC: true }), false, 'SysctlForbidden', 'forbidden sysctl: "kernel.msgmax" not allowed with host ipc enabled'],
  ])('%#', (p, admitted, reason, message) => {
    const r = admitSysctls(p, list);
    expect(r.admitted).toBe(admitted);
    if (!r.admitted) expect(r).toMatchObject({ reason, message });
  });

  it('without an allowlist sysctls are not checked', () => expect(admitSysctls(pod(['vm.swappiness']), undefined).admitted).toBe(true));

  it('a forbidden sysctl is the reason even on a full node; otherwise the pod cap applies', () => {
    expect(admitOnNode(pod(['net.core.somaxconn']), 10, { maxPods: 10, sysctls: list })).toMatchObject({ admitted: false, reason: 'SysctlForbidden' });
    expect(admitOnNode(pod([]), 10, { maxPods: 10, sysctls: list })).toMatchObject({ admitted: false, reason: 'OutOfpods' });
    expect(admitOnNode(pod(['kernel.msgmax']), 9, { maxPods: 10, sysctls: list })).toEqual({ admitted: true });
  });
});

describe('the sync step rejects a pod with a forbidden sysctl', () => {
  const add = (p: Pod): SyncEvent => ({ kind: 'source', updates: [{ op: 'ADD', pod: p, source: 'file' }], allSourcesSeen: true, finished: new Set() });
  it.each([
    [pod(['kernel.msgmax']), ['log Pod added', 'hurry-relist']],
    [pod(['vm.swappiness']), ['log Pod rejected at admission', 'set-status Failed SysctlForbidden']],
  ])('%#', (p, want) => {
    const state = initialState({ maxPods: 110, sysctls: createSysctlAllowlist(['kernel.msg*']), errorBackoffMs: 10_000 });
    handle(state, { kind: 'start' });
    const out = handle(state, add(p)).map((c) => (c.kind === 'log' ? `log ${c.msg}` : c.kind === 'set-status' ? `set-status ${c.status.phase} ${c.status.reason}` : c.kind));
    expect(out.slice(0, 2)).toEqual(want);
  });
});
