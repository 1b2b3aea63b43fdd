// The bodies of the agent's two status patches, as the kubelet builds them
// (pkg/util/node PatchNodeStatus, pkg/util/pod PatchPodStatus): pure, so the
// writers in status-writer.ts only decide whether to send. Both carry
// `metadata.uid` as a precondition: the server rejects the patch (422, uid is
// immutable) when the object was deleted and re-created under the same name,
// instead of writing an old status onto the new object. Keys come out sorted,
// so equal inputs give equal bytes.
import type { ApiObject } from '../types.js';
import { createTwoWayMergePatch, nodeStatusPatch, schemaForKind, type JsonObject } from '../../api/patch/index.js';
import { isObject } from '../../api/patch/json.js';
import { uidOf } from '../meta.js';

/** JSON-form objects (what the codec and JSON.parse give) are JSON values; this only narrows the type. */
const asJson = (o: ApiObject): JsonObject => o as JsonObject;


/** Adds `metadata.uid` to a patch (sorted, as the two-way patch is). */
function withUid(patch: JsonObject, uid: string): JsonObject {
  const meta = isObject(patch['metadata']) ? patch['metadata'] : {};
  const merged: JsonObject = { ...patch, metadata: sortKeys({ ...meta, uid }) };
  return sortKeys(merged);
}

const sortKeys = (o: JsonObject): JsonObject => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]!]));

/** True when the patch says nothing but the uid precondition (or nothing at all). */
function onlyUid(patch: JsonObject): boolean {
  const keys = Object.keys(patch);
  if (keys.length === 0) return true;
  if (keys.length !== 1 || keys[0] !== 'metadata') return false;
  const meta = patch['metadata'];
  return isObject(meta) && Object.keys(meta).every((k) => k === 'uid');
}

/**
 * The strategic-merge patch of `nodes/<name>/status` turning `oldNode` (as
 * the server returned it) into `newNode`: spec reset to the old one,
 * addresses replaced wholesale when they changed (nodeStatusPatch), plus the
 * old node's `metadata.uid`. Undefined when nothing but the uid would be sent.
 */
export function nodeStatusPatchBody(oldNode: ApiObject, newNode: ApiObject): JsonObject | undefined {
  const patch = nodeStatusPatch(asJson(oldNode), asJson(newNode));
  if (onlyUid(patch)) return undefined;
  const uid = uidOf(oldNode);
  return uid === undefined ? patch : withUid(patch, uid);
}

/**
 * The strategic-merge patch of `pods/<name>/status`: the two-way patch from
 * a pod holding only `oldStatus` to one holding `uid` and `newStatus`, so
 * the uid always appears (upstream's precondition). Undefined when the
 * statuses are equal (upstream compares the bytes with `{"metadata":{"uid":…}}`).
 */
export function podStatusPatchBody(uid: string, oldStatus: ApiObject, newStatus: ApiObject): JsonObject | undefined {
  const patch = createTwoWayMergePatch({ status: asJson(oldStatus) }, { metadata: { uid }, status: asJson(newStatus) }, schemaForKind('v1', 'Pod'));
  return onlyUid(patch) ? undefined : patch;
}
