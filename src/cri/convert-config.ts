// Domain <-> wire conversions of what the agent sends: sandbox and container
// configs, filters, registry credentials. Both directions are here: the client
// encodes, the test server decodes, and the unit tests check the round trip.
// Pure functions; absent optional domain fields become proto3 defaults or null
// sub-messages, and come back absent.

import { AgentError } from '../errors.js';
import type {
  AuthConfig,
  ContainerConfig,
  ContainerFilter,
  ContainerState,
  Mount,
  NamespaceMode,
  NamespaceOptions,
  PodSandboxConfig,
  Protocol,
  SandboxFilter,
  SandboxState,
  SecurityProfile,
} from './types.js';
import type {
  WAuthConfig,
  WContainerConfig,
  WContainerFilter,
  WNamespaceOption,
  WPodSandboxConfig,
  WPodSandboxFilter,
  WSecurityProfile,
  WireEnum,
  WireMap,
} from './wire.js';

// ---- scalars and enums ---------------------------------------------------

/** A domain integer as int64. Fractions are truncated; NaN and infinities are a caller bug. */
export function toInt64(n: number, what: string): bigint {
  if (!Number.isFinite(n)) throw new AgentError('EINTERNAL', `CRI: ${what} is not a finite number: ${n}`);
  return BigInt(Math.trunc(n));
}

export function fromInt64(b: bigint): number {
  return Number(b);
}

/** Looks a wire enum value up in `table` (wire name -> domain value); unknown names and numbers give `fallback`. */
function decodeEnum<T extends string>(v: WireEnum, table: Readonly<Record<string, T>>, fallback: T): T {
  return typeof v === 'string' && Object.hasOwn(table, v) ? (table[v] as T) : fallback;
}

const NAMESPACE_MODES: Readonly<Record<string, NamespaceMode>> = { POD: 'POD', CONTAINER: 'CONTAINER', NODE: 'NODE', TARGET: 'TARGET' };
const PROTOCOLS: Readonly<Record<string, Protocol>> = { TCP: 'TCP', UDP: 'UDP', SCTP: 'SCTP' };
const PROFILE_TYPES: Readonly<Record<string, SecurityProfile['type']>> = { RuntimeDefault: 'RuntimeDefault', Unconfined: 'Unconfined', Localhost: 'Localhost' };
type Propagation = NonNullable<Mount['propagation']>;
const PROPAGATIONS: Readonly<Record<string, Propagation>> = {
  PROPAGATION_PRIVATE: 'PRIVATE',
  PROPAGATION_HOST_TO_CONTAINER: 'HOST_TO_CONTAINER',
  PROPAGATION_BIDIRECTIONAL: 'BIDIRECTIONAL',
};
const SANDBOX_STATES: Readonly<Record<string, SandboxState>> = { SANDBOX_READY: 'READY', SANDBOX_NOTREADY: 'NOTREADY' };
const CONTAINER_STATES: Readonly<Record<string, ContainerState>> = {
  CONTAINER_CREATED: 'CREATED',
  CONTAINER_RUNNING: 'RUNNING',
  CONTAINER_EXITED: 'EXITED',
  CONTAINER_UNKNOWN: 'UNKNOWN',
};

export const encodeSandboxState = (s: SandboxState): string => `SANDBOX_${s}`;
/** A state newer than runtime.v1 knows reads as NOTREADY: the agent must not trust such a sandbox. */
export const decodeSandboxState = (v: WireEnum): SandboxState => decodeEnum(v, SANDBOX_STATES, 'NOTREADY');
export const encodeContainerState = (s: ContainerState): string => `CONTAINER_${s}`;
export const decodeContainerState = (v: WireEnum): ContainerState => decodeEnum(v, CONTAINER_STATES, 'UNKNOWN');

export function copyMap(m: Readonly<Record<string, string>> | null | undefined): WireMap {
  const out: WireMap = {};
  if (m) for (const [k, v] of Object.entries(m)) out[k] = v;
  return out;
}

function encodeNamespaces(n: NamespaceOptions): WNamespaceOption {
  return { network: n.network, pid: n.pid, ipc: n.ipc, targetId: '' };
}

export function decodeNamespaces(n: WNamespaceOption | null): NamespaceOptions {
  return {
    network: decodeEnum(n?.network ?? 'POD', NAMESPACE_MODES, 'POD'),
    pid: decodeEnum(n?.pid ?? 'POD', NAMESPACE_MODES, 'POD'),
    ipc: decodeEnum(n?.ipc ?? 'POD', NAMESPACE_MODES, 'POD'),
  };
}

function encodeProfile(p: SecurityProfile | undefined): WSecurityProfile | null {
  return p === undefined ? null : { profileType: p.type, localhostRef: p.localhostRef ?? '' };
}

function decodeProfile(p: WSecurityProfile | null): SecurityProfile | undefined {
  if (p === null) return undefined;
  const out: SecurityProfile = { type: decodeEnum(p.profileType, PROFILE_TYPES, 'RuntimeDefault') };
  if (p.localhostRef !== '') out.localhostRef = p.localhostRef;
  return out;
}

/** An optional id as an Int64Value: absent is null, so a zero (root) stays present. */
function encodeOptionalInt64(n: number | undefined, what: string): { value: bigint } | null {
  return n === undefined ? null : { value: toInt64(n, what) };
}

function encodeGroups(gs: readonly number[] | undefined): bigint[] {
  return (gs ?? []).map((g) => toInt64(g, 'supplementalGroups'));
}

// ---- sandbox config --------------------------------------------------------

export function encodeSandboxConfig(c: PodSandboxConfig): WPodSandboxConfig {
  const sc = c.linux.securityContext;
  return {
    metadata: { name: c.metadata.name, uid: c.metadata.uid, namespace: c.metadata.namespace, attempt: c.metadata.attempt },
    hostname: c.hostname,
    logDirectory: c.logDirectory,
    dnsConfig: c.dnsConfig === undefined ? null : { servers: [...c.dnsConfig.servers], searches: [...c.dnsConfig.searches], options: [...c.dnsConfig.options] },
    portMappings: c.portMappings.map((p) => ({ protocol: p.protocol, containerPort: p.containerPort, hostPort: p.hostPort, hostIp: p.hostIp })),
    labels: copyMap(c.labels),
    annotations: copyMap(c.annotations),
    linux: {
      cgroupParent: c.linux.cgroupParent,
      securityContext: {
        namespaceOptions: encodeNamespaces(sc.namespaceOptions),
        runAsUser: encodeOptionalInt64(sc.runAsUser, 'runAsUser'),
        readonlyRootfs: false,
        supplementalGroups: encodeGroups(sc.supplementalGroups),
        privileged: sc.privileged,
        runAsGroup: encodeOptionalInt64(sc.runAsGroup, 'runAsGroup'),
        seccomp: encodeProfile(sc.seccompProfile),
      },
      sysctls: copyMap(c.linux.sysctls),
    },
  };
}

export function decodeSandboxConfig(w: WPodSandboxConfig): PodSandboxConfig {
  const sc = w.linux?.securityContext ?? null;
  const out: PodSandboxConfig = {
    metadata: { name: w.metadata?.name ?? '', uid: w.metadata?.uid ?? '', namespace: w.metadata?.namespace ?? '', attempt: w.metadata?.attempt ?? 0 },
    hostname: w.hostname,
    logDirectory: w.logDirectory,
    portMappings: w.portMappings.map((p) => ({
      protocol: decodeEnum(p.protocol, PROTOCOLS, 'TCP'),
      containerPort: p.containerPort,
      hostPort: p.hostPort,
      hostIp: p.hostIp,
    })),
    labels: copyMap(w.labels),
    annotations: copyMap(w.annotations),
    linux: {
      cgroupParent: w.linux?.cgroupParent ?? '',
      sysctls: copyMap(w.linux?.sysctls),
      securityContext: { namespaceOptions: decodeNamespaces(sc?.namespaceOptions ?? null), privileged: sc?.privileged ?? false },
    },
  };
  if (w.dnsConfig !== null) out.dnsConfig = { servers: [...w.dnsConfig.servers], searches: [...w.dnsConfig.searches], options: [...w.dnsConfig.options] };
  const seccomp = decodeProfile(sc?.seccomp ?? null);
  const security = out.linux.securityContext;
  if (seccomp !== undefined) security.seccompProfile = seccomp;
  if (sc?.runAsUser) security.runAsUser = fromInt64(sc.runAsUser.value);
  if (sc?.runAsGroup) security.runAsGroup = fromInt64(sc.runAsGroup.value);
  if (sc && sc.supplementalGroups.length > 0) security.supplementalGroups = sc.supplementalGroups.map(fromInt64);
  return out;
}

// ---- container config ------------------------------------------------------

export function encodeContainerConfig(c: ContainerConfig): WContainerConfig {
  const r = c.linux.resources;
  const sc = c.linux.securityContext;
  return {
    metadata: { name: c.metadata.name, attempt: c.metadata.attempt },
    image: { image: c.image, annotations: {} },
    command: [...c.command],
    args: [...c.args],
    workingDir: c.workingDir,
    envs: c.envs.map((e) => ({ key: e.key, value: e.value })),
    mounts: c.mounts.map((m) => ({
      containerPath: m.containerPath,
      hostPath: m.hostPath,
      readonly: m.readonly,
      propagation: `PROPAGATION_${m.propagation ?? 'PRIVATE'}`,
    })),
    labels: copyMap(c.labels),
    annotations: copyMap(c.annotations),
    logPath: c.logPath,
    stdin: c.stdin,
    stdinOnce: c.stdinOnce,
    tty: c.tty,
    linux: {
      resources: {
        cpuPeriod: toInt64(r.cpuPeriod, 'cpuPeriod'),
        cpuQuota: toInt64(r.cpuQuota, 'cpuQuota'),
        cpuShares: toInt64(r.cpuShares, 'cpuShares'),
        memoryLimitInBytes: toInt64(r.memoryLimitInBytes, 'memoryLimitInBytes'),
        oomScoreAdj: toInt64(r.oomScoreAdj, 'oomScoreAdj'),
        cpusetCpus: r.cpusetCpus ?? '',
      },
      securityContext: {
        capabilities: sc.capabilities === undefined ? null : { addCapabilities: [...sc.capabilities.addCapabilities], dropCapabilities: [...sc.capabilities.dropCapabilities] },
        privileged: sc.privileged,
        namespaceOptions: encodeNamespaces(sc.namespaceOptions),
        runAsUser: encodeOptionalInt64(sc.runAsUser, 'runAsUser'),
        runAsUsername: sc.runAsUsername ?? '',
        readonlyRootfs: sc.readonlyRootfs,
        supplementalGroups: encodeGroups(sc.supplementalGroups),
        noNewPrivs: sc.noNewPrivs === true,
        runAsGroup: encodeOptionalInt64(sc.runAsGroup, 'runAsGroup'),
        maskedPaths: [...(sc.maskedPaths ?? [])],
        readonlyPaths: [...(sc.readonlyPaths ?? [])],
        seccomp: encodeProfile(sc.seccompProfile),
      },
    },
  };
}

export function decodeContainerConfig(w: WContainerConfig): ContainerConfig {
  const r = w.linux?.resources ?? null;
  const sc = w.linux?.securityContext ?? null;
  const security: ContainerConfig['linux']['securityContext'] = {
    privileged: sc?.privileged ?? false,
    readonlyRootfs: sc?.readonlyRootfs ?? false,
    namespaceOptions: decodeNamespaces(sc?.namespaceOptions ?? null),
  };
  if (sc?.runAsUser) security.runAsUser = fromInt64(sc.runAsUser.value);
  if (sc?.runAsGroup) security.runAsGroup = fromInt64(sc.runAsGroup.value);
  const seccomp = decodeProfile(sc?.seccomp ?? null);
  if (seccomp !== undefined) security.seccompProfile = seccomp;
  if (sc?.capabilities) security.capabilities = { addCapabilities: [...sc.capabilities.addCapabilities], dropCapabilities: [...sc.capabilities.dropCapabilities] };
  if (sc && sc.runAsUsername !== '') security.runAsUsername = sc.runAsUsername;
  if (sc && sc.supplementalGroups.length > 0) security.supplementalGroups = sc.supplementalGroups.map(fromInt64);
  if (sc?.noNewPrivs) security.noNewPrivs = true;
  if (sc && sc.maskedPaths.length > 0) security.maskedPaths = [...sc.maskedPaths];
  if (sc && sc.readonlyPaths.length > 0) security.readonlyPaths = [...sc.readonlyPaths];
  const resources: ContainerConfig['linux']['resources'] = {
    cpuPeriod: fromInt64(r?.cpuPeriod ?? 0n),
    cpuQuota: fromInt64(r?.cpuQuota ?? 0n),
    cpuShares: fromInt64(r?.cpuShares ?? 0n),
    memoryLimitInBytes: fromInt64(r?.memoryLimitInBytes ?? 0n),
    oomScoreAdj: fromInt64(r?.oomScoreAdj ?? 0n),
  };
  if (r !== null && r.cpusetCpus !== '') resources.cpusetCpus = r.cpusetCpus;
  return {
    metadata: { name: w.metadata?.name ?? '', attempt: w.metadata?.attempt ?? 0 },
    image: w.image?.image ?? '',
    command: [...w.command],
    args: [...w.args],
    workingDir: w.workingDir,
    envs: w.envs.map((e) => ({ key: e.key, value: e.value })),
    mounts: w.mounts.map((m) => ({
      containerPath: m.containerPath,
      hostPath: m.hostPath,
      readonly: m.readonly,
      propagation: decodeEnum(m.propagation, PROPAGATIONS, 'PRIVATE'),
    })),
    labels: copyMap(w.labels),
    annotations: copyMap(w.annotations),
    logPath: w.logPath,
    stdin: w.stdin,
    stdinOnce: w.stdinOnce,
    tty: w.tty,
    linux: { resources, securityContext: security },
  };
}

// ---- filters ----------------------------------------------------------------

export function encodeSandboxFilter(f: SandboxFilter | undefined): WPodSandboxFilter | null {
  if (f === undefined) return null;
  return { id: f.id ?? '', state: f.state === undefined ? null : { state: encodeSandboxState(f.state) }, labelSelector: copyMap(f.labelSelector) };
}

export function decodeSandboxFilter(w: WPodSandboxFilter | null): SandboxFilter | undefined {
  if (w === null) return undefined;
  const f: SandboxFilter = {};
  if (w.id !== '') f.id = w.id;
  if (w.state !== null) f.state = decodeSandboxState(w.state.state);
  if (Object.keys(w.labelSelector).length > 0) f.labelSelector = copyMap(w.labelSelector);
  return f;
}

export function encodeContainerFilter(f: ContainerFilter | undefined): WContainerFilter | null {
  if (f === undefined) return null;
  return {
    id: f.id ?? '',
    state: f.state === undefined ? null : { state: encodeContainerState(f.state) },
    podSandboxId: f.podSandboxId ?? '',
    labelSelector: copyMap(f.labelSelector),
  };
}

export function decodeContainerFilter(w: WContainerFilter | null): ContainerFilter | undefined {
  if (w === null) return undefined;
  const f: ContainerFilter = {};
  if (w.id !== '') f.id = w.id;
  if (w.podSandboxId !== '') f.podSandboxId = w.podSandboxId;
  if (w.state !== null) f.state = decodeContainerState(w.state.state);
  if (Object.keys(w.labelSelector).length > 0) f.labelSelector = copyMap(w.labelSelector);
  return f;
}

// ---- registry credentials ---------------------------------------------------

/**
 * The server address as runtimes accept it: empty, or a URL with a scheme.
 * containerd parses it as a URL and only compares its host with the image's
 * registry; a bare `host:port` fails to parse there (and a bare `host` would
 * silently never match), so one without a scheme gets `https://`.
 */
export function normalizeServerAddress(address: string): string {
  if (address === '' || address.includes('://')) return address;
  return `https://${address}`;
}

export function encodeAuth(a: AuthConfig | undefined): WAuthConfig | null {
  if (a === undefined) return null;
  return {
    username: a.username ?? '',
    password: a.password ?? '',
    auth: a.auth ?? '',
    serverAddress: normalizeServerAddress(a.serverAddress ?? ''),
    identityToken: a.identityToken ?? '',
    registryToken: a.registryToken ?? '',
  };
}

export function decodeAuth(w: WAuthConfig | null): AuthConfig | undefined {
  if (w === null) return undefined;
  const a: AuthConfig = {};
  for (const k of ['username', 'password', 'auth', 'serverAddress', 'identityToken', 'registryToken'] as const) {
    if (w[k] !== '') a[k] = w[k];
  }
  return a;
}
