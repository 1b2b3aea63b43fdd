// The file source (--pod-manifest-path): a directory read non-recursively, or
// one file. Files whose name starts with a dot are ignored. Every change —
// seen by the chokidar watch at once, or by the full rescan every
// --file-check-frequency — produces the complete set of pods of the path,
// like the kubelet's SET update. A bad file is logged once (until its problem
// changes or it is fixed) and skipped; the other pods are unaffected.
import type { BigIntStats } from 'node:fs';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Pod } from '../api/pod-types.js';
import { podRef } from '../api/pod-types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { waitForAbort } from '../lifecycle/abort.js';
import type { AgentLogger } from '../log/index.js';
import { podFromFile, type ManifestResult } from './manifest.js';

export interface FileSourceOptions {
  /** --pod-manifest-path. */
  readonly path: string;
  readonly node: string;
  /** --file-check-frequency. */
  readonly checkFrequencyMs: number;
  readonly log: AgentLogger;
  /**
   * Receives the complete set of the path's pods after every scan (and during a
   * long one, the set so far: pods of files not yet re-read as they were). Must not throw.
   */
  readonly onPods: (pods: Pod[]) => void;
  readonly now?: () => Date;
}

interface FileState {
  /** Last problem logged for the file, so a bad file is reported once, not every rescan. */
  error?: string;
  /** What the file held when last read: a rescan re-parses only files whose identity or stamp changed. */
  stamp?: string;
  result?: ManifestResult;
}

/**
 * Device, inode, size and the modification and change times (ns): any write,
 * rename-into-place or truncate changes one of them. 110 manifests written at
 * once raise 110 events, each a full rescan; without this each re-parses them all.
 */
const stampOf = (s: BigIntStats): string => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;

/** While a scan parses many files, the pods parsed so far are handed on this often. */
const PARTIAL_EVERY_MS = 20;

export function createFileSource(opts: FileSourceOptions): Component {
  const path = resolve(opts.path);
  const now = opts.now ?? (() => new Date());
  const states = new Map<string, FileState>();
  const notes = new Set<string>();

  const noteOnce = (key: string, msg: string, fields: Record<string, unknown>): void => {
    if (notes.has(key)) return;
    notes.add(key);
    opts.log.info(msg, fields);
  };

  // Synchronous file system calls: a manifest directory is local and small, and
  // 110 promise-based reads queue behind each other in libuv's thread pool (the
  // first text arrives after ~80 ms); read synchronously they take ~5 ms in all.
  function listFiles(): Map<string, string> {
    let st;
    try {
      st = statSync(path, { bigint: true });
    } catch (e) {
      noteOnce(`missing:${path}`, 'Pod manifest path does not exist; no static pods from it', { path, err: (e as NodeJS.ErrnoException).code });
      return new Map();
    }
    notes.delete(`missing:${path}`);
    if (!st.isDirectory()) return new Map([[path, stampOf(st)]]);
    const out = new Map<string, string>();
    for (const name of readdirSync(path).filter((n) => !n.startsWith('.')).sort()) {
      const p = join(path, name);
      const s = statSync(p, { bigint: true, throwIfNoEntry: false });
      if (s?.isDirectory()) noteOnce(`dir:${p}`, 'Not recursing into a subdirectory of the pod manifest path', { path: p });
      else if (s?.isFile()) out.set(p, stampOf(s));
    }
    return out;
  }

  /** The file's text, or why it cannot be read now (not cached: it may be readable at the next scan). */
  function readText(file: string): string | { error: string } {
    try {
      return readFileSync(file, 'utf8');
    } catch (e) {
      return { error: `cannot read the file: ${(e as NodeJS.ErrnoException).code ?? String(e)}` };
    }
  }

  function parseText(state: FileState, stamp: string, file: string, text: string | { error: string }): ManifestResult {
    if (typeof text !== 'string') return { ok: false, error: text.error };
    state.stamp = stamp;
    state.result = podFromFile(text, { node: opts.node, source: 'file', location: file, now: now() });
    return state.result;
  }

  /**
   * The path's pods in file order: each file's result from this scan, else (for
   * a file this scan has not reached yet) its last one; a pod another file
   * already declares is refused. With `report`, problems are logged (once each).
   */
  function assemble(files: ReadonlyMap<string, string>, fresh: ReadonlyMap<string, ManifestResult>, report: boolean): Pod[] {
    const pods: Pod[] = [];
    const owner = new Map<string, string>();
    for (const file of files.keys()) {
      const state = states.get(file)!;
      const res = fresh.get(file) ?? state.result;
      if (res === undefined) continue;
      let error: string | undefined;
      if (res.ok) {
        const pod = res.pods[0]!;
        const ref = podRef(pod);
        const first = owner.get(ref);
        if (first !== undefined) error = `pod ${ref} is already declared by ${first}; ignoring this file`;
        else {
          owner.set(ref, file);
          pods.push(pod);
        }
      } else error = res.error;
      if (!report) continue;
      if (error !== undefined && error !== state.error) opts.log.error('Could not process manifest file', { path: file, err: error });
      if (error === undefined && state.error !== undefined) opts.log.info('Manifest file is valid again', { path: file });
      state.error = error;
    }
    return pods;
  }

  /**
   * Reads the path: files whose stamp changed are read and parsed in order;
   * while a long scan parses (110 new manifests take ~100 ms and more), the
   * pods so far go to `partial` after the first file and then every
   * PARTIAL_EVERY_MS, and the scan yields, so the first pods start while the
   * rest are still being parsed.
   */
  async function readPods(partial: (pods: Pod[]) => void): Promise<Pod[]> {
    const files = listFiles();
    for (const file of [...states.keys()]) if (!files.has(file)) states.delete(file);
    const todo: Array<{ file: string; stamp: string; state: FileState }> = [];
    for (const [file, stamp] of files) {
      const state = states.get(file) ?? {};
      states.set(file, state);
      if (state.stamp !== stamp || !state.result) todo.push({ file, stamp, state });
    }
    const fresh = new Map<string, ManifestResult>();
    let emitted = -Infinity;
    for (const [i, t] of todo.entries()) {
      fresh.set(t.file, parseText(t.state, t.stamp, t.file, readText(t.file)));
      if (i === todo.length - 1) break;
      if (performance.now() - emitted > PARTIAL_EVERY_MS) {
        partial(assemble(files, fresh, false));
        emitted = performance.now();
      }
      // Yield after every file, not only after a partial set: the started pods'
      // runtime answers then wait for one parse (~1 ms), not for 20 ms of them.
      await new Promise((r) => setImmediate(r));
    }
    return assemble(files, fresh, true);
  }

  return defineComponent('file-source', async (signal, markReady) => {
    // One scan at a time; events arriving during a scan cause exactly one more.
    let running: Promise<void> | undefined;
    // The first set marks the source as reported (pods no source declares are then torn
    // down): it must be complete, so the first scan hands on no partial sets.
    let reported = false;
    let again = false;
    const scan = (): Promise<void> => {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          const pods = await readPods((some) => {
            if (reported && !signal.aborted) opts.onPods(some);
          });
          if (!signal.aborted) opts.onPods(pods);
          reported = true;
        } while (again && !signal.aborted);
      })().finally(() => {
        running = undefined;
      });
      return running;
    };

    const kick = (): void => {
      scan().catch((e: unknown) => opts.log.error('Pod manifest scan failed', { path, err: e }));
    };
    // Watch first, then scan: a change between the two is seen by one or the other.
    const { watch } = await import('chokidar');
    const watcher = watch(path, {
      depth: 0,
      ignoreInitial: true,
      // chokidar's atomic-write handling holds every deletion back ~100 ms; the full
      // rescan each event triggers already copes with editors' rename-into-place writes.
      atomic: false,
      // Only the path itself is watched: the directory's own inotify watch reports
      // every entry created, written, renamed or deleted in it (its raw events),
      // and each starts a full scan. Watched one by one, 110 new manifests cost
      // 110 more stats, watches and 'add' events (~40 ms of CPU) that add nothing.
      ignored: (p: string) => p !== path,
    });
    // 'all' still reports the path itself appearing or going.
    watcher.on('all', kick);
    watcher.on('raw', kick);
    watcher.on('error', (e) => opts.log.warn('Watching the pod manifest path failed; relying on the periodic rescan', { path, err: e }));
    await new Promise<void>((r) => watcher.once('ready', r));
    await scan();
    markReady();
    const timer = setInterval(kick, opts.checkFrequencyMs);
    try {
      await waitForAbort(signal);
    } finally {
      clearInterval(timer);
      await watcher.close();
      await running;
    }
  });
}

