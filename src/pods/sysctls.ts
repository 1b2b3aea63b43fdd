// The node's sysctl allowlist (the kubelet's pkg/kubelet/sysctl): the safe
// sysctls of 1.28 plus --allowed-unsafe-sysctls (names, or prefixes ending in
// `*`), only namespaced sysctls at all; a pod asking for anything else is
// rejected at admission (SysctlForbidden). Pure: built once at start (a bad
// pattern fails the start, as in the kubelet's NewMainKubelet), consulted by
// the sync step for each pod it admits.
import type { Pod } from '../pod-model/pod-types.js';

/** The sysctls the kubelet 1.28 allows without --allowed-unsafe-sysctls (SafeSysctlAllowlist). */
export const SAFE_SYSCTLS: readonly string[] = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.ip_local_reserved_ports',
];

/** The kubelet's admission reason for a pod asking for a sysctl the node does not allow. */
export const SYSCTL_FORBIDDEN = 'SysctlForbidden';

export type SysctlNamespace = 'ipc' | 'net';

/** Which namespace a sysctl (or a prefix of sysctls) belongs to; undefined: not namespaced, never allowed in a pod. */
export function namespaceOf(name: string): SysctlNamespace | undefined {
  if (name === 'kernel.sem' || name.startsWith('kernel.shm') || name.startsWith('kernel.msg') || name.startsWith('fs.mqueue.')) return 'ipc';
  if (name.startsWith('net.')) return 'net';
  return undefined;
}

/**
 * A sysctl name with '.' separators: a name written with '/' as the first
 * separator (`net/ipv4/conf/eth0.100/forwarding`) swaps '/' and '.'
 * (utilsysctl.NormalizeName).
 */
export function normalizeSysctlName(name: string): string {
  const dot = name.indexOf('.');
  const slash = name.indexOf('/');
  if (slash < 0 || (dot >= 0 && dot < slash)) return name;
  return name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}

const SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
/** An allowlist pattern: a sysctl name, optionally ending in `*` (`kernel.msg*`, `net.*`, `*`) (policy validation's IsValidSysctlPattern). */
const PATTERN = new RegExp(`^(${SEGMENT}[./])*(${SEGMENT}\\*?|\\*)$`);
const MAX_LENGTH = 253;

export class SysctlPatternError extends Error {
  constructor(
    readonly pattern: string,
    message: string,
  ) {
    super(message);
    this.name = 'SysctlPatternError';
  }
}

export interface SysctlAllowlist {
  readonly names: ReadonlyMap<string, SysctlNamespace>;
  readonly prefixes: ReadonlyMap<string, SysctlNamespace>;
}

/** The allowlist of the safe sysctls and `unsafe` (--allowed-unsafe-sysctls). Throws SysctlPatternError naming the first bad pattern. */
export function createSysctlAllowlist(unsafe: readonly string[]): SysctlAllowlist {
  const names = new Map<string, SysctlNamespace>();
  const prefixes = new Map<string, SysctlNamespace>();
  for (const raw of [...SAFE_SYSCTLS, ...unsafe]) {
    if (raw.length > MAX_LENGTH || !PATTERN.test(raw)) {
      throw new SysctlPatternError(raw, `--allowed-unsafe-sysctls (allowedUnsafeSysctls): sysctl "${raw}" must have at most ${MAX_LENGTH} characters and be a sysctl name, optionally ending in "*"`);
    }
    const s = normalizeSysctlName(raw);
    const prefixed = s.endsWith('*');
    const body = prefixed ? s.slice(0, -1) : s;
    const ns = namespaceOf(body);
    if (ns === undefined) throw new SysctlPatternError(raw, `--allowed-unsafe-sysctls (allowedUnsafeSysctls): the sysctls "${body}" are not known to be namespaced`);
    (prefixed ? prefixes : names).set(body, ns);
  }
  return { names, prefixes };
}

/** Why one sysctl is refused for a pod (the kubelet's message without "forbidden sysctl: "), or undefined when it is allowed. Pure. */
export function sysctlRefusal(list: SysctlAllowlist, name: string, host: { network: boolean; ipc: boolean }): string | undefined {
  const s = normalizeSysctlName(name);
  let ns = list.names.get(s);
  if (ns === undefined) {
    for (const [p, n] of list.prefixes) {
      if (s.startsWith(p)) {
        ns = n;
        break;
      }
    }
  }
  if (ns === undefined) return `"${s}" not allowlisted`;
  if (ns === 'ipc' && host.ipc) return `"${s}" not allowed with host ipc enabled`;
  if (ns === 'net' && host.network) return `"${s}" not allowed with host net enabled`;
  return undefined;
}

/** The first of a pod's sysctls the node refuses, as the kubelet's admission message; undefined when all are allowed. Pure. */
export function podSysctlRefusal(list: SysctlAllowlist, pod: Pod): string | undefined {
  const host = { network: pod.spec.hostNetwork === true, ipc: pod.spec.hostIPC === true };
  for (const s of pod.spec.securityContext?.sysctls ?? []) {
    const why = sysctlRefusal(list, s.name, host);
    if (why !== undefined) return `forbidden sysctl: ${why}`;
  }
  return undefined;
}
