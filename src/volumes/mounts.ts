// A container's CRI mounts from its volumeMounts (the kubelet's makeMounts,
// without the effects): the volume's host path, the subPath or expanded
// subPathExpr below it, read-only and propagation. Pure: called while the
// container's configuration is built; the directories it names are made by
// the manager's prepareMounts just before the container is created.
import type { Container, Pod } from '../pod-model/pod-types.js';
import type { Mount } from '../cri/types.js';
import { volumeHostPath } from './paths.js';

/** A mount the container's configuration cannot have (its reason is the kubelet's CreateContainerConfigError message). */
export class MountConfigError extends Error {
  readonly code = 'MOUNT_CONFIG_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'MountConfigError';
  }
}

/**
 * `$(VAR)` expansion for subPathExpr, as the kubelet's ExpandContainerVolumeMounts:
 * `$$` is a literal `$`, a variable missing from the environment (or empty) is
 * an error naming it (sorted), anything else stays as written.
 */
export function expandSubPathExpr(expr: string, env: ReadonlyMap<string, string>): { ok: true; path: string } | { ok: false; missing: string[] } {
  const missing = new Set<string>();
  const path = expr.replace(/\$\$|\$\(([^)\s]*)\)/g, (m, name: string | undefined) => {
    if (m === '$$') return '$';
    const v = env.get(name!);
    if (v === undefined || v === '') missing.add(name!);
    return v ?? '';
  });
  return missing.size > 0 ? { ok: false, missing: [...missing].sort() } : { ok: true, path };
}

/** The subPath of a mount with subPathExpr expanded; '' for none. Throws MountConfigError as the kubelet refuses it. */
export function mountSubPath(m: NonNullable<Container['volumeMounts']>[number], env: ReadonlyMap<string, string>): string {
  let sub = m.subPath ?? '';
  if (m.subPathExpr !== undefined && m.subPathExpr !== '') {
    const x = expandSubPathExpr(m.subPathExpr, env);
    if (!x.ok) throw new MountConfigError(`missing value for ${x.missing.join(', ')}`);
    sub = x.path;
  }
  if (sub === '') return '';
  if (sub.startsWith('/')) throw new MountConfigError(`error SubPath \`${sub}\` must not be an absolute path`);
  if (sub.split('/').includes('..')) throw new MountConfigError(`unable to provision SubPath \`${sub}\`: must not contain '..'`);
  return sub;
}

const PROPAGATION = { None: 'PRIVATE', HostToContainer: 'HOST_TO_CONTAINER', Bidirectional: 'BIDIRECTIONAL' } as const;

/** Joins a relative subPath below a base, without doubled or trailing slashes. */
export function joinSubPath(base: string, sub: string): string {
  const parts = sub.split('/').filter((p) => p !== '' && p !== '.');
  return parts.length === 0 ? base : `${base.replace(/\/+$/, '')}/${parts.join('/')}`;
}

/**
 * The CRI mounts of container `c` of `pod`, in the order of its volumeMounts.
 * `root` is --root-dir; `env` the container's environment (for subPathExpr).
 */
export function containerMounts(pod: Pod, c: Container, root: string, env: ReadonlyMap<string, string>): Mount[] {
  const volumes = new Map((pod.spec.volumes ?? []).map((v) => [v.name, v]));
  return (c.volumeMounts ?? []).map((m) => {
    const v = volumes.get(m.name);
    const base = v && volumeHostPath(root, pod.metadata.uid, v);
    // Validation makes every mount name a volume; one the node cannot serve never gets here (the pod waits for it).
    if (base === undefined) throw new MountConfigError(`volume "${m.name}" of mount ${m.mountPath} cannot be mounted`);
    const sub = mountSubPath(m, env);
    // API data volumes (downwardAPI, configMap, secret, projected) are always mounted read-only, as the kubelet's mustMountRO.
    const readonly = m.readOnly === true || v!.downwardAPI !== undefined || v!.configMap !== undefined || v!.secret !== undefined || v!.projected !== undefined;
    return { containerPath: m.mountPath, hostPath: sub === '' ? base : joinSubPath(base, sub), readonly, propagation: PROPAGATION[m.mountPropagation ?? 'None'] };
  });
}
