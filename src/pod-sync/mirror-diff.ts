// The mirror pod manager's decisions, pure and table-tested: the mirror pod
// object of a static pod (the kubelet's CreateMirrorPod: the static pod's
// metadata and spec, the config.mirror annotation holding its content hash,
// owned by the Node as controller), and the difference between the static
// pods the agent runs and the mirror pods the API holds as the requests that
// close it (create; delete with the uid precondition and create when the
// hash changed or someone deleted it; delete when the static pod went). As
// the kubelet's syncPod and HandlePodCleanups do, every delete is immediate
// (grace period 0): a mirror pod runs nothing.
import type { ApiObject } from '../client/types.js';
import type { Pod } from '../pod-model/pod-types.js';
import { podRef } from '../pod-model/pod-types.js';
import { ANNOTATION_HASH, ANNOTATION_MIRROR, ANNOTATION_SOURCE } from '../sources/static-pod.js';

/** The Node as registered (N's `registered()`): the owner of every mirror pod. */
export interface NodeRef {
  readonly name: string;
  readonly uid: string;
}

/** A mirror pod as the API holds it. */
export interface MirrorRef {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  /** Its config.mirror annotation: the content hash of the static pod it was made from. */
  readonly hash: string;
  /** deletionTimestamp set: someone deleted it gracefully; the agent finishes that (grace 0) and, if still declared, makes it anew. */
  readonly deleting: boolean;
}

export type MirrorAction =
  | { readonly kind: 'create'; readonly pod: Pod }
  /** The static pod changed: the old mirror (uid) goes, a new one is made. */
  | { readonly kind: 'replace'; readonly uid: string; readonly pod: Pod }
  | { readonly kind: 'delete'; readonly name: string; readonly namespace: string; readonly uid: string };

/** Whether `pod` is a static pod (file or URL source), which gets a mirror pod. */
export function isStaticPod(pod: Pod): boolean {
  const s = pod.metadata.annotations[ANNOTATION_SOURCE];
  return s === 'file' || s === 'http';
}

const rec = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The mirror pod an API object is, or undefined when it is not one. */
export function mirrorRefOf(obj: ApiObject): MirrorRef | undefined {
  const meta = rec(obj['metadata']);
  const hash = rec(meta['annotations'])[ANNOTATION_MIRROR];
  if (typeof hash !== 'string') return undefined;
  const s = (k: string): string => (typeof meta[k] === 'string' ? (meta[k] as string) : '');
  return { name: s('name'), namespace: s('namespace'), uid: s('uid'), hash, deleting: s('deletionTimestamp') !== '' };
}

/** The hash a static pod's mirror must carry. */
export const staticHash = (pod: Pod): string => pod.metadata.annotations[ANNOTATION_HASH] ?? '';

/**
 * The requests that make `mirrors` match `statics`. Orphaned mirror pods
 * are deleted only once `allSourcesSeen` (a static source not heard from
 * yet may still declare them) — as the kubelet waits for its sources.
 */
export function mirrorActions(statics: readonly Pod[], mirrors: readonly MirrorRef[], allSourcesSeen: boolean): MirrorAction[] {
  const out: MirrorAction[] = [];
  const byRef = new Map(mirrors.map((m) => [`${m.namespace}/${m.name}`, m]));
  const declared = new Set<string>();
  for (const pod of statics) {
    const ref = podRef(pod);
    declared.add(ref);
    const m = byRef.get(ref);
    if (m === undefined) out.push({ kind: 'create', pod });
    else if (m.deleting || m.hash !== staticHash(pod)) out.push({ kind: 'replace', uid: m.uid, pod });
  }
  if (!allSourcesSeen) return out;
  for (const m of mirrors) if (!declared.has(`${m.namespace}/${m.name}`)) out.push({ kind: 'delete', name: m.name, namespace: m.namespace, uid: m.uid });
  return out;
}

/** The mirror pod of static pod `pod` on `node`: no uid, status or resourceVersion (the server gives them). */
export function mirrorPodObject(pod: Pod, node: NodeRef): ApiObject {
  // The model's own bookkeeping (a volume's otherSources) is no API field.
  const volumes = pod.spec.volumes?.map(({ otherSources: _o, ...v }) => v);
  const spec = JSON.parse(JSON.stringify({ ...pod.spec, ...(volumes === undefined ? {} : { volumes }), nodeName: node.name })) as ApiObject;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: pod.metadata.name,
      namespace: pod.metadata.namespace,
      labels: { ...pod.metadata.labels },
      annotations: { ...pod.metadata.annotations, [ANNOTATION_MIRROR]: staticHash(pod) },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid, controller: true }],
    },
    spec,
  };
}
