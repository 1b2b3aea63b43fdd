// Public surface of the volume layer: the manager with the plugins a node
// serves on its own (hostPath, emptyDir on disk and in memory, downwardAPI),
// the pure mount computation the container configuration uses, and the
// plugin contract that API-backed kinds (configMap, secret, projected,
// clusterTrustBundle) will implement once an API server exists.
import type { AgentLogger } from '../log/index.js';
import type { ApiObjectSource } from '../api-objects/index.js';
import { configMapPlugin, secretPlugin } from './api-volumes.js';
import { projectedPlugin, type ProjectedOptions } from './projected.js';
import { downwardApiPlugin } from './downward-api.js';
import { emptyDirPlugin } from './empty-dir.js';
import { checkHostPath, hostPathPlugin, pathKind } from './host-path.js';
import { createVolumeManager, unservableMessage, type VolumeManager } from './manager.js';
import { volumeKind } from './paths.js';
import type { Pod } from '../pod-model/pod-types.js';
import type { NodeFacts, VolumePlugin } from './types.js';

export { containerMounts, MountConfigError } from './mounts.js';
export { unservableMessage, type VolumeManager } from './manager.js';
export { createOrphanCleanup, type OrphanCleanupOptions } from './orphans.js';
export { VolumeSetUpError, type NodeFacts, type VolumeContext, type VolumePlugin, type VolumesOutcome } from './types.js';
export { podDir, volumeHostPath } from './paths.js';
export { configMapPlugin, secretPlugin } from './api-volumes.js';
export { projectedPlugin, type ProjectedOptions } from './projected.js';

/**
 * The plugins of the API-backed kinds (configMap, secret, projected) reading
 * through `source`, for VolumesInput.extraPlugins in API-server mode; a
 * standalone agent passes none and such pods keep waiting. Secret volumes are
 * tmpfs mounts unless `secretsInMemory` is false.
 */
export function apiVolumePlugins(source: ApiObjectSource, opts: ProjectedOptions & { secretsInMemory?: boolean }): VolumePlugin[] {
  return [configMapPlugin(source), secretPlugin(source, opts.secretsInMemory ?? true), projectedPlugin(source, opts)];
}

export interface VolumesInput {
  /** --root-dir: volumes live under <root>/pods/<uid>/volumes. */
  rootDirectory: string;
  node: NodeFacts;
  /** The SizeMemoryBackedVolumes feature gate (on by default in 1.28). */
  sizeMemoryBackedVolumes: boolean;
  log: AgentLogger;
  /** Plugins tried before the built-in ones (API-backed kinds, tests). */
  extraPlugins?: readonly VolumePlugin[];
}

/**
 * The volumes of `pod` that no built-in plugin serves (configMap, secret, ...):
 * the pod waits for them on a standalone node. Pure; for callers that show
 * the plan without setting anything up (e.g. a dry run of the sync).
 */
export function unservableVolumes(pod: Pod): Array<{ volume: string; kind: string; message: string }> {
  const plugins = builtInPlugins(true);
  return (pod.spec.volumes ?? []).filter((v) => !plugins.some((p) => p.canSupport(v))).map((v) => ({ volume: v.name, kind: volumeKind(v), message: unservableMessage(v) }));
}

/**
 * What a sync would wait for in `pod`'s volumes now, read without changing
 * anything: the kinds this node cannot serve, and hostPath type checks that
 * fail on what is at the path (a path the sync would create is no wait).
 * Reads the filesystem; for a dry run of the sync (--print-plan).
 */
export async function volumeWaits(pod: Pod): Promise<Array<{ volume: string; message: string }>> {
  const out: Array<{ volume: string; message: string }> = unservableVolumes(pod).map(({ volume, message }) => ({ volume, message }));
  for (const v of pod.spec.volumes ?? []) {
    if (!v.hostPath) continue;
    const d = checkHostPath(v.hostPath.path, v.hostPath.type, await pathKind(v.hostPath.path));
    if (d.do === 'fail') out.push({ volume: v.name, message: `MountVolume.SetUp failed for volume "${v.name}" : ${d.message}` });
  }
  return out;
}

const builtInPlugins = (sizeMemoryBackedVolumes: boolean): VolumePlugin[] => [hostPathPlugin, emptyDirPlugin({ sizeMemoryBackedVolumes }), downwardApiPlugin];

/** The node's volume manager with its built-in plugins; logs as component `volumes`. */
export function createVolumes(inp: VolumesInput): VolumeManager {
  const plugins = [...(inp.extraPlugins ?? []), ...builtInPlugins(inp.sizeMemoryBackedVolumes)];
  return createVolumeManager({ rootDirectory: inp.rootDirectory, node: inp.node, plugins, log: inp.log.child({ component: 'volumes' }) });
}
