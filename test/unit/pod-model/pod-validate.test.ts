// One row per rule of the API server's pod validation that static pods go
// through; each names the field the way the agent's log line will.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import { validatePod } from '../../../src/pod-model/pod-validate.js';

type Obj = Record<string, unknown>;
const pod = (spec: Obj = {}, metadata: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', ...metadata },
  spec: { containers: [{ name: 'c', image: 'i:1' }], ...spec },
});
/** A pod whose only container has the given extra fields. */
const ctr = (fields: Obj, spec: Obj = {}): Obj => pod({ ...spec, containers: [{ name: 'c', image: 'i:1', ...fields }] });
const sidecar = (fields: Obj): Obj => pod({ initContainers: [{ name: 's', image: 'i:1', restartPolicy: 'Always', ...fields }] });
const exec = { exec: { command: ['true'] } };

function problems(raw: unknown): string[] {
  const d = decodePod(raw);
  return (d.ok ? validatePod(d.pod) : d.problems).map((p) => `${p.field}: ${p.message}`);
}

describe('refused, naming the field', () => {
  it.each<[string, Obj, string]>([
    // metadata
    ['annotation key', pod({}, { annotations: { 'bad key!': 'x' } }), 'metadata.annotations[bad key!]: key "bad key!"'],
    ['annotations over 256 KiB', pod({}, { annotations: { a: 'x'.repeat(300_000) } }), 'metadata.annotations: too long: all annotations together may have at most 262144 bytes, got 300001'],
    ['annotations over 256 KiB together', pod({}, { annotations: { a: 'x'.repeat(131_072), b: 'y'.repeat(131_072) } }), 'metadata.annotations: too long'],
    ['label key', pod({}, { labels: { 'a/b/c': 'x' } }), 'metadata.labels[a/b/c]: key "a/b/c"'],
    ['label value', pod({}, { labels: { app: 'has space' } }), 'metadata.labels[app]: value "has space"'],
    ['namespace', pod({}, { namespace: 'Prod' }), 'metadata.namespace: "Prod" must be a lowercase RFC 1123 label'],
    ['__proto__ label key', { ...pod(), metadata: JSON.parse('{"name":"web","labels":{"__proto__":"x"}}') as Obj }, 'metadata.labels.__proto__: "__proto__" is not a valid key'],
    // sysctls
    ['sysctl name with an empty segment', pod({ securityContext: { sysctls: [{ name: 'kernel.bogus..x', value: '1' }] } }), 'spec.securityContext.sysctls[0].name: "kernel.bogus..x" must have at most 253 characters'],
    ['sysctl name upper case', pod({ securityContext: { sysctls: [{ name: 'Net.core.somaxconn', value: '1' }] } }), 'spec.securityContext.sysctls[0].name:'],
    ['sysctl name too long', pod({ securityContext: { sysctls: [{ name: `a.${'b'.repeat(252)}`, value: '1' }] } }), 'spec.securityContext.sysctls[0].name:'],
    ['sysctl name empty', pod({ securityContext: { sysctls: [{ name: '', value: '1' }] } }), 'spec.securityContext.sysctls[0].name: required value'],
    ['sysctl duplicate', pod({ securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1' }, { name: 'net.core.somaxconn', value: '2' }] } }), 'spec.securityContext.sysctls[1].name: duplicate sysctl "net.core.somaxconn"'],
    // pod security context
    ['negative runAsUser', pod({ securityContext: { runAsUser: -1 } }), 'spec.securityContext.runAsUser: must be between 0 and 2147483647'],
    ['fsGroup too large', pod({ securityContext: { fsGroup: 2 ** 31 } }), 'spec.securityContext.fsGroup: must be between 0 and 2147483647'],
    ['supplemental group', pod({ securityContext: { supplementalGroups: [1, -5] } }), 'spec.securityContext.supplementalGroups[1]: must be between 0'],
    ['seccomp Localhost without profile', pod({ securityContext: { seccompProfile: { type: 'Localhost' } } }), 'spec.securityContext.seccompProfile.localhostProfile: must be set when seccomp type is Localhost'],
    ['seccomp profile on RuntimeDefault', pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'p.json' } } }), 'spec.securityContext.seccompProfile.localhostProfile: can only be set when seccomp type is Localhost'],
    ['seccomp profile escaping', ctr({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: '../x.json' } } }), "spec.containers[0].securityContext.seccompProfile.localhostProfile: must not contain '..'"],
    // host aliases, nodeSelector, names
    ['host alias ip', pod({ hostAliases: [{ ip: 'not-an-ip', hostnames: ['a'] }] }), 'spec.hostAliases[0].ip: "not-an-ip" must be a valid IP address'],
    ['host alias ip with zone', pod({ hostAliases: [{ ip: 'fe80::1%eth0', hostnames: ['a'] }] }), 'spec.hostAliases[0].ip:'],
    ['host alias hostname', pod({ hostAliases: [{ ip: '10.0.0.1', hostnames: ['ok', 'Not_OK'] }] }), 'spec.hostAliases[0].hostnames[1]: "Not_OK" must be a lowercase RFC 1123 subdomain'],
    ['nodeSelector key', pod({ nodeSelector: { 'bad key!': 'x' } }), 'spec.nodeSelector[bad key!]: key "bad key!"'],
    ['nodeSelector value', pod({ nodeSelector: { disk: 'not ok' } }), 'spec.nodeSelector[disk]: value "not ok"'],
    ['nodeSelector wrong type', pod({ nodeSelector: { disk: 1 } }), 'spec.nodeSelector.disk:'],
    ['hostname', pod({ hostname: 'a.b' }), 'spec.hostname: "a.b" must be a lowercase RFC 1123 label'],
    ['subdomain', pod({ subdomain: 'A' }), 'spec.subdomain:'],
    ['serviceAccountName', pod({ serviceAccountName: 'Bad_SA' }), 'spec.serviceAccountName:'],
    ['priorityClassName', pod({ priorityClassName: 'x y' }), 'spec.priorityClassName:'],
    ['runtimeClassName', pod({ runtimeClassName: 'RC' }), 'spec.runtimeClassName:'],
    ['nodeName', pod({ nodeName: 'node_1' }), 'spec.nodeName:'],
    ['activeDeadlineSeconds 0', pod({ activeDeadlineSeconds: 0 }), 'spec.activeDeadlineSeconds: must be between 1 and 2147483647'],
    ['shareProcessNamespace with hostPID', pod({ shareProcessNamespace: true, hostPID: true }), 'spec.shareProcessNamespace: shareProcessNamespace and hostPID cannot both be enabled'],
    ['restartPolicy value', pod({ restartPolicy: 'Sometimes' }), 'spec.restartPolicy:'],
    ['priority beyond int32', pod({ priority: 2 ** 31 }), 'spec.priority:'],
    // ephemeral containers
    ['ephemeralContainers', pod({ ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }), 'spec.ephemeralContainers: may not be set in a static pod'],
    ['ephemeralContainers not a list', pod({ ephemeralContainers: 'x' }), 'spec.ephemeralContainers: may not be set in a static pod'],
    // probes
    ['probe with no handler', ctr({ livenessProbe: { periodSeconds: 5 } }), 'spec.containers[0].livenessProbe: must specify a handler type'],
    ['probe with two handlers', ctr({ readinessProbe: { ...exec, tcpSocket: { port: 80 } } }), 'spec.containers[0].readinessProbe.tcpSocket: may not specify more than 1 handler type'],
    ['probe periodSeconds -1', ctr({ livenessProbe: { ...exec, periodSeconds: -1 } }), 'spec.containers[0].livenessProbe.periodSeconds: must be greater than or equal to 0, got -1'],
    ['probe initialDelaySeconds', ctr({ startupProbe: { ...exec, initialDelaySeconds: -3 } }), 'spec.containers[0].startupProbe.initialDelaySeconds: must be greater than or equal to 0'],
    ['probe timeoutSeconds', ctr({ readinessProbe: { ...exec, timeoutSeconds: -1 } }), 'spec.containers[0].readinessProbe.timeoutSeconds:'],
    ['probe failureThreshold', ctr({ readinessProbe: { ...exec, failureThreshold: -1 } }), 'spec.containers[0].readinessProbe.failureThreshold:'],
    ['probe successThreshold negative', ctr({ readinessProbe: { ...exec, successThreshold: -1 } }), 'spec.containers[0].readinessProbe.successThreshold:'],
    ['liveness successThreshold 2', ctr({ livenessProbe: { ...exec, successThreshold: 2 } }), 'spec.containers[0].livenessProbe.successThreshold: must be 1, got 2'],
    ['startup successThreshold 3', ctr({ startupProbe: { ...exec, successThreshold: 3 } }), 'spec.containers[0].startupProbe.successThreshold: must be 1'],
    ['probe terminationGracePeriodSeconds 0', ctr({ livenessProbe: { ...exec, terminationGracePeriodSeconds: 0 } }), 'spec.containers[0].livenessProbe.terminationGracePeriodSeconds: must be greater than 0'],
    ['readiness terminationGracePeriodSeconds', ctr({ readinessProbe: { ...exec, terminationGracePeriodSeconds: 5 } }), 'spec.containers[0].readinessProbe.terminationGracePeriodSeconds: must not be set for readinessProbes'],
    ['probe exec without command', ctr({ livenessProbe: { exec: { command: [] } } }), 'spec.containers[0].livenessProbe.exec.command: required value'],
    ['probe httpGet port 0', ctr({ livenessProbe: { httpGet: { port: 0 } } }), 'spec.containers[0].livenessProbe.httpGet.port: must be between 1 and 65535'],
    ['probe httpGet port name', ctr({ livenessProbe: { httpGet: { port: '8080' } } }), 'spec.containers[0].livenessProbe.httpGet.port: "8080" must be a port number or an IANA service name'],
    ['probe httpGet header', ctr({ livenessProbe: { httpGet: { port: 80, httpHeaders: [{ name: 'X Y', value: '1' }] } } }), 'spec.containers[0].livenessProbe.httpGet.httpHeaders[0].name:'],
    ['probe tcpSocket port', ctr({ livenessProbe: { tcpSocket: { port: 70000 } } }), 'spec.containers[0].livenessProbe.tcpSocket.port:'],
    ['probe grpc port', ctr({ livenessProbe: { grpc: { port: 0 } } }), 'spec.containers[0].livenessProbe.grpc.port:'],
    ['probe value beyond int32', ctr({ livenessProbe: { ...exec, periodSeconds: 2 ** 31 } }), 'spec.containers[0].livenessProbe.periodSeconds:'],
    ['probe on a plain init container', pod({ initContainers: [{ name: 'i', image: 'i:1', readinessProbe: exec }] }), 'spec.initContainers[0].readinessProbe: may not be set for init containers without restartPolicy=Always'],
    ['lifecycle on a plain init container', pod({ initContainers: [{ name: 'i', image: 'i:1', lifecycle: { preStop: exec } }] }), 'spec.initContainers[0].lifecycle: may not be set for init containers without restartPolicy=Always'],
    ['probe on a sidecar is validated', sidecar({ livenessProbe: {} }), 'spec.initContainers[0].livenessProbe: must specify a handler type'],
    // lifecycle handlers
    ['postStart with no handler', ctr({ lifecycle: { postStart: {} } }), 'spec.containers[0].lifecycle.postStart: must specify a handler type'],
    ['preStop with two handlers', ctr({ lifecycle: { preStop: { ...exec, httpGet: { port: 80 } } } }), 'spec.containers[0].lifecycle.preStop.httpGet: may not specify more than 1 handler type'],
    // tolerations
    ['toleration key', pod({ tolerations: [{ key: 'bad key', operator: 'Exists' }] }), 'spec.tolerations[0].key:'],
    ['toleration empty key with Equal', pod({ tolerations: [{ value: 'x' }] }), 'spec.tolerations[0].operator: must be Exists when key is empty'],
    ['toleration Exists with value', pod({ tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] }), 'spec.tolerations[0].operator: value must be empty when operator is Exists'],
    ['toleration value', pod({ tolerations: [{ key: 'k', value: 'a b' }] }), 'spec.tolerations[0].value:'],
    ['toleration effect', pod({ tolerations: [{ key: 'k', operator: 'Exists', effect: 'Sometimes' }] }), 'spec.tolerations[0].effect: unsupported value "Sometimes"'],
    ['tolerationSeconds without NoExecute', pod({ tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }] }), 'spec.tolerations[0].effect: must be NoExecute when tolerationSeconds is set'],
    ['toleration operator', pod({ tolerations: [{ key: 'k', operator: 'In' }] }), 'spec.tolerations[0].operator:'],
    // DNS
    ['dnsPolicy None without nameservers', pod({ dnsPolicy: 'None' }), 'spec.dnsConfig.nameservers: at least one nameserver is required when dnsPolicy is None'],
    ['four nameservers', pod({ dnsConfig: { nameservers: ['1.1.1.1', '1.0.0.1', '8.8.8.8', '8.8.4.4'] } }), 'spec.dnsConfig.nameservers: must not have more than 3 nameservers, got 4'],
    ['nameserver not an IP', pod({ dnsConfig: { nameservers: ['dns.example.com'] } }), 'spec.dnsConfig.nameservers[0]: "dns.example.com" must be a valid IP address'],
    ['33 search paths', pod({ dnsConfig: { searches: Array.from({ length: 33 }, (_, i) => `s${i}.example`) } }), 'spec.dnsConfig.searches: must not have more than 32 search paths, got 33'],
    ['search list over 2048 characters', pod({ dnsConfig: { searches: Array.from({ length: 12 }, (_, i) => `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.d${i}`) } }), 'spec.dnsConfig.searches: must not have more than 2048 characters'],
    ['search not a subdomain', pod({ dnsConfig: { searches: ['Bad_Domain'] } }), 'spec.dnsConfig.searches[0]: "Bad_Domain" must be a lowercase RFC 1123 subdomain'],
    ['dns option without name', pod({ dnsConfig: { options: [{ name: '', value: '1' }] } }), 'spec.dnsConfig.options[0].name: required value'],
    // ports
    ['containerPort 0', ctr({ ports: [{ containerPort: 0 }] }), 'spec.containers[0].ports[0].containerPort: must be between 1 and 65535, got 0'],
    ['hostPort out of range', ctr({ ports: [{ containerPort: 80, hostPort: 70000 }] }), 'spec.containers[0].ports[0].hostPort: must be between 0 and 65535'],
    ['port protocol', ctr({ ports: [{ containerPort: 80, protocol: 'ICMP' }] }), 'spec.containers[0].ports[0].protocol:'],
    ['port name', ctr({ ports: [{ containerPort: 80, name: 'HTTP' }] }), 'spec.containers[0].ports[0].name: "HTTP" must be an IANA service name'],
    ['duplicate port name', ctr({ ports: [{ containerPort: 80, name: 'web' }, { containerPort: 81, name: 'web' }] }), 'spec.containers[0].ports[1].name: duplicate port name "web"'],
    ['duplicate host port and protocol', pod({ containers: [{ name: 'a', image: 'i:1', ports: [{ containerPort: 80, hostPort: 8080 }] }, { name: 'b', image: 'i:1', ports: [{ containerPort: 81, hostPort: 8080 }] }] }), 'spec.containers[1].ports[0].hostPort: duplicate host port /TCP/8080'],
    // env
    ['env name empty', ctr({ env: [{ name: '', value: 'x' }] }), 'spec.containers[0].env[0].name: required value'],
    ['env name starting with a digit', ctr({ env: [{ name: '1X', value: 'x' }] }), 'spec.containers[0].env[0].name: "1X" is not a valid environment variable name'],
    ['env value and valueFrom', ctr({ env: [{ name: 'X', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }), 'spec.containers[0].env[0].valueFrom: may not be specified when value is not empty'],
    ['env valueFrom empty', ctr({ env: [{ name: 'X', valueFrom: {} }] }), 'spec.containers[0].env[0].valueFrom: must specify one of'],
    ['env valueFrom two sources', ctr({ env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'metadata.name' }, secretKeyRef: { name: 's', key: 'k' } } }] }), 'spec.containers[0].env[0].valueFrom: may not have more than one field specified at a time'],
    ['env fieldPath', ctr({ env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.containers' } } }] }), 'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: unsupported value "spec.containers"'],
    ['env fieldRef apiVersion', ctr({ env: [{ name: 'X', valueFrom: { fieldRef: { apiVersion: 'v2', fieldPath: 'metadata.name' } } }] }), 'spec.containers[0].env[0].valueFrom.fieldRef.apiVersion:'],
    ['env resourceFieldRef', ctr({ env: [{ name: 'X', valueFrom: { resourceFieldRef: { resource: 'limits.gpu' } } }] }), 'spec.containers[0].env[0].valueFrom.resourceFieldRef.resource: unsupported value "limits.gpu"'],
    ['env configMapKeyRef key', ctr({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cm', key: 'a b' } } }] }), 'spec.containers[0].env[0].valueFrom.configMapKeyRef.key:'],
    // resources
    ['resource name', ctr({ resources: { limits: { gpu: '1' } } }), 'spec.containers[0].resources.limits[gpu]: "gpu" must be a standard resource for containers'],
    ['negative quantity', ctr({ resources: { requests: { cpu: '-1' } } }), 'spec.containers[0].resources.requests[cpu]: must be greater than or equal to 0'],
    ['extended resource not an integer', ctr({ resources: { limits: { 'example.com/gpu': '500m' } } }), 'spec.containers[0].resources.limits[example.com/gpu]: must be an integer'],
    ['extended resource request without limit', ctr({ resources: { requests: { 'example.com/gpu': '1' } } }), 'spec.containers[0].resources.limits[example.com/gpu]: a limit must be set for resources that cannot be overcommitted'],
    ['extended resource request below limit', ctr({ resources: { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '2' } } }), 'spec.containers[0].resources.requests[example.com/gpu]: must be equal to the example.com/gpu limit (2)'],
    ['hugepages alone', ctr({ resources: { limits: { 'hugepages-2Mi': '2Mi' } } }), 'spec.containers[0].resources: hugepages require a cpu or memory request or limit'],
    // mounts and volumes
    ['duplicate mountPath', ctr({ volumeMounts: [{ name: 'v', mountPath: '/d' }, { name: 'v', mountPath: '/d' }] }, { volumes: [{ name: 'v', emptyDir: {} }] }), 'spec.containers[0].volumeMounts[1].mountPath: must be unique'],
    ['subPath escaping', ctr({ volumeMounts: [{ name: 'v', mountPath: '/d', subPath: '../etc' }] }, { volumes: [{ name: 'v', emptyDir: {} }] }), "spec.containers[0].volumeMounts[0].subPath: must not contain '..'"],
    ['subPath absolute', ctr({ volumeMounts: [{ name: 'v', mountPath: '/d', subPath: '/etc' }] }, { volumes: [{ name: 'v', emptyDir: {} }] }), 'spec.containers[0].volumeMounts[0].subPath: must be a relative path'],
    ['Bidirectional unprivileged', ctr({ volumeMounts: [{ name: 'v', mountPath: '/d', mountPropagation: 'Bidirectional' }] }, { volumes: [{ name: 'v', emptyDir: {} }] }), 'spec.containers[0].volumeMounts[0].mountPropagation: Bidirectional mount propagation is available only to privileged containers'],
    ['volume without source', pod({ volumes: [{ name: 'v' }] }), 'spec.volumes[0]: exactly one volume source'],
    // A source the API does not define is an unknown field, dropped: the volume has none. (configMap & co. are valid: the pod waits; see pod-validate-volumes.test.ts.)
    ['volume with an unknown source', pod({ volumes: [{ name: 'v', notAVolumeSource: { name: 'cm' } }] }), 'spec.volumes[0]: exactly one volume source'],
    ['volume with two sources', pod({ volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }] }), 'spec.volumes[0]: exactly one volume source'],
    ['duplicate volume', pod({ volumes: [{ name: 'v', emptyDir: {} }, { name: 'v', emptyDir: {} }] }), 'spec.volumes[1].name: duplicate volume name "v"'],
    ['volume name', pod({ volumes: [{ name: 'V', emptyDir: {} }] }), 'spec.volumes[0].name:'],
    ['hostPath with ..', pod({ volumes: [{ name: 'v', hostPath: { path: '/a/../etc' } }] }), "spec.volumes[0].hostPath.path: must not contain '..'"],
    ['hostPath type', pod({ volumes: [{ name: 'v', hostPath: { path: '/a', type: 'Pipe' } }] }), 'spec.volumes[0].hostPath.type: unsupported value "Pipe"'],
    ['emptyDir sizeLimit', pod({ volumes: [{ name: 'v', emptyDir: { sizeLimit: '-1Gi' } }] }), 'spec.volumes[0].emptyDir.sizeLimit: must be greater than or equal to 0'],
    // container security context, image, restart policy
    ['image whitespace', ctr({ image: ' busybox' }), 'spec.containers[0].image: must not have leading or trailing whitespace'],
    ['container runAsUser', ctr({ securityContext: { runAsUser: -1 } }), 'spec.containers[0].securityContext.runAsUser: must be between 0'],
    ['privileged without escalation', ctr({ securityContext: { privileged: true, allowPrivilegeEscalation: false } }), 'spec.containers[0].securityContext: cannot set allowPrivilegeEscalation to false and privileged to true'],
    ['CAP_SYS_ADMIN without escalation', ctr({ securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ['CAP_SYS_ADMIN'] } } }), 'spec.containers[0].securityContext: cannot set allowPrivilegeEscalation to false and add CAP_SYS_ADMIN'],
    ['restartPolicy on an app container', ctr({ restartPolicy: 'Always' }), 'spec.containers[0].restartPolicy: may only be set on init containers'],
    ['container name empty', ctr({ name: '' }), 'spec.containers[0].name: required value'],
  ])('%s', (_name, raw, want) => {
    expect(problems(raw).join('\n')).toContain(want);
  });

  it('reports every problem together', () => {
    const raw = pod({ hostAliases: [{ ip: 'x', hostnames: ['a'] }], nodeSelector: { 'bad key!': 'v' }, securityContext: { sysctls: [{ name: 'a..b', value: '1' }] }, containers: [{ name: 'c', image: 'i', livenessProbe: { periodSeconds: -1 } }] }, { annotations: { a: 'x'.repeat(300_000) } });
    expect(problems(raw).map((p) => p.split(':')[0])).toEqual(expect.arrayContaining(['metadata.annotations', 'spec.containers[0].livenessProbe', 'spec.containers[0].livenessProbe.periodSeconds', 'spec.hostAliases[0].ip', 'spec.nodeSelector[bad key!]', 'spec.securityContext.sysctls[0].name']));
  });
});

describe('accepted, as the API server accepts it', () => {
  it.each<[string, Obj]>([
    ['sysctls with dots and slashes', pod({ securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1' }, { name: 'net/ipv4/conf/eth0.100/forwarding', value: '1' }, { name: 'kernel.shm_rmid_forced', value: '1' }] } })],
    ['annotations up to 256 KiB', pod({}, { annotations: { 'example.com/Big': 'x'.repeat(262_144 - 15) } })],
    ['IPv6 host alias and nameserver', pod({ hostAliases: [{ ip: '::1', hostnames: ['local.test'] }], dnsConfig: { nameservers: ['2001:db8::1'], searches: ['example.com.'] } })],
    ['nodeSelector', pod({ nodeSelector: { 'platform.io/os': 'linux', disk: '' } })],
    ['probes with zeros (API defaults)', ctr({ livenessProbe: { ...exec, periodSeconds: 0, successThreshold: 0, timeoutSeconds: 0 }, readinessProbe: { httpGet: { port: 'web' }, successThreshold: 3 }, startupProbe: { grpc: { port: 9000 } }, ports: [{ name: 'web', containerPort: 80 }] })],
    ['hooks, including the tolerated tcpSocket', ctr({ lifecycle: { postStart: exec, preStop: { tcpSocket: { port: 80 } } } })],
    ['sidecar with probes and hooks', sidecar({ livenessProbe: exec, readinessProbe: exec, startupProbe: exec, lifecycle: { preStop: exec } })],
    ['tolerations', pod({ tolerations: [{ operator: 'Exists' }, { key: 'k', value: 'v', effect: 'NoExecute', tolerationSeconds: 30 }, { key: 'k2', operator: 'Exists', effect: 'NoSchedule' }] })],
    ['empty ephemeralContainers', pod({ ephemeralContainers: [] })],
    ['numeric and extended resources', ctr({ resources: { limits: { cpu: 0.5, memory: '64Mi', 'example.com/gpu': 1, 'hugepages-2Mi': '4Mi' } } })],
    ['env from the downward API', ctr({ env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'APP', value: '', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } }, { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } }] })],
    ['upper-case annotation key', pod({}, { annotations: { 'Example.com/Key': 'v' } })],
  ])('%s', (_name, raw) => {
    expect(problems(raw)).toEqual([]);
  });
});

describe('what the fuzz tier found', () => {
  it('a huge or control-laden value is quoted and cut short in the message', () => {
    const out = problems(pod({ containers: [{ name: `${'A'.repeat(1 << 20)}\n`, image: 'i:1' }] }, { annotations: { ['K'.repeat(5000)]: 'v', 'a b': 'v' } }));
    expect(out.length).toBeGreaterThanOrEqual(2);
    for (const line of out) expect(line.length).toBeLessThan(1024);
    expect(out.join('\n')).toContain('(1048577 characters)');
    expect(out.join('\n')).not.toContain('A\n');
  });
  it('-0 decodes as 0, so an accepted pod survives a JSON round trip unchanged', () => {
    const d = decodePod(ctr({ livenessProbe: { ...exec, periodSeconds: -0 } }));
    expect(d.ok && Object.is(d.pod.spec.containers[0]!.livenessProbe!.periodSeconds, 0)).toBe(true);
  });
  it('an input whose getter throws is a rejection at (root), not an exception', () => {
    const raw = Object.defineProperty({ apiVersion: 'v1', kind: 'Pod' }, 'metadata', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(problems(raw)).toEqual(['(root): could not be read: boom']);
  });
  it('a quantity too long to be real is refused without echoing it whole', () => {
    const out = problems(ctr({ resources: { limits: { memory: '9'.repeat(100_000) } } }));
    expect(out.join('\n')).toContain('spec.containers[0].resources.limits[memory]: invalid quantity');
    for (const line of out) expect(line.length).toBeLessThan(1024);
  });
});
