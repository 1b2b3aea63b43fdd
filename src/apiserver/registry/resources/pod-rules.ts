// Pod rules of the server that are not the agent's: the agent's pod
// validation (pod-model's decodePod + validatePod, the API's
// ValidatePodCreate) adapted into FieldErrors, the API's defaults written
// into the stored JSON, the spec-update rule, and graceful deletion. Pure
// (the verdicts remembered by content are a bounded memo of a pure function).
import type { FieldError } from '../../../api/errors.js';
import { decodePod } from '../../../pod-model/pod-decode.js';
import { validatePod } from '../../../pod-model/pod-validate.js';
import { qosClass } from '../../../pod-model/qos.js';
import { clone, isRecord, stableJson } from '../object.js';
import type { ApiObject } from '../types.js';
import { rec, str } from './common.js';

/** What the agent's decode and validation say of a pod, leaving its metadata to the store. */
interface PodVerdict {
  readonly qos: string | undefined;
  readonly errors: readonly FieldError[];
}

function judgePod(obj: ApiObject): PodVerdict {
  const decoded = decodePod(obj);
  const problems = decoded.ok ? validatePod(decoded.pod) : decoded.problems;
  const errors = problems.filter((p) => !p.field.startsWith('metadata.') && p.field !== 'metadata').map((p): FieldError => ({ type: 'FieldValueInvalid', field: p.field, detail: p.message }));
  return { qos: decoded.ok ? qosClass(decoded.pod) : undefined, errors };
}

/**
 * Whether a labels or annotations value passes the decode's string map
 * (absent, or a plain object of strings without an own `__proto__` key): the
 * decode's only use of their content, so the verdict depends on this, not on
 * the values.
 */
function decodableStringMap(v: unknown): boolean {
  if (v === undefined) return true;
  if (!isRecord(v) || Object.hasOwn(v, '__proto__')) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in v) if (typeof v[k] !== 'string') return false;
  return true;
}

/**
 * Everything the verdict depends on: the zod decode reads apiVersion, kind,
 * the types of metadata's name/namespace/uid, whether labels and annotations
 * are string maps (these decide whether the pod decodes at all) and the spec;
 * the validation's metadata problems are left out, so names and label values
 * do not count. Undefined when the object does not serialise (then the pod is
 * judged afresh).
 */
function verdictKey(obj: ApiObject): string | undefined {
  const m: Record<string, unknown> = isRecord(obj.metadata) ? obj.metadata : {};
  try {
    return JSON.stringify([obj.apiVersion, obj.kind, isRecord(obj.metadata), typeof m.name, typeof m.namespace, typeof m.uid, decodableStringMap(m.labels), decodableStringMap(m.annotations), obj.spec]);
  } catch {
    return undefined;
  }
}

/** Distinct pod shapes remembered (a ReplicaSet's pods share one); about 1 KB each. */
const VERDICTS_KEPT = 256;
const verdicts = new Map<string, PodVerdict>();

/**
 * The verdict of a pod, remembered by content: pods made from one template
 * (and a create's prepareForCreate and validate, which judge the same pod)
 * decode once. Least recently used shapes are forgotten past VERDICTS_KEPT.
 */
function podVerdict(obj: ApiObject): PodVerdict {
  const key = verdictKey(obj);
  if (key === undefined) return judgePod(obj);
  const hit = verdicts.get(key);
  if (hit !== undefined) {
    verdicts.delete(key);
    verdicts.set(key, hit);
    return hit;
  }
  const verdict = judgePod(obj);
  verdicts.set(key, verdict);
  if (verdicts.size > VERDICTS_KEPT) verdicts.delete(verdicts.keys().next().value as string);
  return verdict;
}

/** The agent's problems as 422 causes; metadata is the store's (validation/object-meta.ts) and is left out here. */
export function validatePodObject(obj: ApiObject): FieldError[] {
  return podVerdict(obj).errors.map((e) => ({ ...e }));
}

/**
 * The QoS class the status reports, when the pod decodes. Called by the
 * strategy's prepareForCreate after the defaults (upstream defaults at
 * decoding, before PrepareForCreate), so the validation that follows judges
 * the same content and finds the verdict remembered.
 */
export function podQos(obj: ApiObject): string | undefined {
  return podVerdict(obj).qos;
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
