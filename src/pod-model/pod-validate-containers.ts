// One container's rules, as the API server's validateContainers and
// validateInitContainers apply them: name, image, ports, env, resources,
// mounts, probes, lifecycle, security context.
import type { Container, EnvVar, SecurityContext } from './pod-types.js';
import { validateHandler, validateNamedPorts, validateProbe } from './pod-validate-probes.js';
import { validateResources } from './pod-validate-resources.js';
import { checkId, checkLabel, checkLocalDescendingPath, isConfigMapKey, isIanaServiceName, quote, type Report } from './pod-validate-util.js';
import { checkContainerSecurity, checkSeccomp } from './pod-validate-security.js';
import { validateSubPaths } from './pod-validate-volumes.js';

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const ENV_FIELD_PATHS = new Set(['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs']);
const SUBSCRIPTED_FIELD_PATH = /^metadata\.(labels|annotations)\['(.+)'\]$/s;
const ENV_RESOURCES = new Set(['limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage']);

export interface ContainerContext {
  readonly hostNetwork: boolean;
  readonly volumes: ReadonlySet<string>;
  readonly init: boolean;
  /**
   * The SidecarContainers feature gate: false refuses restartPolicy on init
   * containers (the gate is alpha and off by default in 1.28); undefined (a
   * caller that does not know the gate) accepts it.
   */
  readonly sidecars?: boolean;
}

function validatePorts(c: Container, path: string, hostNetwork: boolean, report: Report): void {
  const names = new Set<string>();
  for (const [i, port] of (c.ports ?? []).entries()) {
    const at = `${path}.ports[${i}]`;
    if (port.containerPort < 1 || port.containerPort > 65535) report(`${at}.containerPort`, `must be between 1 and 65535, got ${port.containerPort}`);
    if (port.hostPort !== undefined && (port.hostPort < 0 || port.hostPort > 65535)) report(`${at}.hostPort`, `must be between 0 and 65535, got ${port.hostPort}`);
    if (hostNetwork && port.hostPort !== undefined && port.hostPort !== 0 && port.hostPort !== port.containerPort) report(`${at}.hostPort`, 'must match containerPort when hostNetwork is true');
    if (port.name !== undefined) {
      if (!isIanaServiceName(port.name)) report(`${at}.name`, `${quote(port.name)} must be an IANA service name (at most 15 lowercase letters, digits and '-')`);
      if (names.has(port.name)) report(`${at}.name`, `duplicate port name ${quote(port.name)}`);
      names.add(port.name);
    }
  }
}

function validateEnv(e: EnvVar, at: string, report: Report): void {
  if (e.name === '') report(`${at}.name`, 'required value');
  else if (!ENV_NAME.test(e.name)) report(`${at}.name`, `${quote(e.name)} is not a valid environment variable name (letters, digits, '_', '-' and '.', not starting with a digit)`);
  const from = e.valueFrom;
  if (from === undefined) return;
  const sources = (['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'] as const).filter((k) => from[k] !== undefined);
  if (e.value !== undefined && e.value !== '' && sources.length > 0) report(`${at}.valueFrom`, 'may not be specified when value is not empty');
  if (sources.length === 0) report(`${at}.valueFrom`, 'must specify one of: fieldRef, resourceFieldRef, configMapKeyRef or secretKeyRef');
  if (sources.length > 1) report(`${at}.valueFrom`, 'may not have more than one field specified at a time');
  if (from.fieldRef) {
    const { apiVersion, fieldPath } = from.fieldRef;
    if (apiVersion !== undefined && apiVersion !== 'v1') report(`${at}.valueFrom.fieldRef.apiVersion`, `unsupported value ${quote(apiVersion)}: supported values: "v1"`);
    const sub = SUBSCRIPTED_FIELD_PATH.exec(fieldPath);
    if (!ENV_FIELD_PATHS.has(fieldPath) && sub === null) report(`${at}.valueFrom.fieldRef.fieldPath`, `unsupported value ${quote(fieldPath)}: supported values: ${[...ENV_FIELD_PATHS].join(', ')}, metadata.labels['<key>'], metadata.annotations['<key>']`);
  }
  if (from.resourceFieldRef) {
    const r = from.resourceFieldRef.resource;
    if (!ENV_RESOURCES.has(r) && !/^(limits|requests)\.hugepages-/.test(r)) report(`${at}.valueFrom.resourceFieldRef.resource`, `unsupported value ${quote(r)}: supported values: ${[...ENV_RESOURCES].join(', ')}`);
  }
  for (const k of ['configMapKeyRef', 'secretKeyRef'] as const) {
    const ref = from[k];
    if (ref === undefined) continue;
    if (ref.name === '') report(`${at}.valueFrom.${k}.name`, 'required value');
    if (!isConfigMapKey(ref.key)) report(`${at}.valueFrom.${k}.key`, `${quote(ref.key)} must be a valid key (at most 253 of letters, digits, '-', '_' and '.', not "." or starting with "..")`);
  }
}

function validateMounts(c: Container, path: string, volumes: ReadonlySet<string>, report: Report): void {
  const paths = new Set<string>();
  for (const [i, m] of (c.volumeMounts ?? []).entries()) {
    const at = `${path}.volumeMounts[${i}]`;
    if (m.name === '') report(`${at}.name`, 'required value');
    else if (!volumes.has(m.name)) report(`${at}.name`, `volume ${quote(m.name)} is not defined in spec.volumes`);
    if (!m.mountPath.startsWith('/')) report(`${at}.mountPath`, `must be an absolute path, got ${quote(m.mountPath)}`);
    if (paths.has(m.mountPath)) report(`${at}.mountPath`, `must be unique: ${quote(m.mountPath)} is mounted twice`);
    paths.add(m.mountPath);
    validateSubPaths(m, at, report);
    if (m.mountPropagation === 'Bidirectional' && c.securityContext?.privileged !== true) report(`${at}.mountPropagation`, 'Bidirectional mount propagation is available only to privileged containers');
  }
}

function validateSecurityContext(sc: SecurityContext, path: string, report: Report): void {
  checkId(sc.runAsUser, `${path}.runAsUser`, report);
  checkId(sc.runAsGroup, `${path}.runAsGroup`, report);
  if (sc.allowPrivilegeEscalation === false && sc.privileged === true) report(path, 'cannot set allowPrivilegeEscalation to false and privileged to true');
  if (sc.allowPrivilegeEscalation === false && (sc.capabilities?.add ?? []).includes('CAP_SYS_ADMIN')) report(path, 'cannot set allowPrivilegeEscalation to false and add CAP_SYS_ADMIN to capabilities');
  if (sc.seccompProfile) checkSeccomp(sc.seccompProfile, `${path}.seccompProfile`, report);
  checkContainerSecurity(sc, path, report);
}

export function validateContainer(c: Container, path: string, ctx: ContainerContext, report: Report): void {
  checkLabel(c.name, `${path}.name`, report);
  if (c.image.trim() === '') report(`${path}.image`, 'required value');
  else if (c.image.trim() !== c.image) report(`${path}.image`, 'must not have leading or trailing whitespace');
  validatePorts(c, path, ctx.hostNetwork, report);
  for (const [i, e] of (c.env ?? []).entries()) validateEnv(e, `${path}.env[${i}]`, report);
  validateResources(c.resources, `${path}.resources`, report);
  validateMounts(c, path, ctx.volumes, report);
  if (c.securityContext) validateSecurityContext(c.securityContext, `${path}.securityContext`, report);
  if (c.restartPolicy !== undefined && !ctx.init) report(`${path}.restartPolicy`, 'may only be set on init containers');
  if (c.restartPolicy !== undefined && ctx.init && ctx.sidecars === false) report(`${path}.restartPolicy`, 'may not be set: the SidecarContainers feature gate is disabled');
  // An init container runs to completion: probes and hooks only make sense on a sidecar (restartPolicy Always).
  const sidecar = ctx.init && c.restartPolicy === 'Always' && ctx.sidecars !== false;
  for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
    const probe = c[kind];
    if (probe === undefined) continue;
    if (ctx.init && !sidecar) report(`${path}.${kind}`, 'may not be set for init containers without restartPolicy=Always');
    else validateProbe(probe, kind, `${path}.${kind}`, report);
  }
  if (c.lifecycle !== undefined) {
    if (ctx.init && !sidecar) report(`${path}.lifecycle`, 'may not be set for init containers without restartPolicy=Always');
    else {
      if (c.lifecycle.postStart) validateHandler(c.lifecycle.postStart, `${path}.lifecycle.postStart`, report);
      if (c.lifecycle.preStop) validateHandler(c.lifecycle.preStop, `${path}.lifecycle.preStop`, report);
    }
  }
  validateNamedPorts(c, path, report);
}

/** Host ports are a node-wide resource: one hostIP/protocol/hostPort per pod's container list. */
export function checkHostPortConflicts(containers: readonly Container[], path: string, report: Report): void {
  const seen = new Set<string>();
  for (const [ci, c] of containers.entries()) {
    for (const [pi, p] of (c.ports ?? []).entries()) {
      if (p.hostPort === undefined || p.hostPort === 0) continue;
      const key = `${p.hostIP ?? ''}/${p.protocol}/${p.hostPort}`;
      if (seen.has(key)) report(`${path}[${ci}].ports[${pi}].hostPort`, `duplicate host port ${key}`);
      seen.add(key);
    }
  }
}
