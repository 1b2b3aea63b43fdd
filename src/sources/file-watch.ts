// The file source's watch. Two watches, each for what it does best:
// - the manifest path itself (a directory, or one file) through fs.watch: its
//   inotify events only say "something changed", which is all a scan needs,
//   and cost nothing more. chokidar re-read and stat'ed the whole directory on
//   every event: with 200 bad files dropped next to 105 manifests that was
//   ~2.5 s of the event loop's time (bench/sources.mjs);
// - its parent through chokidar, filtered to the path's name: the path being
//   removed, created, renamed or swapped for a symbolic link.
// fs.watch keeps watching the inode it was given: a directory removed and
// made again (even with its old inode, which ext4 hands out again) is a new
// directory to watch. So the watch is re-armed whenever the path's identity
// (device and inode, links followed) differs from the one watched, or the
// parent reported the path itself changing; the scan that the parent's event
// starts does the re-arming.
import { watch as fsWatch, type FSWatcher as FsWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { FSWatcher } from 'chokidar';

export interface PathWatchOptions {
  readonly path: string;
  /**
   * Called for every change that may concern the manifest path, with the name
   * of the entry of the directory that changed when the kernel says which
   * (undefined: anything may have changed); must not throw.
   */
  readonly onChange: (entry?: string) => void;
  /** Called when a watch reports an error; the next rearm() recreates the watch. */
  readonly onError: (e: unknown) => void;
}

export interface PathWatch {
  /**
   * (Re)creates the watch if the path's identity changed since it was made, or
   * the path itself was removed, created or renamed meanwhile; resolves once it
   * is ready, with whether it was (re)created (events may have been missed).
   */
  rearm(identity: string | undefined): Promise<boolean>;
  close(): Promise<void>;
}

export function createPathWatch(opts: PathWatchOptions): PathWatch {
  const { path } = opts;
  const parent = dirname(path);
  const name = basename(path);
  let own: FsWatcher | undefined;
  let parentWatch: FSWatcher | undefined;
  let watched: string | undefined;
  let stale = true;

  const markStale = (): void => {
    stale = true;
    opts.onChange();
  };

  /** The path's own watch; none while the path is missing (the parent's reports its return). */
  function watchPath(): FsWatcher | undefined {
    try {
      // Not persistent: the agent's own loop keeps the process alive, and a test's need not wait for it.
      const w = fsWatch(path, { persistent: false }, (_event, entry) => opts.onChange(typeof entry === 'string' ? entry : undefined));
      w.on('error', (e) => {
        stale = true;
        opts.onError(e);
      });
      return w;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') opts.onError(e);
      return undefined;
    }
  }

  async function watchParent(): Promise<FSWatcher | undefined> {
    if (parent === path) return undefined;
    const { watch } = await import('chokidar');
    const w = watch(parent, { depth: 0, ignoreInitial: true, atomic: false, ignored: (p: string) => p !== parent && p !== path });
    w.on('all', (_event: string, p: string) => {
      if (p === path) markStale();
    });
    w.on('raw', (_event: string, p: string) => {
      if (p === name) markStale();
    });
    w.on('error', (e: unknown) => opts.onError(e));
    await new Promise<void>((r) => w.once('ready', r));
    return w;
  }

  return {
    async rearm(identity) {
      parentWatch ??= await watchParent();
      if (own !== undefined && !stale && identity === watched) return false;
      own?.close();
      stale = false;
      watched = identity;
      own = watchPath();
      return true;
    },
    async close() {
      own?.close();
      own = undefined;
      const p = parentWatch;
      parentWatch = undefined;
      await p?.close();
    },
  };
}
