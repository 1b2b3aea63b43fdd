// Pod rules of the server that are not the agent's: the agent's pod
// validation (pod-model's decodePod + validatePod, the API's
// ValidatePodCreate) adapted into FieldErrors, the API's defaults written
// into the stored JSON, the spec-update rule, and graceful deletion. Pure.
import type { FieldError } from '../../../api/errors.js';
import { decodePod, type DecodeResult } from '../../../pod-model/pod-decode.js';
import { validatePod } from '../../../pod-model/pod-validate.js';
import { qosClass } from '../../../pod-model/qos.js';
import { clone, isRecord, stableJson } from '../object.js';
import type { ApiObject } from '../types.js';
import { rec, str } from './common.js';

/**
 * A create's decode, made once by `podQos` in prepareForCreate and taken by
 * the validation of the same object (write-prep.ts prepareCreate calls
 * prepareForCreate, the defaults — already applied, so a no-op — and
 * validate on one object; only metadata, which this validation leaves out,
 * changes between). Taken once: a later validation of the same object decodes
 * again. Keyed weakly, so an object that is never validated leaves nothing behind.
 */
const createDecodes = new WeakMap<ApiObject, DecodeResult>();

/** The agent's problems as 422 causes; metadata is the store's (validation/object-meta.ts) and is left out here. */
export function validatePodObject(obj: ApiObject): FieldError[] {
  const decoded = createDecodes.get(obj) ?? decodePod(obj);
  createDecodes.delete(obj);
  const problems = decoded.ok ? validatePod(decoded.pod) : decoded.problems;
  return problems.filter((p) => !p.field.startsWith('metadata.') && p.field !== 'metadata').map((p) => ({ type: 'FieldValueInvalid', field: p.field, detail: p.message }));
}

/**
 * The QoS class the status reports, when the pod decodes. Called by the
 * strategy's prepareForCreate after the defaults (upstream defaults at
 * decoding, before PrepareForCreate); the decode is kept for the validation
 * that follows.
 */
export function podQos(obj: ApiObject): string | undefined {
  const decoded = decodePod(obj);
  createDecodes.set(obj, decoded);
  return decoded.ok ? qosClass(decoded.pod) : undefined;
}

function defaultContainer(c: unknown): void {
  if (!isRecord(c)) return;
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  if (c.imagePullPolicy === undefined && typeof c.image === 'string') {
    const image = c.image;
    const tag = image.includes('@') ? 'digest' : (/:([^/:]*)$/.exec(image)?.[1] ?? '');
    c.imagePullPolicy = tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
  }
}

/** The API's defaults for a pod's spec (SetDefaults_PodSpec and container defaults), in place. */
export function defaultPodSpec(obj: ApiObject): void {
  const spec = rec(obj, 'spec');
  if (spec === undefined) return;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  spec.enableServiceLinks ??= true;
  for (const list of [spec.containers, spec.initContainers]) if (Array.isArray(list)) list.forEach(defaultContainer);
}

const MUTABLE_NOTE =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,' +
  '`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** The spec with the fields an update may change left out, for comparison. */
function frozen(spec: Record<string, unknown> | undefined): string {
  const s = clone(spec ?? {});
  for (const k of ['containers', 'initContainers']) {
    const list = s[k];
    if (Array.isArray(list)) for (const c of list) if (isRecord(c)) delete c.image;
  }
  delete s.activeDeadlineSeconds;
  delete s.tolerations;
  return stableJson(s);
}

/** upstream's ValidatePodUpdate, reduced to its rule about the spec. */
export function validatePodSpecUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const spec = clone(rec(obj, 'spec') ?? {});
  const oldSpec = rec(old, 'spec') ?? {};
  const oldTol = Array.isArray(oldSpec.tolerations) ? oldSpec.tolerations : [];
  const tol = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  // Tolerations may only grow: every old one must still be there.
  const tolerationsOk = oldTol.every((t) => tol.some((n) => stableJson(n) === stableJson(t)));
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && spec.terminationGracePeriodSeconds === 1) spec.terminationGracePeriodSeconds = oldGrace;
  return tolerationsOk && frozen(spec) === frozen(oldSpec) ? [] : [{ type: 'FieldValueForbidden', field: 'spec', detail: MUTABLE_NOTE }];
}

/** upstream's pod CheckGracefulDelete: the requested period, else the pod's own; 0 when unbound or terminal; negative → 1. */
export function podGracePeriod(obj: ApiObject, requested: number | undefined): number {
  const own = rec(obj, 'spec')?.terminationGracePeriodSeconds;
  let period = requested ?? (typeof own === 'number' ? own : 0);
  if (str(obj, 'spec', 'nodeName') === '') period = 0;
  const phase = str(obj, 'status', 'phase');
  if (phase === 'Failed' || phase === 'Succeeded') period = 0;
  return period < 0 ? 1 : period;
}

const PHASES: readonly string[] = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'];

export function validatePodStatus(obj: ApiObject): FieldError[] {
  const phase = str(obj, 'status', 'phase');
  return phase === '' || PHASES.includes(phase) ? [] : [{ type: 'FieldValueNotSupported', field: 'status.phase', value: phase, supported: PHASES }];
}
