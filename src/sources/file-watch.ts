// The file source's watch: chokidar on the manifest path and on its parent.
// chokidar stops watching a directory that is removed and does not pick it up
// again when it comes back (it reports the new directory, not its entries), so
// the watch is re-armed whenever the path's identity (device and inode, links
// followed) differs from the one watched: after a removal and re-creation, a
// rename away and back, or a switch to a symbolic link. The parent's watch
// reports the path appearing, which starts the scan that re-arms.
import { basename, dirname } from 'node:path';
import type { FSWatcher } from 'chokidar';

export interface PathWatchOptions {
  readonly path: string;
  /** Called for every change that may concern the manifest path; must not throw. */
  readonly onChange: () => void;
  /** Called when chokidar reports an error; the next rearm() recreates the watch. */
  readonly onError: (e: unknown) => void;
}

export interface PathWatch {
  /** (Re)creates the watch if the path's identity changed since it was made; resolves once it is ready. */
  rearm(identity: string | undefined): Promise<void>;
  close(): Promise<void>;
}

export function createPathWatch(opts: PathWatchOptions): PathWatch {
  const { path } = opts;
  const parent = dirname(path);
  const name = basename(path);
  let watcher: FSWatcher | undefined;
  let watched: string | undefined;
  let broken = false;

  async function open(): Promise<FSWatcher> {
    const { watch } = await import('chokidar');
    const w = watch(parent === path ? [path] : [path, parent], {
      depth: 0,
      ignoreInitial: true,
      // chokidar's atomic-write handling holds every deletion back ~100 ms; the full
      // rescan each event triggers already copes with editors' rename-into-place writes.
      atomic: false,
      // Only the path and its parent are watched: the directory's own inotify watch
      // reports every entry created, written, renamed or deleted in it (its raw
      // events), and each starts a full scan. Watched one by one, 110 new manifests
      // cost 110 more stats, watches and 'add' events (~40 ms of CPU) that add nothing.
      ignored: (p: string) => p !== path && p !== parent,
    });
    w.on('all', (_event: string, p: string) => {
      if (p === path) opts.onChange();
    });
    w.on('raw', (_event: string, p: string, details: unknown) => {
      // The parent's other entries are none of our business.
      const from = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
      if (from !== parent || p === name) opts.onChange();
    });
    w.on('error', (e: unknown) => {
      broken = true;
      opts.onError(e);
    });
    await new Promise<void>((r) => w.once('ready', r));
    return w;
  }

  return {
    async rearm(identity) {
      if (watcher && !broken && identity === watched) return;
      const old = watcher;
      watcher = undefined;
      await old?.close();
      broken = false;
      watched = identity;
      watcher = await open();
    },
    async close() {
      const w = watcher;
      watcher = undefined;
      await w?.close();
    },
  };
}
