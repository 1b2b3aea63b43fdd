// Domain objects with every field the agent sends set to a non-default value,
// so a lost or misnumbered field shows up in a round trip.
import type { ContainerConfig, PodSandboxConfig } from '../../../src/cri/types.js';

export function fullSandboxConfig(over: Partial<PodSandboxConfig['metadata']> = {}): PodSandboxConfig {
  return {
    metadata: { name: 'web-node1', uid: '0a1b2c3d-uid', namespace: 'default', attempt: 2, ...over },
    hostname: 'web-node1',
    logDirectory: '/var/log/pods/default_web-node1_0a1b2c3d-uid',
    dnsConfig: { servers: ['10.0.0.10', '10.0.0.11'], searches: ['default.svc.cluster.local', 'svc.cluster.local'], options: ['ndots:5'] },
    portMappings: [
      { protocol: 'TCP', containerPort: 8080, hostPort: 30080, hostIp: '127.0.0.1' },
      { protocol: 'UDP', containerPort: 53, hostPort: 0, hostIp: '' },
      { protocol: 'SCTP', containerPort: 9999, hostPort: 9999, hostIp: '::1' },
    ],
    labels: { 'io.platform.pod.name': 'web-node1', 'io.platform.pod.uid': '0a1b2c3d-uid', app: 'web' },
    annotations: { 'platform.io/config.source': 'file', 'platform.io/config.hash': 'abc123' },
    linux: {
      cgroupParent: '/kubepods/besteffort/pod0a1b2c3d-uid',
      sysctls: { 'net.ipv4.ip_forward': '1', 'kernel.shm_rmid_forced': '0' },
      securityContext: {
        namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' },
        privileged: true,
        seccompProfile: { type: 'Localhost', localhostRef: '/var/lib/agent/seccomp/profile.json' },
        runAsUser: 0,
        runAsGroup: 3000,
        supplementalGroups: [4000, 5000],
      },
    },
  };
}

export function hostNetworkSandboxConfig(): PodSandboxConfig {
  const c = fullSandboxConfig({ name: 'host-node1', uid: 'host-uid' });
  c.hostname = '';
  delete c.dnsConfig;
  c.portMappings = [];
  c.linux.securityContext = { namespaceOptions: { network: 'NODE', pid: 'NODE', ipc: 'NODE' }, privileged: false };
  return c;
}

export function fullContainerConfig(image = 'docker.io/library/busybox:latest', name = 'app'): ContainerConfig {
  return {
    metadata: { name, attempt: 3 },
    image,
    command: ['/bin/sh', '-c'],
    args: ['echo hello; sleep 3600'],
    workingDir: '/work',
    envs: [
      { key: 'A', value: '1' },
      { key: 'EMPTY', value: '' },
      { key: 'UNICODE', value: 'héllo ✓' },
    ],
    mounts: [
      { containerPath: '/data', hostPath: '/var/lib/agent/pods/x/volumes/data', readonly: false, propagation: 'PRIVATE' },
      { containerPath: '/etc/hosts', hostPath: '/var/lib/agent/pods/x/etc-hosts', readonly: true, propagation: 'HOST_TO_CONTAINER' },
      { containerPath: '/shared', hostPath: '/mnt/shared', readonly: false, propagation: 'BIDIRECTIONAL' },
    ],
    labels: { 'io.platform.container.name': name, 'io.platform.pod.uid': '0a1b2c3d-uid' },
    annotations: { 'io.platform.container.hash': 'deadbeef', 'io.platform.container.restartCount': '3' },
    logPath: `${name}/3.log`,
    stdin: true,
    stdinOnce: true,
    tty: true,
    linux: {
      resources: {
        cpuPeriod: 100_000,
        cpuQuota: 50_000,
        cpuShares: 512,
        memoryLimitInBytes: 3 * 1024 ** 3 + 7, // above 2^31: int64 on the wire
        oomScoreAdj: -997,
        cpusetCpus: '0-1',
      },
      securityContext: {
        privileged: false,
        runAsUser: 0, // zero must stay present (Int64Value), not read as "unset"
        runAsGroup: 2000,
        readonlyRootfs: true,
        namespaceOptions: { network: 'NODE', pid: 'TARGET', ipc: 'CONTAINER' },
        seccompProfile: { type: 'RuntimeDefault' },
        capabilities: { addCapabilities: ['NET_ADMIN', 'SYS_TIME'], dropCapabilities: ['ALL'] },
        runAsUsername: 'nobody',
        supplementalGroups: [0, 2000, 2 ** 32 + 1],
        noNewPrivs: true,
        maskedPaths: ['/proc/kcore', '/sys/firmware'],
        readonlyPaths: ['/proc/sys', '/proc/bus'],
      },
    },
  };
}

/** The same, with every optional field absent. */
export function minimalContainerConfig(image = 'busybox'): ContainerConfig {
  const c = fullContainerConfig(image);
  delete c.linux.resources.cpusetCpus;
  const sc = c.linux.securityContext;
  delete sc.runAsUser;
  delete sc.runAsGroup;
  delete sc.seccompProfile;
  delete sc.capabilities;
  delete sc.runAsUsername;
  delete sc.supplementalGroups;
  delete sc.noNewPrivs;
  delete sc.maskedPaths;
  delete sc.readonlyPaths;
  c.mounts = [];
  c.envs = [];
  return c;
}

/** A recording logger for the CRI client. */
export function recordingLog(): {
  info: (msg: string, fields?: Record<string, unknown>) => void;
  warn: (msg: string, fields?: Record<string, unknown>) => void;
  error: (msg: string, fields?: Record<string, unknown>) => void;
  records: Array<{ level: string; msg: string; fields: Record<string, unknown> | undefined }>;
} {
  const records: Array<{ level: string; msg: string; fields: Record<string, unknown> | undefined }> = [];
  return {
    records,
    info: (msg, fields) => records.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => records.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => records.push({ level: 'error', msg, fields }),
  };
}
