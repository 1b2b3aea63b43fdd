// An API server's Pod object (JSON form, as the informer holds it) → the
// agent's Pod model, as the kubelet's API source hands pods on: decoded and
// validated with the rules the file and URL sources use (src/pod-model), the
// source annotation set to "api", and only the metadata the pod's life on the
// node depends on kept. resourceVersion, status and managedFields are left
// out on purpose: a status write bumps the resourceVersion, and the merger
// must not see that as an edit (the kubelet's checkAndUpdatePod compares the
// spec, labels, annotations and deletion fields only). Pure; never throws.
import type { ApiObject } from '../client/types.js';
import { decodePod, type DecodeProblem } from '../pod-model/pod-decode.js';
import type { Pod } from '../pod-model/pod-types.js';
import { validatePod } from '../pod-model/pod-validate.js';
import { ANNOTATION_MIRROR, ANNOTATION_SOURCE } from './static-pod.js';

export type ApiPodResult = { readonly ok: true; readonly pod: Pod } | { readonly ok: false; readonly error: string };

export interface ApiDecodeOptions {
  /** The SidecarContainers gate, as for the local sources. */
  readonly sidecars: boolean;
}

/** Problems listed in the one message; the rest are counted. */
const MAX_PROBLEMS = 5;

const record = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** A pod with the mirror annotation stands for a static pod of this node: the API source never runs it. */
export function isMirrorPodObject(obj: ApiObject): boolean {
  return typeof record(record(obj['metadata'])['annotations'])[ANNOTATION_MIRROR] === 'string';
}

function describe(problems: readonly DecodeProblem[]): string {
  const shown = problems.slice(0, MAX_PROBLEMS).map((p) => `${p.field || '(root)'}: ${p.message}`);
  if (problems.length > MAX_PROBLEMS) shown.push(`and ${problems.length - MAX_PROBLEMS} more problems`);
  return shown.join('; ');
}

/** `pod` with the deletion fields of `obj` (a later version of it): what a deletion changes. */
export function withDeletionOf(pod: Pod, obj: ApiObject): Pod {
  const meta = record(obj['metadata']);
  if (typeof meta['deletionTimestamp'] !== 'string' || pod.metadata.deletionTimestamp !== undefined) return pod;
  const grace = meta['deletionGracePeriodSeconds'];
  return { ...pod, metadata: { ...pod.metadata, deletionTimestamp: meta['deletionTimestamp'], ...(typeof grace === 'number' ? { deletionGracePeriodSeconds: grace } : {}) } };
}

/**
 * The pod the sync loop runs for `obj`. An object that fails decoding or
 * validation is an error naming the fields; the caller logs it once and
 * skips that pod only.
 */
export function podFromApiObject(obj: ApiObject, opts: ApiDecodeOptions): ApiPodResult {
  try {
    // The list's items carry no kind; the decoder insists on it. Ephemeral
    // containers (kubectl debug) are not run by this agent, and must not make
    // the pod they were added to look invalid (which would stop it).
    const spec = record(obj['spec']);
    const decoded = decodePod({ ...obj, apiVersion: 'v1', kind: 'Pod', spec: { ...spec, ephemeralContainers: undefined }, status: undefined });
    if (!decoded.ok) return { ok: false, error: describe(decoded.problems) };
    const problems = validatePod(decoded.pod, { sidecarContainers: opts.sidecars });
    if (problems.length > 0) return { ok: false, error: describe(problems) };
    const pod = decoded.pod;
    const meta = record(obj['metadata']);
    if (pod.metadata.uid === '') return { ok: false, error: 'metadata.uid: required for a pod from the API server' };
    pod.metadata.annotations = { ...pod.metadata.annotations, [ANNOTATION_SOURCE]: 'api' };
    if (typeof meta['creationTimestamp'] === 'string') pod.metadata.creationTimestamp = meta['creationTimestamp'];
    if (typeof meta['deletionTimestamp'] === 'string') pod.metadata.deletionTimestamp = meta['deletionTimestamp'];
    if (typeof meta['deletionGracePeriodSeconds'] === 'number') pod.metadata.deletionGracePeriodSeconds = meta['deletionGracePeriodSeconds'];
    return { ok: true, pod };
  } catch (e) {
    return { ok: false, error: `the pod could not be decoded: ${e instanceof Error ? e.message : String(e)}` };
  }
}
