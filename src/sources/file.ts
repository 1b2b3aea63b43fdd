// The file source (--pod-manifest-path): a directory read non-recursively, or
// one file. Files whose name starts with a dot are ignored. Every change —
// seen by the chokidar watch at once, or by the full rescan every
// --file-check-frequency — produces the complete set of pods of the path,
// like the kubelet's SET update. A bad file is logged once (until its problem
// changes or it is fixed) and skipped; the other pods are unaffected.
import type { BigIntStats } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
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
  /** Receives the complete set of the path's pods after every scan. Must not throw. */
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

  async function listFiles(): Promise<Map<string, string>> {
    let st;
    try {
      st = await stat(path, { bigint: true });
    } catch (e) {
      noteOnce(`missing:${path}`, 'Pod manifest path does not exist; no static pods from it', { path, err: (e as NodeJS.ErrnoException).code });
      return new Map();
    }
    notes.delete(`missing:${path}`);
    if (!st.isDirectory()) return new Map([[path, stampOf(st)]]);
    const out = new Map<string, string>();
    for (const name of (await readdir(path)).sort()) {
      if (name.startsWith('.')) continue;
      const p = join(path, name);
      const s = await stat(p, { bigint: true }).catch(() => undefined);
      if (s?.isDirectory()) noteOnce(`dir:${p}`, 'Not recursing into a subdirectory of the pod manifest path', { path: p });
      else if (s?.isFile()) out.set(p, stampOf(s));
    }
    return out;
  }

  async function parseFile(file: string, state: FileState, stamp: string): Promise<ManifestResult> {
    if (state.stamp === stamp && state.result) return state.result;
    let result: ManifestResult;
    try {
      const text = await readFile(file, 'utf8');
      result = podFromFile(text, { node: opts.node, source: 'file', location: file, now: now() });
    } catch (e) {
      // Not cached: a file that cannot be read now may be readable at the next scan.
      return { ok: false, error: `cannot read the file: ${(e as NodeJS.ErrnoException).code ?? String(e)}` };
    }
    state.stamp = stamp;
    state.result = result;
    return result;
  }

  async function readPods(): Promise<Pod[]> {
    const files = await listFiles();
    const pods: Pod[] = [];
    const owner = new Map<string, string>();
    for (const [file, stamp] of files) {
      const state = states.get(file) ?? {};
      states.set(file, state);
      let error: string | undefined;
      const res = await parseFile(file, state, stamp);
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
      if (error !== undefined && error !== state.error) opts.log.error('Could not process manifest file', { path: file, err: error });
      if (error === undefined && state.error !== undefined) opts.log.info('Manifest file is valid again', { path: file });
      state.error = error;
    }
    for (const file of [...states.keys()]) if (!files.has(file)) states.delete(file);
    return pods;
  }

  return defineComponent('file-source', async (signal, markReady) => {
    // One scan at a time; events arriving during a scan cause exactly one more.
    let running: Promise<void> | undefined;
    let again = false;
    const scan = (): Promise<void> => {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          const pods = await readPods();
          if (!signal.aborted) opts.onPods(pods);
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
      ignored: (p: string) => p !== path && basename(p).startsWith('.'),
    });
    watcher.on('all', kick);
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

