// Static pod identity, as the kubelet gives it (pkg/kubelet/config/common.go):
// name suffixed with the node name, default namespace, a UID, and annotations
// recording source, hash and first-seen time.
//
// One deliberate difference: the kubelet hashes the pod's *content* into the
// UID, so any edit of a manifest makes a new pod and restarts every container.
// Here the UID comes from the pod's identity (namespace, name, node, source
// and location): stable for the same content, so a restarted agent adopts
// what runs, and stable across edits, so an edit is an update in which only
// the containers whose spec changed restart (and the sandbox only when its
// own settings change). The config.hash annotation still hashes the content,
// as the kubelet's does: it changes with every edit (what a mirror pod is
// matched against).
import { createHash } from 'node:crypto';
import type { Pod } from '../pod-model/pod-types.js';
import { canonicalJson } from '../util/canonical-json.js';

export type StaticSource = 'file' | 'http';

export const ANNOTATION_HASH = 'platform.io/config.hash';
export const ANNOTATION_SOURCE = 'platform.io/config.source';
export const ANNOTATION_SEEN = 'platform.io/config.seen';
export const ANNOTATION_MIRROR = 'platform.io/config.mirror';

export function staticPodUid(pod: Pod, node: string, source: StaticSource, location: string): string {
  const h = createHash('md5');
  h.update(`pod:${pod.metadata.namespace || 'default'}/${pod.metadata.name}`);
  h.update(`host:${node}`);
  h.update(source === 'file' ? `file:${location}` : `url:${location}`);
  return h.digest('hex');
}

/** The hash of a static pod's content (as defaulted, before its config annotations), its node and source. */
export function staticPodContentHash(pod: Pod, node: string, source: StaticSource): string {
  return createHash('md5').update(canonicalJson(pod)).update(`host:${node}`).update(`source:${source}`).digest('hex');
}

/** RFC 3339 with nanosecond digits, as the kubelet writes config.seen. */
export function rfc3339Nano(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

/** Returns the pod with the kubelet's static-pod defaults applied; `pod` is not modified. */
export function applyStaticPodDefaults(pod: Pod, node: string, source: StaticSource, location: string, now: Date): Pod {
  const uid = pod.metadata.uid !== '' ? pod.metadata.uid : staticPodUid(pod, node, source, location);
  const out: Pod = structuredClone(pod);
  out.metadata.uid = uid;
  out.metadata.name = `${pod.metadata.name}-${node}`;
  if (out.metadata.namespace === '') out.metadata.namespace = 'default';
  out.spec.nodeName = node;
  if (source === 'file') {
    // File pods tolerate every NoExecute taint: they must run even on a node under pressure.
    out.spec.tolerations = [...(out.spec.tolerations ?? []), { operator: 'Exists', effect: 'NoExecute' }];
  }
  const hash = staticPodContentHash(out, node, source);
  out.metadata.annotations = { ...out.metadata.annotations, [ANNOTATION_HASH]: hash, [ANNOTATION_SOURCE]: source, [ANNOTATION_SEEN]: rfc3339Nano(now) };
  return out;
}

/** Pods equal for the sync loop's purposes: the first-seen time does not count as a change. */
export function sameDesiredPod(a: Pod, b: Pod): boolean {
  if (a === b) return true; // the file source hands back the pod it parsed when the file did not change
  const strip = (p: Pod): unknown => ({ ...p, metadata: { ...p.metadata, annotations: { ...p.metadata.annotations, [ANNOTATION_SEEN]: undefined } }, status: undefined });
  return canonicalJson(strip(a)) === canonicalJson(strip(b));
}
