// The only code of the agent that mounts and unmounts: tmpfs for memory-backed
// emptyDir volumes, through mount(8)/umount(8) as child processes (the agent
// runs as root), and the kernel's list of mount points
// (/proc/self/mountinfo). Each call may block on the child process; each takes
// the caller's signal, which kills the child.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

const MOUNT_TIMEOUT_MS = 30_000;

function run(cmd: string, args: readonly string[], signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { signal, timeout: MOUNT_TIMEOUT_MS }, (err, _stdout, stderr) => {
      if (!err) return resolve();
      const detail = String(stderr).trim();
      reject(new Error(`${cmd} ${args.join(' ')} failed: ${detail || err.message}`, { cause: err }));
    });
  });
}

/** Mounts a tmpfs on `dir`; `sizeBytes` 0 leaves the kernel's default (half of memory). */
export function mountTmpfs(dir: string, sizeBytes: number, signal: AbortSignal): Promise<void> {
  const opts = sizeBytes > 0 ? ['-o', `size=${sizeBytes}`] : [];
  return run('mount', ['-t', 'tmpfs', ...opts, 'tmpfs', dir], signal);
}

/** Unmounts `dir` (the topmost mount there). */
export function unmount(dir: string, signal: AbortSignal): Promise<void> {
  return run('umount', [dir], signal);
}

/** One line of /proc/self/mountinfo, the fields the volume layer reads. */
export interface MountInfo {
  mountPoint: string;
  fsType: string;
  /** The super block options (`rw,size=1024k`). */
  superOptions: string;
}

/** mountinfo escapes space, tab, newline and backslash as `\ooo`. */
const unescape = (s: string): string => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/** Parses /proc/self/mountinfo (proc(5)). Pure; lines it cannot read are skipped. */
export function parseMountInfo(text: string): MountInfo[] {
  const out: MountInfo[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    const sep = f.indexOf('-', 6);
    if (f.length < 10 || sep < 0 || f.length < sep + 4) continue;
    out.push({ mountPoint: unescape(f[4]!), fsType: f[sep + 1]!, superOptions: f[sep + 3]! });
  }
  return out;
}

/** The mounts at `dir` or below it, deepest first (the order to unmount them in). */
export async function mountsUnder(dir: string): Promise<MountInfo[]> {
  const all = parseMountInfo(await readFile('/proc/self/mountinfo', 'utf8'));
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return all.filter((m) => m.mountPoint === dir || m.mountPoint.startsWith(prefix)).sort((a, b) => b.mountPoint.length - a.mountPoint.length);
}

/** Whether something is mounted exactly at `dir`. */
export async function isMountPoint(dir: string): Promise<boolean> {
  return (await mountsUnder(dir)).some((m) => m.mountPoint === dir);
}
