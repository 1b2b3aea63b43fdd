// Semantic validation of a decoded pod, following the API server's pod
// validation (ValidatePodCreate → ValidatePodSpec) that the kubelet relies on
// for static pods, which never pass through an API server. Every problem names
// its field; all problems are reported together. Pure: callers decide what a
// rejection means. Field paths use `a.b[0].c`, and `m[key]` for a map entry.
import type { Container, Pod } from './pod-types.js';
import type { DecodeProblem } from './pod-decode.js';
import { isQualifiedName } from '../config/values/names.js';
import { checkHostPortConflicts, validateContainer } from './pod-validate-containers.js';
import { validatePodSecurityContext } from './pod-validate-security.js';
import { validateDns, validateHostAliases, validateLabelMap, validateSpecScalars, validateTolerations } from './pod-validate-spec.js';
import { validateVolumes } from './pod-validate-volumes.js';
import { collector, isDns1123Label, isDns1123Subdomain, quote, short, type Report } from './pod-validate-util.js';

export { isDns1123Label, isDns1123Subdomain } from './pod-validate-util.js';
export { isSysctlName } from './pod-validate-security.js';

/** All annotations together, keys and values, in bytes (TotalAnnotationSizeLimitB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function validateMetadata(meta: Pod['metadata'], report: Report): void {
  if (meta.name === '') report('metadata.name', 'required value');
  else if (!isDns1123Subdomain(meta.name)) report('metadata.name', `${quote(meta.name)} must be a lowercase RFC 1123 subdomain (a-z, 0-9, '-' and '.')`);
  if (meta.namespace !== '' && !isDns1123Label(meta.namespace)) report('metadata.namespace', `${quote(meta.namespace)} must be a lowercase RFC 1123 label`);
  validateLabelMap(meta.labels, 'metadata.labels', report);
  let size = 0;
  for (const [k, v] of Object.entries(meta.annotations)) {
    // The API checks annotation keys case-insensitively.
    const bad = isQualifiedName(k.toLowerCase());
    if (bad !== undefined) report(`metadata.annotations[${short(k)}]`, `key ${quote(k)}: ${bad}`);
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) report('metadata.annotations', `too long: all annotations together may have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes, got ${size}`);
}

function validateContainers(pod: Pod, volumes: ReadonlySet<string>, opts: ValidateOptions, report: Report): void {
  const { spec } = pod;
  if (spec.containers.length === 0) report('spec.containers', 'a pod needs at least one container');
  const hostNetwork = spec.hostNetwork === true;
  const names = new Set<string>();
  const lists: Array<[readonly Container[], string, boolean]> = [
    [spec.initContainers ?? [], 'spec.initContainers', true],
    [spec.containers, 'spec.containers', false],
  ];
  for (const [list, base, init] of lists) {
    for (const [i, c] of list.entries()) {
      if (c.name !== '' && names.has(c.name)) report(`${base}[${i}].name`, `duplicate container name ${quote(c.name)}`);
      names.add(c.name);
      validateContainer(c, `${base}[${i}]`, { hostNetwork, volumes, init, ...(opts.sidecarContainers !== undefined ? { sidecars: opts.sidecarContainers } : {}) }, report);
    }
    checkHostPortConflicts(list, base, report);
  }
}

/** What validation depends on besides the pod: feature gates. */
export interface ValidateOptions {
  /** The SidecarContainers gate; undefined accepts sidecars (the caller does not know the gate). */
  readonly sidecarContainers?: boolean;
}

/** Problems of a decoded pod; empty when valid. */
export function validatePod(pod: Pod, opts: ValidateOptions = {}): DecodeProblem[] {
  const { out, report } = collector();
  const { spec } = pod;
  validateMetadata(pod.metadata, report);
  const volumes = validateVolumes(spec, report);
  validateContainers(pod, volumes, opts, report);
  validateSpecScalars(spec, report);
  validateDns(spec, report);
  validateHostAliases(spec, report);
  validateTolerations(spec, report);
  if (spec.nodeSelector) validateLabelMap(spec.nodeSelector, 'spec.nodeSelector', report);
  if (spec.securityContext) validatePodSecurityContext(spec.securityContext, 'spec.securityContext', report);
  return out;
}
