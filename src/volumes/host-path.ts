// hostPath volumes: a path of the node given to the pod as it is, after the
// check its `type` asks for (the kubelet's hostPath plugin and checkType).
// `checkHostPath` decides from what is at the path (pure); the plugin stats
// the path, creates what *OrCreate asks for and reports a failed check with
// the kubelet's message. Nothing is mounted: the runtime bind-mounts the path.
import { constants } from 'node:fs';
import { lstat, mkdir, open, stat } from 'node:fs/promises';
import type { Volume } from '../pod-model/pod-types.js';
import { VolumeSetUpError, type VolumeContext, type VolumePlugin } from './types.js';

/** What is at a path, as the check reads it (stat(2) follows symlinks, as Go's os.Stat). */
export type PathKind = 'missing' | 'directory' | 'file' | 'socket' | 'char-device' | 'block-device' | 'other';

export type HostPathDecision = { do: 'nothing' } | { do: 'mkdir' } | { do: 'create-file' } | { do: 'fail'; message: string };

const NOT_A: Record<string, string> = {
  Directory: 'a directory',
  File: 'a file',
  Socket: 'a socket file',
  CharDevice: 'a character device',
  BlockDevice: 'a block device',
};
const WANTED: Record<string, PathKind> = { Directory: 'directory', File: 'file', Socket: 'socket', CharDevice: 'char-device', BlockDevice: 'block-device' };

/** The kubelet's checkType: what to do about `path` of `type`, given what is there. Pure. */
export function checkHostPath(path: string, type: string | undefined, kind: PathKind): HostPathDecision {
  let t = type ?? '';
  if (t === '') return { do: 'nothing' };
  if (t === 'DirectoryOrCreate') {
    if (kind === 'missing') return { do: 'mkdir' };
    t = 'Directory';
  } else if (t === 'FileOrCreate') {
    if (kind === 'missing') return { do: 'create-file' };
    t = 'File';
  }
  const wanted = WANTED[t];
  if (wanted === undefined) return { do: 'fail', message: `${t} is an invalid volume type` };
  return kind === wanted ? { do: 'nothing' } : { do: 'fail', message: `hostPath type check failed: ${path} is not ${NOT_A[t]}` };
}

/** What is at `path` (following symlinks). */
export async function pathKind(path: string): Promise<PathKind> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      // A dangling symlink exists but points nowhere: neither missing (it would be created over) nor anything wanted.
      return (await lstat(path).then(() => true, () => false)) ? 'other' : 'missing';
    }
    throw e;
  }
  if (st.isDirectory()) return 'directory';
  if (st.isFile()) return 'file';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'char-device';
  if (st.isBlockDevice()) return 'block-device';
  return 'other';
}

/** DirectoryOrCreate makes 0755 directories, FileOrCreate a 0644 file (not its parents, as the kubelet's makeFile). */
const DIR_MODE = 0o755;
const FILE_MODE = 0o644;

export const hostPathPlugin: VolumePlugin = {
  name: 'platform.io~host-path',
  canSupport: (v: Volume) => v.hostPath !== undefined,
  async setUp(ctx: VolumeContext): Promise<void> {
    const { path, type } = ctx.volume.hostPath!;
    const d = checkHostPath(path, type, await pathKind(path));
    try {
      if (d.do === 'mkdir') {
        await mkdir(path, { recursive: true, mode: DIR_MODE });
        ctx.log.info('Created the directory of a hostPath volume', { volume: ctx.volume.name, path });
      } else if (d.do === 'create-file') {
        // O_CREAT without O_EXCL: a file created meanwhile by someone else is fine.
        const fh = await open(path, constants.O_CREAT | constants.O_RDONLY, FILE_MODE);
        await fh.close();
        ctx.log.info('Created the file of a hostPath volume', { volume: ctx.volume.name, path });
      }
    } catch (e) {
      throw new VolumeSetUpError((e as Error).message, { cause: e });
    }
    if (d.do === 'fail') throw new VolumeSetUpError(d.message);
  },
  // The path is the node's: nothing of it is the pod's to remove.
  async tearDown(): Promise<void> {},
};
