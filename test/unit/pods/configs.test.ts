import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { containerConfig, containerEnv, expand, linuxResources, oomScoreAdj, qosClass } from '../../../src/pods/container-config.js';
import { parseResolvConf } from '../../../src/pods/resolv-conf.js';
import { podDns, sandboxConfig } from '../../../src/pods/sandbox-config.js';

function pod(spec: Record<string, unknown>, meta: Record<string, unknown> = {}): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'prod', uid: 'u1', ...meta }, spec: { containers: [{ name: 'c', image: 'i:1' }], ...spec } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}
const withResources = (...rs: Array<Record<string, unknown>>) => pod({ containers: rs.map((r, i) => ({ name: `c${i}`, image: 'i:1', resources: r })) });
const facts = { nodeName: 'node-a', hostIP: '127.0.0.1', podIP: '10.0.0.5', podIPs: ['10.0.0.5'] };
const GI = 1024 ** 3;

describe('$(VAR) expansion', () => {
  it.each([
    ['$(A)-$(B)', 'x-y'],
    ['$(MISSING)', '$(MISSING)'],
    ['$$(A)', '$(A)'],
    ['$$', '$'],
    ['a $ b', 'a $ b'],
    ['$(A', '$(A'],
  ])('%s → %s', (input, out) => expect(expand(input, new Map([['A', 'x'], ['B', 'y']]))).toBe(out));
});

describe('QoS class and OOM score', () => {
  it.each([
    [withResources({}), 'BestEffort', 1000],
    [withResources({ limits: { cpu: '1', memory: '1Gi' } }), 'Guaranteed', -997],
    [withResources({ requests: { memory: '1Gi' } }), 'Burstable', 1000 - Math.floor(1000 / 8)],
    [withResources({ limits: { cpu: '1', memory: '1Gi' } }, {}), 'Burstable', 875],
    // Floor: above a Guaranteed container using all memory (1000 - 997).
    [withResources({ requests: { memory: '16Gi' } }), 'Burstable', 3],
    [withResources({ requests: { memory: '1' } }), 'Burstable', 999],
    // Node-critical static pods are the last to be killed, whatever their QoS.
    [pod({ priorityClassName: 'system-node-critical' }, { annotations: { 'platform.io/config.source': 'file' } }), 'BestEffort', -997],
    [pod({ priorityClassName: 'system-node-critical', priority: 2_000_001_000 }), 'BestEffort', -997],
    // From the API with an ordinary priority it is not critical.
    [pod({ priorityClassName: 'system-node-critical' }, { annotations: { 'platform.io/config.source': 'api' } }), 'BestEffort', 1000],
    [pod({ priorityClassName: 'system-cluster-critical' }, { annotations: { 'platform.io/config.source': 'file' } }), 'BestEffort', 1000],
  ])('%#', (p, qos, oom) => {
    expect(qosClass(p)).toBe(qos);
    expect(oomScoreAdj(p, p.spec.containers[0]!, 8 * GI)).toBe(oom);
  });
});

describe('CPU and memory', () => {
  const s = { cpuCFSQuota: true, cpuCFSQuotaPeriodMs: 100, memoryCapacity: 8 * GI };
  it.each([
    [{ requests: { cpu: '250m' }, limits: { cpu: '500m', memory: '64Mi' } }, s, { cpuShares: 256, cpuQuota: 50_000, cpuPeriod: 100_000, memoryLimitInBytes: 64 * 1024 * 1024 }],
    [{}, s, { cpuShares: 2, cpuQuota: 0, cpuPeriod: 0, memoryLimitInBytes: 0 }],
    [{ limits: { cpu: '1m' } }, s, { cpuShares: 2, cpuQuota: 1000, cpuPeriod: 100_000 }],
    [{ limits: { cpu: '2' } }, { ...s, cpuCFSQuota: false }, { cpuShares: 2048, cpuQuota: 0, cpuPeriod: 0 }],
    [{ requests: { cpu: '300' } }, s, { cpuShares: 262_144, cpuQuota: 0 }],
    [{ limits: { cpu: '1' } }, { ...s, cpuCFSQuotaPeriodMs: 50 }, { cpuQuota: 50_000, cpuPeriod: 50_000 }],
  ])('%j', (r, settings, want) => {
    const p = withResources(r);
    expect(linuxResources(p, p.spec.containers[0]!, settings)).toMatchObject(want);
  });
});

describe('environment', () => {
  it('downward API, resource refs and expansion of earlier variables', () => {
    const p = pod({
      containers: [
        {
          name: 'c',
          image: 'i:1',
          resources: { limits: { memory: '64Mi' } },
          env: [
            { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
            { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
            { name: 'TEAM', valueFrom: { fieldRef: { fieldPath: "metadata.labels['team']" } } },
            { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
            { name: 'URL', value: 'http://$(POD).$(NODE):$(PORT)' },
            { name: 'PORT', value: '80' },
          ],
        },
      ],
    }, { labels: { team: 'web' } });
    expect(containerEnv(p, p.spec.containers[0]!, facts)).toEqual([
      { key: 'POD', value: 'web' },
      { key: 'NODE', value: 'node-a' },
      { key: 'IP', value: '10.0.0.5' },
      { key: 'TEAM', value: 'web' },
      { key: 'MEM', value: '64' },
      { key: 'URL', value: 'http://web.node-a:$(PORT)' },
      { key: 'PORT', value: '80' },
    ]);
  });
  it('a configMap reference cannot be resolved without an API server', () => {
    const p = pod({ containers: [{ name: 'c', image: 'i:1', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }] }] });
    expect(() => containerEnv(p, p.spec.containers[0]!, facts)).toThrow('configmap "cfg" not found');
  });
  it('command and args expand the container environment', () => {
    const p = pod({ containers: [{ name: 'c', image: 'i:1', command: ['sh', '-c'], args: ['echo $(GREETING) $$(HOME)'], env: [{ name: 'GREETING', value: 'hi' }] }] });
    const cfg = containerConfig(p, p.spec.containers[0]!, 'container', 3, facts, { cpuCFSQuota: true, cpuCFSQuotaPeriodMs: 100, memoryCapacity: GI, seccompDefault: true, rootDirectory: '' });
    expect(cfg.args).toEqual(['echo hi $(HOME)']);
    expect(cfg.logPath).toBe('c/3.log');
    expect(cfg.metadata).toEqual({ name: 'c', attempt: 3 });
    expect(cfg.annotations['io.platform.container.restartCount']).toBe('3');
    expect(cfg.linux.securityContext.seccompProfile).toEqual({ type: 'RuntimeDefault' });
  });
});

describe('sandbox DNS', () => {
  const host = parseResolvConf('# comment\nnameserver 192.0.2.53\nsearch corp.example lab.example\noptions edns0 ndots:2\n');
  const node = { clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', host: () => host, nodeIPs: ['192.0.2.10'] };
  it('parses resolv.conf', () => expect(host).toEqual({ servers: ['192.0.2.53'], searches: ['corp.example', 'lab.example'], options: ['edns0', 'ndots:2'] }));
  it.each([
    ['ClusterFirst', false, { servers: ['10.96.0.10'], searches: ['prod.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example'], options: ['ndots:5'] }],
    ['ClusterFirst', true, host],
    ['ClusterFirstWithHostNet', true, { servers: ['10.96.0.10'], searches: ['prod.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example'], options: ['ndots:5'] }],
    ['Default', false, host],
  ])('%s (host network %s)', (policy, hostNetwork, want) => {
    expect(podDns(pod({ dnsPolicy: policy, hostNetwork }), node)).toEqual(want);
  });
  it('ClusterFirst without --cluster-dns falls back to the host resolver', () => {
    expect(podDns(pod({}), { ...node, clusterDNS: [] })).toEqual(host);
  });
  it.each([
    [['192.0.2.10'], ['127.0.0.1']],
    [['2001:db8::10'], ['::1']],
    [['192.0.2.10', '2001:db8::10'], ['127.0.0.1', '::1']],
    [[], ['127.0.0.1']],
  ])('--resolv-conf="" with node IPs %j: Default gets a loopback resolver %j and search "."', (nodeIPs, servers) => {
    const none = { ...node, host: () => undefined, nodeIPs };
    expect(podDns(pod({ dnsPolicy: 'Default' }), none)).toEqual({ servers, searches: ['.'], options: [] });
    // ClusterFirst without cluster DNS falls back to it too; with cluster DNS the cluster's resolver applies.
    expect(podDns(pod({}), { ...none, clusterDNS: [] })).toEqual({ servers, searches: ['.'], options: [] });
    expect(podDns(pod({}), none).servers).toEqual(['10.96.0.10']);
  });
  it('None takes dnsConfig alone; dnsConfig options override', () => {
    expect(podDns(pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], options: [{ name: 'ndots', value: '1' }] } }), node)).toEqual({ servers: ['1.1.1.1'], searches: [], options: ['ndots:1'] });
    expect(podDns(pod({ dnsPolicy: 'Default', dnsConfig: { options: [{ name: 'ndots', value: '3' }] } }), node)?.options).toEqual(['edns0', 'ndots:3']);
  });
});

describe('sandbox config', () => {
  const settings = { dns: { clusterDNS: [], clusterDomain: '', host: () => undefined, nodeIPs: ['192.0.2.10'] }, podLogsDir: '/var/log/pods', cgroupParent: '' };
  it('host network: no hostname, node namespaces, host ports mapped', () => {
    const p = pod({ hostNetwork: true, containers: [{ name: 'c', image: 'i:1', ports: [{ containerPort: 8080, hostPort: 8080 }, { containerPort: 9090 }] }] });
    const cfg = sandboxConfig(p, 2, settings);
    expect(cfg.hostname).toBe('');
    expect(cfg.metadata).toEqual({ name: 'web', uid: 'u1', namespace: 'prod', attempt: 2 });
    expect(cfg.logDirectory).toBe('/var/log/pods/prod_web_u1');
    expect(cfg.linux.securityContext.namespaceOptions).toEqual({ network: 'NODE', pid: 'CONTAINER', ipc: 'POD' });
    expect(cfg.portMappings).toEqual([{ protocol: 'TCP', containerPort: 8080, hostPort: 8080, hostIp: '' }]);
    expect(cfg.labels).toMatchObject({ 'io.platform.pod.uid': 'u1', 'io.platform.pod.name': 'web', 'io.platform.pod.namespace': 'prod' });
    expect(cfg.annotations['io.platform.pod.sandboxHash']).toMatch(/^[0-9a-f]{16}$/);
    expect(cfg.annotations['io.platform.pod.hostNetwork']).toBe('true');
  });
  it("records the network mode in an annotation, over a pod annotation of that name (the relist trusts it)", () => {
    const forged = { annotations: { 'io.platform.pod.hostNetwork': 'true' } };
    expect(sandboxConfig(pod({}, forged), 0, settings).annotations['io.platform.pod.hostNetwork']).toBe('false');
    expect(sandboxConfig(pod({ hostNetwork: true }, { annotations: { 'io.platform.pod.hostNetwork': 'false' } }), 0, settings).annotations['io.platform.pod.hostNetwork']).toBe('true');
  });
  it('pod network: the pod name, or spec.hostname, as hostname', () => {
    expect(sandboxConfig(pod({}), 0, settings).hostname).toBe('web');
    expect(sandboxConfig(pod({ hostname: 'db' }), 0, settings).hostname).toBe('db');
  });
});
