// Where a pod's volumes live on the node: the kubelet's layout under
// --root-dir, renamed (`kubernetes.io~empty-dir` → `platform.io~empty-dir`).
// Pure.
import type { Volume } from '../pod-model/pod-types.js';

export const EMPTY_DIR_PLUGIN = 'platform.io~empty-dir';
export const DOWNWARD_API_PLUGIN = 'platform.io~downward-api';
export const CONFIG_MAP_PLUGIN = 'platform.io~configmap';
export const SECRET_PLUGIN = 'platform.io~secret';
export const PROJECTED_PLUGIN = 'platform.io~projected';

/** `<root>/pods/<uid>`: everything the agent keeps for one pod; removed with the pod. */
export const podDir = (root: string, uid: string): string => `${root}/pods/${uid}`;

/** `<root>/pods/<uid>/volumes`: one directory per plugin below it, one per volume below that. */
export const podVolumesDir = (root: string, uid: string): string => `${podDir(root, uid)}/volumes`;

export const volumeDir = (root: string, uid: string, plugin: string, name: string): string => `${podVolumesDir(root, uid)}/${plugin}/${name}`;

/** The source a volume gives, as the API names it (the first, for a volume validation would refuse). */
export function volumeKind(v: Volume): string {
  if (v.hostPath) return 'hostPath';
  if (v.emptyDir) return 'emptyDir';
  if (v.downwardAPI) return 'downwardAPI';
  return v.otherSources?.[0] ?? 'unknown';
}

/** The host directory a container mount of `v` starts from, given the pod's root and UID. Pure. */
export function volumeHostPath(root: string, uid: string, v: Volume): string | undefined {
  if (v.hostPath) return v.hostPath.path;
  if (v.emptyDir) return volumeDir(root, uid, EMPTY_DIR_PLUGIN, v.name);
  if (v.downwardAPI) return volumeDir(root, uid, DOWNWARD_API_PLUGIN, v.name);
  if (v.configMap) return volumeDir(root, uid, CONFIG_MAP_PLUGIN, v.name);
  if (v.secret) return volumeDir(root, uid, SECRET_PLUGIN, v.name);
  if (v.projected) return volumeDir(root, uid, PROJECTED_PLUGIN, v.name);
  return undefined;
}
