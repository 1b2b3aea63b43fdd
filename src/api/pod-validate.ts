// Semantic validation of a decoded pod, following the API server's Pod rules
// the kubelet also applies to static pods. Every problem names the field.
import type { Container, Pod } from './pod-types.js';
import type { DecodeProblem } from './pod-decode.js';
import { parseQuantity } from '../config/values/quantity.js';
import { isLabelValue, isQualifiedName } from '../config/values/names.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const IANA_SVC_NAME = /^(?=.*[a-z])[a-z0-9]([a-z0-9]|-(?=[a-z0-9]))*$/;
const STANDARD_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

export function isDns1123Label(s: string): boolean {
  return s.length <= 63 && DNS1123_LABEL.test(s);
}

export function isDns1123Subdomain(s: string): boolean {
  return s.length <= 253 && DNS1123_SUBDOMAIN.test(s);
}

function resourceNameOk(name: string): boolean {
  return STANDARD_RESOURCES.has(name) || name.startsWith('hugepages-') || (name.includes('/') && isQualifiedName(name) === undefined);
}

function validateContainer(c: Container, path: string, hostNetwork: boolean, volumes: ReadonlySet<string>, out: DecodeProblem[]): void {
  const p = (field: string, message: string): void => void out.push({ field: `${path}.${field}`, message });
  if (!isDns1123Label(c.name)) p('name', `"${c.name}" must be a lowercase RFC 1123 label (a-z, 0-9, '-', at most 63 characters)`);
  if (c.image.trim() === '') p('image', 'required value');
  const portNames = new Set<string>();
  for (const [i, port] of (c.ports ?? []).entries()) {
    if (port.containerPort < 1 || port.containerPort > 65535) p(`ports[${i}].containerPort`, `must be between 1 and 65535, got ${port.containerPort}`);
    if (port.hostPort !== undefined && (port.hostPort < 0 || port.hostPort > 65535)) p(`ports[${i}].hostPort`, `must be between 0 and 65535, got ${port.hostPort}`);
    if (hostNetwork && port.hostPort !== undefined && port.hostPort !== 0 && port.hostPort !== port.containerPort) p(`ports[${i}].hostPort`, 'must match containerPort when hostNetwork is true');
    if (port.name !== undefined) {
      if (port.name.length > 15 || !IANA_SVC_NAME.test(port.name)) p(`ports[${i}].name`, `"${port.name}" must be an IANA service name (at most 15 lowercase letters, digits and '-')`);
      if (portNames.has(port.name)) p(`ports[${i}].name`, `duplicate port name "${port.name}"`);
      portNames.add(port.name);
    }
  }
  for (const [i, e] of (c.env ?? []).entries()) {
    if (!ENV_NAME.test(e.name)) p(`env[${i}].name`, `"${e.name}" is not a valid environment variable name`);
    if (e.value !== undefined && e.valueFrom !== undefined) p(`env[${i}].valueFrom`, 'may not be specified when value is not empty');
  }
  for (const kind of ['limits', 'requests'] as const) {
    for (const [name, text] of Object.entries(c.resources[kind])) {
      if (!resourceNameOk(name)) p(`resources.${kind}[${name}]`, `"${name}" is not a valid resource name`);
      try {
        if (parseQuantity(text).value < 0) p(`resources.${kind}[${name}]`, `must not be negative, got "${text}"`);
      } catch (e) {
        p(`resources.${kind}[${name}]`, (e as Error).message);
      }
    }
  }
  for (const [name, req] of Object.entries(c.resources.requests)) {
    const lim = c.resources.limits[name];
    if (lim === undefined) continue;
    try {
      if (parseQuantity(req).value > parseQuantity(lim).value) p(`resources.requests[${name}]`, `must be less than or equal to the ${name} limit (${lim})`);
    } catch {
      // bad quantities are reported above
    }
  }
  for (const [i, m] of (c.volumeMounts ?? []).entries()) {
    if (!volumes.has(m.name)) p(`volumeMounts[${i}].name`, `volume "${m.name}" is not defined in spec.volumes`);
    if (!m.mountPath.startsWith('/')) p(`volumeMounts[${i}].mountPath`, `must be an absolute path, got "${m.mountPath}"`);
  }
}

/** Problems of a decoded pod; empty when valid. */
export function validatePod(pod: Pod): DecodeProblem[] {
  const out: DecodeProblem[] = [];
  const { metadata: meta, spec } = pod;
  if (meta.name === '') out.push({ field: 'metadata.name', message: 'required value' });
  else if (!isDns1123Subdomain(meta.name)) out.push({ field: 'metadata.name', message: `"${meta.name}" must be a lowercase RFC 1123 subdomain (a-z, 0-9, '-' and '.')` });
  if (meta.namespace !== '' && !isDns1123Label(meta.namespace)) out.push({ field: 'metadata.namespace', message: `"${meta.namespace}" must be a lowercase RFC 1123 label` });
  for (const [k, v] of Object.entries(meta.labels)) {
    const e = isQualifiedName(k) ?? isLabelValue(v);
    if (e) out.push({ field: `metadata.labels[${k}]`, message: e });
  }
  if (spec.containers.length === 0) out.push({ field: 'spec.containers', message: 'a pod needs at least one container' });
  const volumes = new Set<string>();
  for (const [i, v] of (spec.volumes ?? []).entries()) {
    if (!isDns1123Label(v.name)) out.push({ field: `spec.volumes[${i}].name`, message: `"${v.name}" must be a lowercase RFC 1123 label` });
    if (volumes.has(v.name)) out.push({ field: `spec.volumes[${i}].name`, message: `duplicate volume name "${v.name}"` });
    if ((v.hostPath ? 1 : 0) + (v.emptyDir ? 1 : 0) !== 1) out.push({ field: `spec.volumes[${i}]`, message: 'exactly one volume source (hostPath or emptyDir) must be given' });
    if (v.hostPath && !v.hostPath.path.startsWith('/')) out.push({ field: `spec.volumes[${i}].hostPath.path`, message: 'must be an absolute path' });
    volumes.add(v.name);
  }
  const names = new Set<string>();
  const all: Array<[Container, string]> = [
    ...(spec.initContainers ?? []).map((c, i): [Container, string] => [c, `spec.initContainers[${i}]`]),
    ...spec.containers.map((c, i): [Container, string] => [c, `spec.containers[${i}]`]),
  ];
  for (const [c, path] of all) {
    if (names.has(c.name)) out.push({ field: `${path}.name`, message: `duplicate container name "${c.name}"` });
    names.add(c.name);
    validateContainer(c, path, spec.hostNetwork === true, volumes, out);
    if (c.restartPolicy !== undefined && !path.startsWith('spec.initContainers')) out.push({ field: `${path}.restartPolicy`, message: 'may only be set on init containers' });
  }
  if (spec.terminationGracePeriodSeconds < 0) out.push({ field: 'spec.terminationGracePeriodSeconds', message: 'must be >= 0' });
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds <= 0) out.push({ field: 'spec.activeDeadlineSeconds', message: 'must be > 0' });
  if (spec.hostname !== undefined && !isDns1123Label(spec.hostname)) out.push({ field: 'spec.hostname', message: `"${spec.hostname}" must be a lowercase RFC 1123 label` });
  if (spec.dnsPolicy === 'None' && (spec.dnsConfig?.nameservers?.length ?? 0) === 0) out.push({ field: 'spec.dnsConfig.nameservers', message: 'at least one nameserver is required when dnsPolicy is None' });
  return out;
}
