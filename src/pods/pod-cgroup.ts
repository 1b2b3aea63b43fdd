// The pod's own cgroup, made only for --pod-max-pids (the kubelet's pod
// container manager sets pids.max on the pod cgroup). The agent has no QoS
// cgroup tree, so a pod with a PID limit gets <root>/pod<uid> (root:
// --cgroup-root, else /platformpods) as its sandbox's cgroup_parent: with
// the cgroupfs driver the runtime puts the sandbox and every container of the
// pod below it, and the kernel counts their processes together against the
// pod's pids.max. Without a limit nothing is made and the runtime's default
// parent stays (cgroup_parent '').
//
// Called by the pod sync: ensure() before the sandbox is created (idempotent:
// an existing cgroup gets the limit again), remove() after the pod's sandboxes
// are removed (the runtime has then removed the containers' own cgroups).
import { mkdir, readdir, rmdir, stat, statfs, writeFile } from 'node:fs/promises';
import type { Pod } from '../pod-model/pod-types.js';
import type { AgentLogger } from '../log/index.js';

/** The pod cgroups' parent when --cgroup-root is '' (the kubelet's is /kubepods). */
export const DEFAULT_POD_CGROUP_ROOT = '/platformpods';

/** cgroup v2's filesystem magic as statfs reports it. */
const CGROUP2_SUPER_MAGIC = 0x63677270;

export interface PodCgroupSettings {
  /** --pod-max-pids: a positive value limits each pod; -1 or 0: no limit. */
  podPidsLimit: number;
  /** --cgroup-root ('' for the default). */
  cgroupRoot: string;
  /** --cgroup-driver: only cgroupfs paths are made here. */
  cgroupDriver: string;
}

/** Whether pods get a cgroup of their own. Pure. */
export const podCgroupsEnabled = (s: PodCgroupSettings): boolean => s.podPidsLimit > 0 && s.cgroupDriver === 'cgroupfs';

/** The cgroup path of a pod (`/platformpods/pod<uid>`), as a runtime's cgroup_parent. Pure. */
export function podCgroupName(uid: string, cgroupRoot: string): string {
  const root = cgroupRoot === '' || cgroupRoot === '/' ? DEFAULT_POD_CGROUP_ROOT : cgroupRoot.replace(/\/+$/, '');
  return `${root.startsWith('/') ? '' : '/'}${root}/pod${uid}`;
}

export interface PodCgroups {
  /** The cgroup_parent a pod's sandbox is given ('' when pods get no cgroup). Pure. */
  parentOf(pod: Pod): string;
  /** Makes the pod's cgroup and writes its pids.max. Throws when the cgroup filesystem refuses. */
  ensure(pod: Pod): Promise<void>;
  /** Removes the pod's cgroup directories; a missing one is fine, a busy one is logged. Never throws. */
  remove(uid: string): Promise<void>;
}

/** A pod cgroup manager over the cgroup filesystem at `mount` (/sys/fs/cgroup; a temporary directory in tests). */
export function createPodCgroups(s: PodCgroupSettings, log: AgentLogger, mount = '/sys/fs/cgroup'): PodCgroups {
  const enabled = podCgroupsEnabled(s);
  if (s.podPidsLimit > 0 && !enabled) log.warn('The pod PID limit needs --cgroup-driver=cgroupfs; pods get no limit', { podPidsLimit: s.podPidsLimit, cgroupDriver: s.cgroupDriver });
  let unified: Promise<boolean> | undefined;
  const isUnified = (): Promise<boolean> => (unified ??= statfs(mount).then((st) => st.type === CGROUP2_SUPER_MAGIC, () => false));
  return {
    parentOf: (pod) => (enabled ? podCgroupName(pod.metadata.uid, s.cgroupRoot) : ''),
    async ensure(pod) {
      if (!enabled) return;
      const name = podCgroupName(pod.metadata.uid, s.cgroupRoot);
      if (await isUnified()) {
        // v2: the pids controller must be enabled for the children of each ancestor.
        const parts = name.split('/').filter((x) => x !== '');
        let dir = mount;
        for (const part of parts) {
          await writeFile(`${dir}/cgroup.subtree_control`, '+pids').catch(() => {});
          dir = `${dir}/${part}`;
          await mkdir(dir, { recursive: true });
        }
        await writeFile(`${dir}/pids.max`, String(s.podPidsLimit));
        return;
      }
      // v1: the runtime makes the other controllers' directories of the same path itself.
      const dir = `${mount}/pids${name}`;
      await mkdir(dir, { recursive: true });
      await writeFile(`${dir}/pids.max`, String(s.podPidsLimit));
    },
    async remove(uid) {
      if (!enabled) return;
      const name = podCgroupName(uid, s.cgroupRoot);
      const dirs = (await isUnified()) ? [`${mount}${name}`] : (await controllers(mount)).map((c) => `${mount}/${c}${name}`);
      for (const dir of dirs) {
        try {
          await rmdir(dir);
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code !== 'ENOENT' && code !== 'ENOTDIR') log.warn('Could not remove the pod cgroup', { path: dir, err: e });
        }
      }
    },
  };
}

/** The v1 controller mounts under `mount` (symlinks such as cpu → cpu,cpuacct skipped: their target is listed). */
async function controllers(mount: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(mount, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory()) out.push(e.name);
    else if (!e.isSymbolicLink() && (await stat(`${mount}/${e.name}`).catch(() => undefined))?.isDirectory()) out.push(e.name);
  }
  return out;
}
