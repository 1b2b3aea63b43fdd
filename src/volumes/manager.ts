// The volume manager (the kubelet's volumemanager, narrowed to what a node
// does on its own): before a pod's containers start, every volume of the pod
// is set up by the plugin that serves it; when the pod is gone, its volumes
// are torn down and its directory under --root-dir removed. Called by the pod
// sync (src/pods/sync-pod.ts), one call at a time per pod; calls for
// different pods run concurrently and share nothing but the log.
import { chmod, mkdir, readdir, realpath, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Container, Pod, Volume } from '../pod-model/pod-types.js';
import type { Mount } from '../cri/types.js';
import type { AgentLogger } from '../log/index.js';
import { mountsUnder, unmount } from './mounter.js';
import { podDir, podVolumesDir, volumeDir, volumeHostPath, volumeKind } from './paths.js';
import { VolumeSetUpError, type NodeFacts, type VolumePlugin, type VolumesOutcome } from './types.js';

export interface VolumeManager {
  /**
   * Sets up every volume of the pod, hostPath checks first, stopping at the
   * first that is not ready (so a pod waiting for one makes nothing else).
   * Idempotent: each sync calls it again; a kind that follows the pod
   * (downwardAPI) is refreshed, the others are done once. Never throws for a
   * volume that is not ready (that is the outcome); rejects when aborted.
   */
  setUp(pod: Pod, signal: AbortSignal): Promise<VolumesOutcome>;
  /**
   * Makes the subPath directories a container's mounts name (created as a
   * directory with the volume's mode when missing, as the kubelet does) and
   * refuses one that leaves its volume through a symlink. Called just before
   * the container is created. Throws VolumeSetUpError.
   */
  prepareSubPaths(pod: Pod, container: Container, mounts: readonly Mount[], signal: AbortSignal): Promise<void>;
  /** Unmounts and removes everything the pod has under --root-dir. Idempotent; throws when a mount stays. */
  tearDown(uid: string, signal: AbortSignal): Promise<void>;
  /** Tears down the pod directories under --root-dir whose UID `keep` refuses (pods gone while the agent was not looking). */
  cleanupOrphans(keep: (uid: string) => boolean, signal: AbortSignal): Promise<void>;
}

export interface VolumeManagerOptions {
  /** --root-dir. */
  rootDirectory: string;
  node: NodeFacts;
  /** The plugins, tried in order: the first that can serve a volume does. */
  plugins: readonly VolumePlugin[];
  log: AgentLogger;
}

/** The message a pod waits with for a kind no plugin serves (configMap, secret, ...). */
export const unservableMessage = (v: Volume): string => `volume "${v.name}" (${volumeKind(v)}) cannot be served by a standalone agent: no API server`;

/** hostPath volumes first: their checks are what usually fails, and then nothing else of the pod is made. Stable otherwise. Pure. */
export function setUpOrder(volumes: readonly Volume[]): Volume[] {
  return [...volumes.filter((v) => v.hostPath), ...volumes.filter((v) => !v.hostPath)];
}

const exists = (p: string): Promise<boolean> => stat(p).then(() => true, () => false);

/** A UID that is safe as one path element. */
const safeUid = (uid: string): boolean => uid !== '' && uid !== '.' && uid !== '..' && !uid.includes('/');

export function createVolumeManager(opts: VolumeManagerOptions): VolumeManager {
  const root = resolve(opts.rootDirectory);
  const log = opts.log;
  const { plugins, node } = opts;
  const byName = new Map(plugins.map((p) => [p.name, p]));
  /** Per pod: the volumes set up once and for all (by their spec), and the last failure logged per volume. */
  const done = new Map<string, Set<string>>();
  const lastFailure = new Map<string, Map<string, string>>();

  const fail = (pod: Pod, v: Volume, error: VolumeSetUpError, unservable: boolean): VolumesOutcome => {
    const message = `MountVolume.SetUp failed for volume "${v.name}" : ${error.message}`;
    const seen = lastFailure.get(pod.metadata.uid) ?? new Map<string, string>();
    lastFailure.set(pod.metadata.uid, seen);
    // Logged when it changes, not on every retry of the pod.
    if (seen.get(v.name) !== message) {
      seen.set(v.name, message);
      const fields = { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, podUID: pod.metadata.uid, volume: v.name, kind: volumeKind(v) };
      if (unservable) log.warn(unservableMessage(v), fields);
      else log.warn('MountVolume.SetUp failed', { ...fields, err: error.message });
    }
    return { ready: false, volume: v.name, kind: volumeKind(v), message, error };
  };

  const setUp = async (pod: Pod, signal: AbortSignal): Promise<VolumesOutcome> => {
    const uid = pod.metadata.uid;
    if (!safeUid(uid)) throw new Error(`pod UID ${JSON.stringify(uid)} cannot name a directory`);
    const once = done.get(uid) ?? new Set<string>();
    done.set(uid, once);
    const podLog = log.child({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, podUID: uid });
    for (const v of setUpOrder(pod.spec.volumes ?? [])) {
      const plugin = plugins.find((p) => p.canSupport(v));
      if (!plugin) return fail(pod, v, new VolumeSetUpError(`${volumeKind(v)} volumes cannot be served by a standalone agent: no API server`), true);
      const key = JSON.stringify(v);
      if (once.has(key)) continue;
      try {
        await plugin.setUp({ pod, volume: v, dir: volumeDir(root, uid, plugin.name, v.name), node, log: podLog, signal });
      } catch (e) {
        if (signal.aborted) throw e;
        return fail(pod, v, e instanceof VolumeSetUpError ? e : new VolumeSetUpError((e as Error).message, { cause: e }), false);
      }
      lastFailure.get(uid)?.delete(v.name);
      // Kinds whose content follows the pod or the API (downwardAPI, configMap, secret, projected) are refreshed on every sync.
      if (!v.downwardAPI && !v.configMap && !v.secret && !v.projected) once.add(key);
    }
    return { ready: true };
  };

  const prepareSubPaths = async (pod: Pod, c: Container, mounts: readonly Mount[], signal: AbortSignal): Promise<void> => {
    const volumes = new Map((pod.spec.volumes ?? []).map((v) => [v.name, v]));
    for (const m of c.volumeMounts ?? []) {
      if (!m.subPath && !m.subPathExpr) continue;
      const v = volumes.get(m.name);
      const base = v && volumeHostPath(root, pod.metadata.uid, v);
      const host = mounts.find((x) => x.containerPath === m.mountPath)?.hostPath;
      if (base === undefined || host === undefined || host === base) continue;
      signal.throwIfAborted();
      try {
        if (!(await exists(host))) {
          // The kubelet makes a missing subPath a directory with the volume's own mode (umask aside), so that fsGroup permissions carry over.
          const mode = (await stat(base)).mode & 0o7777;
          let at = base;
          for (const part of host.slice(base.length + 1).split('/')) {
            at = `${at}/${part}`;
            if (await exists(at)) continue;
            await mkdir(at, { mode });
            await chmod(at, mode);
          }
        }
        const [realBase, realHost] = [await realpath(base), await realpath(host)];
        if (realHost !== realBase && !realHost.startsWith(`${realBase}/`)) throw new Error(`subpath "${realHost}" not within volume path "${realBase}"`);
      } catch (e) {
        log.error('Failed to prepare subPath for volumeMount of the container', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, container: c.name, volumeMount: m.name, err: e });
        throw new VolumeSetUpError(`failed to prepare subPath for volumeMount "${m.name}" of container "${c.name}"`, { cause: e });
      }
    }
  };

  const tearDown = async (uid: string, signal: AbortSignal): Promise<void> => {
    if (!safeUid(uid)) return;
    const dir = podDir(root, uid);
    const volumes = podVolumesDir(root, uid);
    for (const pluginDir of await readdir(volumes).catch(() => [] as string[])) {
      const plugin = byName.get(pluginDir);
      for (const name of await readdir(`${volumes}/${pluginDir}`).catch(() => [] as string[])) await plugin?.tearDown(`${volumes}/${pluginDir}/${name}`, signal);
    }
    // Whatever is still mounted below the pod (a plugin unknown to this agent's version): unmounted deepest first.
    for (const m of await mountsUnder(dir)) await unmount(m.mountPoint, signal);
    const left = await mountsUnder(dir);
    if (left.length > 0) throw new Error(`pod directory ${dir} still has mounts (${left.map((m) => m.mountPoint).join(', ')}): not removed`);
    await rm(dir, { recursive: true, force: true });
    done.delete(uid);
    lastFailure.delete(uid);
    log.v(2)?.info('Removed the volumes of a pod', { podUID: uid, path: dir });
  };

  const cleanupOrphans = async (keep: (uid: string) => boolean, signal: AbortSignal): Promise<void> => {
    // A pod that waited and went without a directory leaves only what this manager remembers of it.
    for (const uid of [...done.keys(), ...lastFailure.keys()]) {
      if (!keep(uid)) {
        done.delete(uid);
        lastFailure.delete(uid);
      }
    }
    for (const uid of await readdir(`${root}/pods`).catch(() => [] as string[])) {
      if (keep(uid)) continue;
      try {
        await tearDown(uid, signal);
      } catch (e) {
        if (signal.aborted) throw e;
        log.warn('Could not remove an orphaned pod directory', { podUID: uid, err: e });
      }
    }
  };

  return { setUp, prepareSubPaths, tearDown, cleanupOrphans };
}
