// The CRI sandbox configuration of a pod (the kubelet's
// generatePodSandboxConfig and its DNS configurer), as pure functions.
import type { Pod } from '../pod-model/pod-types.js';
import type { DnsConfig, PodSandboxConfig, PortMapping } from '../cri/types.js';
import { ANN_SANDBOX_HASH, ANN_SANDBOX_HOST_NETWORK, sandboxHash, sandboxLabels } from '../runtime-view/labels.js';
import { podNamespaces, podSupplementalGroups, runtimeProfile } from './container-security.js';

export interface NodeDnsSettings {
  /** --cluster-dns. */
  clusterDNS: readonly string[];
  /** --cluster-domain. */
  clusterDomain: string;
  /** The --resolv-conf file's settings as they are now (resolv-conf.ts); undefined when --resolv-conf is "" (or unreadable). */
  host: () => DnsConfig | undefined;
  /** The node's IPs: without a resolv.conf, host DNS points at the node's own loopback of each family. */
  nodeIPs: readonly string[];
}

const MAX_SEARCHES = 32;
const uniq = (xs: readonly string[]): string[] => [...new Set(xs)];

/** DNS for the pod's containers per its dnsPolicy and dnsConfig (the kubelet's GetPodDNS). */
export function podDns(pod: Pod, node: NodeDnsSettings): DnsConfig {
  let policy = pod.spec.dnsPolicy;
  // ClusterFirst on the host network means the host's resolver; without cluster DNS it means the same.
  if (policy === 'ClusterFirst' && pod.spec.hostNetwork) policy = 'Default';
  if ((policy === 'ClusterFirst' || policy === 'ClusterFirstWithHostNet') && node.clusterDNS.length === 0) policy = 'Default';
  let dns: DnsConfig;
  switch (policy) {
    case 'None':
      dns = { servers: [], searches: [], options: [] };
      break;
    case 'Default': {
      const host = node.host();
      if (host === undefined) {
        // --resolv-conf="": the kubelet sends a resolver that answers nothing rather
        // than let the runtime copy the node's /etc/resolv.conf.
        const servers = uniq(node.nodeIPs.map((ip) => (ip.includes(':') ? '::1' : '127.0.0.1')));
        dns = { servers: servers.length > 0 ? servers : ['127.0.0.1'], searches: ['.'], options: [] };
      } else dns = { servers: [...host.servers], searches: [...host.searches], options: [...host.options] };
      break;
    }
    default: {
      const ns = pod.metadata.namespace;
      const d = node.clusterDomain;
      const cluster = d === '' ? [] : [`${ns}.svc.${d}`, `svc.${d}`, d];
      dns = { servers: [...node.clusterDNS], searches: [...cluster, ...(node.host()?.searches ?? [])], options: ['ndots:5'] };
    }
  }
  const extra = pod.spec.dnsConfig;
  if (extra) {
    dns.servers = uniq([...dns.servers, ...(extra.nameservers ?? [])]);
    dns.searches = uniq([...dns.searches, ...(extra.searches ?? [])]);
    // Options from the pod override same-named options.
    const opts = new Map(dns.options.map((o) => [o.split(':')[0]!, o]));
    for (const o of extra.options ?? []) opts.set(o.name, o.value === undefined ? o.name : `${o.name}:${o.value}`);
    dns.options = [...opts.values()];
  }
  dns.searches = dns.searches.slice(0, MAX_SEARCHES);
  return dns;
}

export function portMappings(pod: Pod): PortMapping[] {
  const out: PortMapping[] = [];
  for (const c of pod.spec.containers) {
    for (const p of c.ports ?? []) {
      // Only ports with a host port are mapped; on the host network they are the host's own ports anyway.
      if (!p.hostPort) continue;
      out.push({ protocol: p.protocol, containerPort: p.containerPort, hostPort: p.hostPort, hostIp: p.hostIP ?? '' });
    }
  }
  return out;
}

export interface SandboxSettings {
  dns: NodeDnsSettings;
  /** Where the runtime writes container logs: <podLogsDir>/<namespace>_<name>_<uid>. */
  podLogsDir: string;
  /** The runtime's default parent (''), for pods without a cgroup of their own. */
  cgroupParent: string;
  /** The pod's own cgroup as cgroup_parent (pod-cgroup.ts), '' for none; absent: cgroupParent for every pod. */
  podCgroupParent?: (pod: Pod) => string;
  /** --seccomp-default: the sandbox gets RuntimeDefault too when the pod names no profile (as the kubelet's). */
  seccompDefault?: boolean;
}

export function podLogDirectory(pod: Pod, podLogsDir: string): string {
  return `${podLogsDir}/${pod.metadata.namespace}_${pod.metadata.name}_${pod.metadata.uid}`;
}

export function sandboxConfig(pod: Pod, attempt: number, s: SandboxSettings): PodSandboxConfig {
  const hostNetwork = pod.spec.hostNetwork === true;
  const dns = podDns(pod, s.dns);
  const psc = pod.spec.securityContext;
  const sysctls = Object.fromEntries((psc?.sysctls ?? []).map((x) => [x.name, x.value]));
  const seccomp = runtimeProfile(psc?.seccompProfile ?? (s.seccompDefault ? { type: 'RuntimeDefault' } : undefined));
  const groups = podSupplementalGroups(pod);
  const cgroupParent = s.podCgroupParent?.(pod) || s.cgroupParent;
  return {
    metadata: { name: pod.metadata.name, uid: pod.metadata.uid, namespace: pod.metadata.namespace, attempt },
    // runc cannot set a hostname in the host's UTS namespace; the pod then has the node's.
    hostname: hostNetwork ? '' : (pod.spec.hostname ?? pod.metadata.name).slice(0, 63).replace(/[.-]+$/, ''),
    logDirectory: podLogDirectory(pod, s.podLogsDir),
    dnsConfig: dns,
    portMappings: portMappings(pod),
    labels: sandboxLabels(pod),
    annotations: { ...pod.metadata.annotations, [ANN_SANDBOX_HASH]: sandboxHash(pod), [ANN_SANDBOX_HOST_NETWORK]: String(hostNetwork) },
    linux: {
      cgroupParent,
      sysctls,
      securityContext: {
        namespaceOptions: podNamespaces(pod),
        // Any privileged container of the pod, init containers included (the kubelet's HasPrivilegedContainer).
        privileged: [...(pod.spec.initContainers ?? []), ...pod.spec.containers].some((c) => c.securityContext?.privileged === true),
        ...(seccomp ? { seccompProfile: seccomp } : {}),
        ...(psc?.runAsUser !== undefined ? { runAsUser: psc.runAsUser } : {}),
        ...(psc?.runAsGroup !== undefined ? { runAsGroup: psc.runAsGroup } : {}),
        ...(groups.length > 0 ? { supplementalGroups: groups } : {}),
      },
    },
  };
}
