// emptyDir volumes: a directory of the pod under --root-dir, on the node's
// disk, or a tmpfs (`medium: Memory`) sized as the SizeMemoryBackedVolumes
// gate (on by default in 1.28) sizes it. Created empty with the pod, kept
// across container restarts, removed with the pod. The size is decided by
// `memoryVolumeSize` (pure); the plugin creates and mounts.
import { chmod, mkdir, stat } from 'node:fs/promises';
import type { Pod, Volume } from '../pod-model/pod-types.js';
import { parseQuantity } from '../config/values/quantity.js';
import { isMountPoint, mountTmpfs, mountsUnder, unmount } from './mounter.js';
import { setVolumeOwnership } from './ownership.js';
import { EMPTY_DIR_PLUGIN } from './paths.js';
import { VolumeSetUpError, type VolumeContext, type VolumePlugin } from './types.js';

/** An emptyDir is writable by every user of the pod (the kubelet's perm for a disk emptyDir). */
const EMPTY_DIR_MODE = 0o777;

const memoryLimit = (c: Pod['spec']['containers'][number]): number | undefined => {
  const q = c.resources.limits['memory'];
  return q === undefined ? undefined : Math.ceil(parseQuantity(q).value);
};

/**
 * The pod's memory limit as its cgroup would have it (ResourceConfigForPod):
 * only when every container declares one, the larger of the app containers'
 * sum and the largest init container's. undefined: the pod is not limited.
 */
export function podMemoryLimit(pod: Pod): number | undefined {
  const app = pod.spec.containers.map(memoryLimit);
  const init = (pod.spec.initContainers ?? []).map(memoryLimit);
  if ([...app, ...init].some((l) => l === undefined)) return undefined;
  const sum = (app as number[]).reduce((a, b) => a + b, 0);
  return Math.max(sum, ...(init as number[]));
}

/**
 * The size of a memory-backed emptyDir (calculateEmptyDirMemorySize with
 * SizeMemoryBackedVolumes on): node allocatable memory, lowered to the pod's
 * memory limit and then to the volume's sizeLimit where those are positive
 * and smaller. `gate` false: 0, the kernel's default (half of memory). Pure.
 */
export function memoryVolumeSize(pod: Pod, v: Volume, nodeMemoryBytes: number, gate = true): number {
  if (!gate) return 0;
  let size = nodeMemoryBytes;
  const podLimit = podMemoryLimit(pod);
  if (podLimit !== undefined && podLimit > 0 && podLimit <= size) size = podLimit;
  const limitText = v.emptyDir?.sizeLimit;
  const sizeLimit = limitText === undefined ? 0 : Math.ceil(parseQuantity(limitText).value);
  if (sizeLimit > 0 && sizeLimit <= size) size = sizeLimit;
  return size;
}

const exists = (p: string): Promise<boolean> => stat(p).then(() => true, () => false);

export interface EmptyDirOptions {
  /** The SizeMemoryBackedVolumes gate. */
  sizeMemoryBackedVolumes: boolean;
}

export function emptyDirPlugin(opts: EmptyDirOptions): VolumePlugin {
  return {
    name: EMPTY_DIR_PLUGIN,
    canSupport: (v) => v.emptyDir !== undefined,
    async setUp(ctx: VolumeContext): Promise<void> {
      const { dir, volume, pod, signal } = ctx;
      const medium = volume.emptyDir!.medium ?? '';
      if (medium !== '' && medium !== 'Memory') throw new VolumeSetUpError(`unknown storage medium "${medium}"`);
      let fresh = false;
      try {
        if (!(await exists(dir))) {
          await mkdir(dir, { recursive: true, mode: EMPTY_DIR_MODE });
          // mkdir's mode is cut by the umask.
          if (medium === '') await chmod(dir, EMPTY_DIR_MODE);
          fresh = true;
        }
        if (medium === 'Memory' && !(await isMountPoint(dir))) {
          const size = memoryVolumeSize(pod, volume, ctx.node.memoryBytes, opts.sizeMemoryBackedVolumes);
          await mountTmpfs(dir, size, signal);
          ctx.log.info('Mounted a memory-backed emptyDir volume', { volume: volume.name, path: dir, sizeBytes: size });
          fresh = true;
        }
        const fsGroup = pod.spec.securityContext?.fsGroup;
        if (fresh && fsGroup !== undefined) await setVolumeOwnership(dir, fsGroup, false, signal);
      } catch (e) {
        if (signal.aborted) throw e;
        throw new VolumeSetUpError((e as Error).message, { cause: e });
      }
    },
    async tearDown(dir: string, signal: AbortSignal): Promise<void> {
      for (const m of await mountsUnder(dir)) await unmount(m.mountPoint, signal);
    },
  };
}
