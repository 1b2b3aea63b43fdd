// configMap and secret volumes (the kubelet's configmap and secret plugins):
// the object's keys as files below `<root>/pods/<uid>/volumes/platform.io~
// configmap|secret/<name>`, written with the atomic writer on every sync of
// the pod, so a change of the object reaches the files within a sync period
// (unchanged content is not rewritten). The object comes from the
// ApiObjectSource (watched while the pod is registered). A missing object
// makes the pod wait with `configmap "x" not found` unless the volume is
// optional. A secret volume's directory is a tmpfs (as the kubelet's, sized
// as a memory-backed emptyDir), so secrets never reach the node's disk; that
// needs root (mount(8)), which the agent has; `secretsInMemory` false keeps
// them on disk (tests without root).
import type { ApiObjectSource } from '../api-objects/index.js';
import { mkdir } from 'node:fs/promises';
import { writeAtomically, type FileProjection } from './atomic-writer.js';
import { keyedPayload, keysOf, notFoundMessage, type KeyedKind } from './api-payload.js';
import { memoryVolumeSize } from './empty-dir.js';
import { isMountPoint, mountTmpfs, mountsUnder, unmount } from './mounter.js';
import { setVolumeOwnership } from './ownership.js';
import { CONFIG_MAP_PLUGIN, SECRET_PLUGIN } from './paths.js';
import { VolumeSetUpError, type VolumeContext, type VolumePlugin } from './types.js';

/** Writes a payload and applies fsGroup when something changed; any failure becomes the VolumeSetUpError the pod waits with. */
export async function writeVolume(ctx: VolumeContext, payload: ReadonlyMap<string, FileProjection>, what: string): Promise<void> {
  const { pod, volume, dir, signal } = ctx;
  try {
    const wrote = await writeAtomically(dir, payload);
    if (!wrote) return;
    const fsGroup = pod.spec.securityContext?.fsGroup;
    if (fsGroup !== undefined) await setVolumeOwnership(dir, fsGroup, true, signal);
    ctx.log.info(`Wrote the files of a ${what} volume`, { volume: volume.name, path: dir, files: payload.size });
  } catch (e) {
    if (signal.aborted) throw e;
    throw e instanceof VolumeSetUpError ? e : new VolumeSetUpError((e as Error).message, { cause: e });
  }
}

/** The keys of the object, undefined when it does not exist; a read failure is the VolumeSetUpError the pod waits with. */
export async function readKeys(source: ApiObjectSource, kind: KeyedKind, ns: string, name: string, signal: AbortSignal): Promise<Map<string, string | Uint8Array> | undefined> {
  try {
    const obj = kind === 'configmap' ? await source.configMap(ns, name, signal) : await source.secret(ns, name, signal);
    return obj === undefined ? undefined : keysOf(kind, obj);
  } catch (e) {
    if (signal.aborted) throw e;
    throw new VolumeSetUpError((e as Error).message, { cause: e });
  }
}

/** Mounts the tmpfs a secret volume lives on, once (a mount already there is kept across syncs and agent restarts). */
async function ensureTmpfs(ctx: VolumeContext): Promise<void> {
  const { dir, signal } = ctx;
  try {
    await mkdir(dir, { recursive: true, mode: 0o755 });
    if (await isMountPoint(dir)) return;
    const size = memoryVolumeSize(ctx.pod, { name: ctx.volume.name, emptyDir: { medium: 'Memory' } }, ctx.node.memoryBytes);
    await mountTmpfs(dir, size, signal);
    ctx.log.info('Mounted the tmpfs of a secret volume', { volume: ctx.volume.name, path: dir, sizeBytes: size });
  } catch (e) {
    if (signal.aborted) throw e;
    throw new VolumeSetUpError((e as Error).message, { cause: e });
  }
}

function keyedPlugin(kind: KeyedKind, source: ApiObjectSource, inMemory: boolean): VolumePlugin {
  return {
    name: kind === 'configmap' ? CONFIG_MAP_PLUGIN : SECRET_PLUGIN,
    canSupport: (v) => (kind === 'configmap' ? v.configMap !== undefined : v.secret !== undefined),
    async setUp(ctx: VolumeContext): Promise<void> {
      const { pod, volume, signal } = ctx;
      const src = kind === 'configmap' ? volume.configMap! : { ...volume.secret!, name: volume.secret!.secretName ?? '' };
      const keys = await readKeys(source, kind, pod.metadata.namespace, src.name, signal);
      if (keys === undefined && src.optional !== true) throw new VolumeSetUpError(notFoundMessage(kind, src.name));
      if (inMemory) await ensureTmpfs(ctx);
      await writeVolume(ctx, keyedPayload(kind, keys, src, src.defaultMode ?? 0o644, pod.spec.securityContext?.fsGroup), kind === 'configmap' ? 'configMap' : 'secret');
    },
    // The tmpfs of a secret volume is unmounted; the manager removes the directory.
    async tearDown(dir: string, signal: AbortSignal): Promise<void> {
      for (const m of await mountsUnder(dir)) await unmount(m.mountPoint, signal);
    },
  };
}

export const configMapPlugin = (source: ApiObjectSource): VolumePlugin => keyedPlugin('configmap', source, false);
/** `inMemory`: the volume is a tmpfs (the kubelet's way; needs root). */
export const secretPlugin = (source: ApiObjectSource, inMemory = true): VolumePlugin => keyedPlugin('secret', source, inMemory);
