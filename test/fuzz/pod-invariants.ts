// What every accepted pod must satisfy, checked independently of
// pod-validate.ts (its own regexes and limits), and the shape every rejection
// must have. Each check returns the broken invariant's description, or
// undefined.
import type { DecodeProblem } from '../../src/pod-model/pod-decode.js';
import type { Pod } from '../../src/pod-model/pod-types.js';

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MESSAGE_MAX = 2048;
const FIELD_MAX = 1024;

/** Only strings, finite numbers, booleans, plain arrays (no holes) and plain objects: what JSON can carry. */
function plainJsonProblem(v: unknown, path: string): string | undefined {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : `${path} is ${v}`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) return `${path}[${i}] is a hole`;
      const p = plainJsonProblem(v[i], `${path}[${i}]`);
      if (p) return p;
    }
    return undefined;
  }
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue;
      const p = plainJsonProblem(x, `${path}.${k}`);
      if (p) return p;
    }
    return undefined;
  }
  return `${path} is not plain data (${typeof v})`;
}

export function acceptedPodProblem(pod: Pod): string | undefined {
  const plain = plainJsonProblem(pod, 'pod');
  if (plain) return plain;
  const { metadata: m, spec } = pod;
  if (m.name === '' || m.name.length > 253 || !SUBDOMAIN.test(m.name)) return `metadata.name ${JSON.stringify(m.name)}`;
  if (m.namespace !== '' && !(m.namespace.length <= 63 && LABEL.test(m.namespace))) return 'metadata.namespace';
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(m.annotations)) annotationBytes += Buffer.byteLength(k) + Buffer.byteLength(v);
  if (annotationBytes > 262144) return 'annotations over the limit';
  if (spec.containers.length === 0) return 'no containers';
  const all = [...(spec.initContainers ?? []), ...spec.containers];
  const names = new Set(all.map((c) => c.name));
  if (names.size !== all.length) return 'container names not unique';
  const volumes = new Set((spec.volumes ?? []).map((v) => v.name));
  if (volumes.size !== (spec.volumes ?? []).length) return 'volume names not unique';
  for (const c of all) {
    if (!(c.name.length <= 63 && LABEL.test(c.name))) return `container name ${JSON.stringify(c.name)}`;
    if (c.image === '' || c.image.trim() !== c.image) return `image ${JSON.stringify(c.image)}`;
    if (!['Always', 'IfNotPresent', 'Never'].includes(c.imagePullPolicy)) return 'imagePullPolicy';
    for (const p of c.ports ?? []) if (!(Number.isInteger(p.containerPort) && p.containerPort >= 1 && p.containerPort <= 65535)) return 'containerPort';
    for (const vm of c.volumeMounts ?? []) if (!volumes.has(vm.name) || !vm.mountPath.startsWith('/')) return 'volumeMount';
    for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
      if (probe === undefined) continue;
      const handlers = [probe.exec, probe.httpGet, probe.tcpSocket, probe.grpc].filter((h) => h !== undefined).length;
      if (handlers !== 1) return 'probe handlers';
      if ([probe.periodSeconds, probe.timeoutSeconds, probe.failureThreshold, probe.successThreshold, probe.initialDelaySeconds].some((n) => n !== undefined && n < 0)) return 'probe numbers';
    }
  }
  if (!['Always', 'OnFailure', 'Never'].includes(spec.restartPolicy)) return 'restartPolicy';
  if (!['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'].includes(spec.dnsPolicy)) return 'dnsPolicy';
  if (!(Number.isInteger(spec.terminationGracePeriodSeconds) && spec.terminationGracePeriodSeconds >= 0)) return 'terminationGracePeriodSeconds';
  const eph = spec.ephemeralContainers;
  if (eph !== undefined && eph !== null && !(Array.isArray(eph) && eph.length === 0)) return 'ephemeral containers accepted';
  for (const s of spec.securityContext?.sysctls ?? []) if (s.name === '' || s.name.includes('..') || /[^a-z0-9._/-]/.test(s.name)) return `sysctl ${JSON.stringify(s.name)}`;
  if ((spec.dnsConfig?.nameservers?.length ?? 0) > 3) return 'nameservers';
  return undefined;
}

export function rejectionProblem(problems: readonly DecodeProblem[]): string | undefined {
  if (problems.length === 0) return 'a rejection without problems';
  for (const p of problems) {
    if (typeof p.field !== 'string' || p.field === '') return `empty field path (message ${JSON.stringify(p.message)})`;
    if (typeof p.message !== 'string' || p.message.trim() === '') return `empty message for ${p.field}`;
    if (p.field.length > FIELD_MAX) return `field path of ${p.field.length} characters`;
    if (p.message.length > MESSAGE_MAX) return `message of ${p.message.length} characters for ${p.field}`;
  }
  return undefined;
}
