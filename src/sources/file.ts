// The file source (--pod-manifest-path): a directory read non-recursively, or
// one file. Files whose name starts with a dot are ignored. Every change —
// seen by the watch at once, or by the full rescan every
// --file-check-frequency — produces the complete set of pods of the path,
// like the kubelet's SET update.
//
// One entry's trouble stays its own: a bad manifest, a file over 10 MB, a FIFO,
// a socket, a symbolic link loop — each is reported once with its path (until
// its problem changes or it is fixed) and skipped; the other pods are
// unaffected. A file caught half-written (an empty or broken read within
// SETTLE_MS of its last change, as `cp` leaves it between truncating and
// writing) keeps its previous pod and is read again once it settles.
import { resolve } from 'node:path';
import type { Pod } from '../pod-model/pod-types.js';
import { podRef } from '../pod-model/pod-types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { waitForAbort } from '../lifecycle/abort.js';
import type { AgentLogger } from '../log/index.js';
import { createCoalescer } from '../util/coalesce.js';
import { listPath, patchListing, pathIdentity, readBounded, type Entry, type Listing } from './file-read.js';
import { createPathWatch } from './file-watch.js';
import { MAX_MANIFEST_BYTES, type ManifestResult } from './manifest.js';
import type { ManifestParser } from './parser.js';

export interface FileSourceOptions {
  /** --pod-manifest-path. */
  readonly path: string;
  readonly node: string;
  /** The SidecarContainers gate (validation refuses sidecars without it). */
  readonly sidecars?: boolean;
  /** --file-check-frequency. */
  readonly checkFrequencyMs: number;
  readonly log: AgentLogger;
  readonly parser: ManifestParser;
  /**
   * Receives the complete set of the path's pods after every scan (and during a
   * long one, the set so far: pods of files not yet re-read as they were). Must not throw.
   */
  readonly onPods: (pods: Pod[]) => void;
  readonly now?: () => Date;
  /** Per-file size limit; MAX_MANIFEST_BYTES (the kubelet's 10 MB) by default. */
  readonly maxBytes?: number;
}

interface Parsed {
  readonly stamp: string;
  readonly mtimeMs: number;
  readonly result: ManifestResult;
}

interface FileState {
  /** Last problem logged for the file, so a bad file is reported once, not every rescan. */
  error?: string;
  /** What the file held when last read: a rescan re-parses only files whose identity or stamp changed. */
  stamp?: string;
  result?: ManifestResult;
  /** A parse's answer not taken yet (the file was still settling, or the worker answered between scans). */
  parsed?: Parsed;
  /** The stamp of the content being parsed in the worker. */
  inflight?: string;
}

/** While a scan parses many files, the pods parsed so far are handed on this often. */
const PARTIAL_EVERY_MS = 20;
/** A file changed less than this long ago that reads empty or broken is taken as still being written. */
export const SETTLE_MS = 500;
/** More entries named by the watch than this since the last scan: list the directory in full. */
const MAX_NAMED_ENTRIES = 64;

export function createFileSource(opts: FileSourceOptions): Component {
  const path = resolve(opts.path);
  const now = opts.now ?? (() => new Date());
  const maxBytes = opts.maxBytes ?? MAX_MANIFEST_BYTES;
  const states = new Map<string, FileState>();
  const notes = new Map<string, string>();
  /** Asks for a scan (set once the component runs): a worker's answer for a large file came in. */
  let rescan = (): void => {};

  /** Logs through `log` once per key, until the key's text changes or the key is deleted from `notes`. */
  const noteOnce = (key: string, text: string, log: (fields: Record<string, unknown>) => void, fields: Record<string, unknown>): void => {
    if (notes.get(key) === text) return;
    notes.set(key, text);
    log(fields);
  };

  /**
   * The path's pods in file order: each file's result from this scan, else (for
   * a file this scan has not reached yet, or one still being written) its last
   * one; a pod another file already declares is refused. With `report`,
   * problems are logged (once each).
   */
  function assemble(files: readonly string[], fresh: ReadonlyMap<string, ManifestResult>, report: boolean): Pod[] {
    const pods: Pod[] = [];
    const owner = new Map<string, string>();
    for (const file of files) {
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
   * Reads and parses one changed file. Undefined while its answer is not in:
   * a large file being parsed in the worker (unless `wait`: the scan then
   * awaits it; the first scan does, so its set is complete), or a file still
   * being written (`later.ms`: when to look again). A parse's answer is kept
   * by stamp, so neither case parses the same content twice.
   */
  async function readOne(entry: Entry, state: FileState, wait: boolean, later: { ms: number }): Promise<ManifestResult | undefined> {
    if ('problem' in entry) {
      state.stamp = `problem:${entry.problem}`;
      state.result = { ok: false, error: entry.problem };
      return state.result;
    }
    let parsed = state.parsed?.stamp === entry.stamp ? state.parsed : undefined;
    if (parsed === undefined) {
      if (state.inflight === entry.stamp) return undefined;
      const ctx = { node: opts.node, source: 'file' as const, location: entry.path, now: now(), sidecars: opts.sidecars === true };
      const keep = (stamp: string, mtimeMs: number, result: ManifestResult): Parsed => (state.parsed = { stamp, mtimeMs, result });
      if (opts.parser.offThread(entry.size)) {
        // A large file: the worker reads it too, so its bytes (and the collections
        // they would cause) never reach the event loop. A file it cannot read is kept
        // by the listing's stamp, and read again when that changes.
        const job = opts.parser.parseFile(entry.path, maxBytes, ctx).then((r) => ('problem' in r ? keep(entry.stamp, Date.now(), { ok: false, error: r.problem }) : keep(r.stamp, r.mtimeMs, r.result)));
        if (!wait) {
          // Other files' changes must not wait for this one: scan again when its answer is in.
          state.inflight = entry.stamp;
          void job.then(() => {
            if (state.inflight !== entry.stamp) return;
            state.inflight = undefined;
            rescan();
          });
          return undefined;
        }
        parsed = await job;
      } else {
        const read = readBounded(entry.path, maxBytes);
        if ('problem' in read) {
          // Not kept by stamp: it may be readable at the next scan.
          state.stamp = undefined;
          return { ok: false, error: read.problem };
        }
        // A file grown past the inline size since the listing still goes to the worker, and is awaited.
        parsed = keep(read.stamp, read.mtimeMs, await opts.parser.parse('file', read.bytes, ctx));
      }
    }
    const age = Date.now() - parsed.mtimeMs;
    if (!parsed.result.ok && age >= 0 && age < SETTLE_MS) {
      later.ms = Math.max(later.ms, SETTLE_MS - age);
      return undefined;
    }
    state.stamp = parsed.stamp;
    state.result = parsed.result;
    state.parsed = undefined;
    return parsed.result;
  }

  /**
   * Reads the path: files whose stamp changed are read and parsed, small ones
   * first (a large one may take a while in the parser's worker); while a long
   * scan parses (110 new manifests take ~100 ms and more), the pods so far go
   * to `partial` every PARTIAL_EVERY_MS, and the scan yields after every file,
   * so the first pods start while the rest are still being parsed.
   * Returns the set and, when a file is still being written, when to look again.
   */
  async function readPods(entries: readonly Entry[], wait: boolean, partial: (pods: Pod[]) => void): Promise<{ pods: Pod[]; settleMs?: number }> {
    const files = entries.map((e) => e.path);
    const present = new Set(files);
    for (const file of [...states.keys()]) if (!present.has(file)) states.delete(file);
    const todo: Array<{ entry: Entry; state: FileState; later: boolean }> = [];
    for (const entry of entries) {
      const state = states.get(entry.path) ?? {};
      states.set(entry.path, state);
      const stamp = 'problem' in entry ? `problem:${entry.problem}` : entry.stamp;
      if (state.stamp !== stamp || !state.result) todo.push({ entry, state, later: 'size' in entry && opts.parser.offThread(entry.size) });
    }
    // Files the worker parses go last: the small ones' answers come at once.
    todo.sort((a, b) => Number(a.later) - Number(b.later));
    const fresh = new Map<string, ManifestResult>();
    const later = { ms: 0 };
    let emitted = -Infinity;
    for (const [i, t] of todo.entries()) {
      const res = await readOne(t.entry, t.state, wait, later);
      if (res !== undefined) fresh.set(t.entry.path, res);
      if (i === todo.length - 1) break;
      if (performance.now() - emitted > PARTIAL_EVERY_MS) {
        partial(assemble(files, fresh, false));
        emitted = performance.now();
      }
      // Yield after every file: the started pods' runtime answers then wait for one parse (~1 ms).
      await new Promise((r) => setImmediate(r));
    }
    return { pods: assemble(files, fresh, true), settleMs: later.ms > 0 ? later.ms : undefined };
  }

  return defineComponent('file-source', async (signal, markReady) => {
    // The first set marks the source as reported (pods no source declares are then torn
    // down): it must be complete, so the first scan hands on no partial sets.
    let reported = false;
    let settleTimer: NodeJS.Timeout | undefined;
    /** The last listing, the entries named by the watch since, and whether to list everything again. */
    let listing: Listing | undefined;
    const changed = new Set<string>();
    let listAll = true;
    const watch = createPathWatch({
      path,
      onChange: (entry) => {
        if (entry === undefined) listAll = true;
        else changed.add(entry);
        kick();
      },
      onError: (e) => noteOnce('watch', String(e), (f) => opts.log.warn('Watching the pod manifest path failed; relying on the periodic rescan until the watch is re-armed', f), { path, err: e }),
    });

    const scanOnce = async (): Promise<void> => {
      const began = performance.now();
      // Watch first, then read: a change between the two is seen by one or the other.
      if (await watch.rearm(pathIdentity(path))) listAll = true;
      const armed = performance.now();
      // The entries the watch named since the last scan, or all of them when it may have missed some.
      const names = [...changed];
      changed.clear();
      const incremental = !listAll && listing?.isDir === true && names.length <= MAX_NAMED_ENTRIES;
      listAll = false;
      listing = incremental ? patchListing(path, listing!, names) : listPath(path);
      const { missing, entries, subdirs } = listing;
      if (missing !== undefined) noteOnce('missing', missing, (f) => opts.log.info('Pod manifest path cannot be read; no static pods from it', f), { path, err: missing });
      else notes.delete('missing');
      for (const d of subdirs) noteOnce(`dir:${d}`, '', (f) => opts.log.info('Not recursing into a subdirectory of the pod manifest path', f), { path: d });
      const { pods, settleMs } = await readPods(entries, !reported, (some) => {
        if (reported && !signal.aborted) opts.onPods(some);
      });
      if (!signal.aborted) opts.onPods(pods);
      reported = true;
      opts.log.v(4)?.info('Scanned the pod manifest path', { path, entries: entries.length, named: incremental ? names.length : 'all', pods: pods.length, watchMs: Math.round(armed - began), ms: Math.round(performance.now() - began) });
      if (settleMs !== undefined && !signal.aborted) {
        clearTimeout(settleTimer);
        settleTimer = setTimeout(kick, settleMs + 20);
      }
    };
    // One scan at a time; events arriving during a scan cause exactly one more.
    const scans = createCoalescer(scanOnce, { signal });
    // A scan that fails later (a bug, an fs error not foreseen) is logged and retried at the next event or tick.
    function kick(): void {
      scans.kick().catch((e: unknown) => opts.log.error('Pod manifest scan failed; retrying at the next change or rescan', { path, err: e }));
    }

    rescan = kick;
    const timer = setInterval(() => {
      listAll = true;
      kick();
    }, opts.checkFrequencyMs);
    try {
      // A failure of the first scan fails the start: the process exits on it.
      await scans.kick();
      markReady();
      await waitForAbort(signal);
    } finally {
      clearInterval(timer);
      clearTimeout(settleTimer);
      await scans.idle();
      await watch.close();
    }
  });
}
