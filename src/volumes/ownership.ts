// fsGroup on a volume's files (the kubelet's SetVolumeOwnership with the
// default fsGroupChangePolicy, Always): every file and directory gets the
// group, group read (and write unless the volume is read-only) permission,
// directories also group search and setgid so that new files inherit the
// group. Symlinks get the group only. Effects on the filesystem; may block on
// a large volume (it walks all of it).
import { chmod, lchown, lstat, readdir } from 'node:fs/promises';

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;
/** The bits chmod(2) takes: permissions, sticky, setgid, setuid. */
const MODE_BITS = 0o7777;

/** The mode a file gets for fsGroup (changeFilePermission). Pure. */
export function fsGroupMode(mode: number, isDir: boolean, readOnly: boolean): number {
  let mask = readOnly ? RO_MASK : RW_MASK;
  if (isDir) mask |= SETGID | EXEC_MASK;
  return (mode & MODE_BITS) | mask;
}

/** Applies fsGroup below (and on) `dir`; `readOnly` volumes get read permission only. */
export async function setVolumeOwnership(dir: string, fsGroup: number, readOnly: boolean, signal: AbortSignal): Promise<void> {
  const walk = async (path: string): Promise<void> => {
    signal.throwIfAborted();
    const st = await lstat(path);
    await lchown(path, -1, fsGroup);
    if (st.isSymbolicLink()) return;
    await chmod(path, fsGroupMode(st.mode, st.isDirectory(), readOnly));
    if (!st.isDirectory()) return;
    for (const name of await readdir(path)) await walk(`${path}/${name}`);
  };
  await walk(dir);
}
