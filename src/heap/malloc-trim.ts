// Gives the free memory inside glibc's malloc arenas back to the kernel, as
// Go's background scavenger does for the kubelet.
//
// Node allocates Buffers (gRPC frames, file reads, TLS records) and much of
// its own state with malloc. A burst of pod starts and stops fills malloc's
// main arena with small blocks; most are freed soon after, but a few that
// live on sit above them, and glibc only shrinks an arena from its top. After
// 110 static pods started and stopped, the arena held 41 MB of which 5 MB
// were in use: the agent's RSS stayed ~30 MB above what it needed, for good.
// malloc_trim(0) returns every free page inside the arenas (MADV_DONTNEED);
// Node has no binding for it, so a small Node-API module does
// (src/native/malloc-trim.c, built into dist/native/ by `npm run build`).
//
// The trimmer calls it every TRIM_PERIOD_MS: a call costs ~0.2 ms (~2 ms the
// first time after a burst), so there is no need to guess when to. Without the
// module (no C compiler at build time, a libc without malloc_trim) the agent
// runs as before and says so once.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitForAbort } from '../lifecycle/abort.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import type { AgentLogger } from '../log/index.js';
import { mb } from './after-burst.js';

/** How often the free pages are handed back. */
export const TRIM_PERIOD_MS = 5_000;
/** A trim that lowers RSS by at least this much is logged at V(4). */
const LOG_MIN_BYTES = 1 << 20;

/** mallinfo2()'s figures: the arenas' size, what is allocated, what is free inside them (resident or not), what is mmap'ed. */
export interface MallocInfo {
  arenaBytes: number;
  inUseBytes: number;
  freeBytes: number;
  mmapBytes: number;
}

export interface MallocControl {
  /** malloc_trim(0): true when malloc gave memory back. */
  trim(): boolean;
  info(): MallocInfo;
}

/**
 * Where the module is: next to the bundle's folder (dist/bundle -> dist/native),
 * next to tsc's output (dist/heap -> dist/native), or, when this file runs from
 * src/ under vitest, in dist/native.
 */
const CANDIDATES = [new URL('../native/malloc-trim.node', import.meta.url), new URL('../../dist/native/malloc-trim.node', import.meta.url)];

/** Loads the module; undefined with the reason when it cannot (not built, not Linux with glibc). */
export function loadMallocControl(candidates: readonly URL[] = CANDIDATES): { control: MallocControl } | { control: undefined; reason: string } {
  if (process.platform !== 'linux') return { control: undefined, reason: `not on Linux (${process.platform})` };
  const file = candidates.map((u) => (u.protocol === 'file:' ? fileURLToPath(u) : '')).find((f) => f !== '' && existsSync(f));
  if (file === undefined) return { control: undefined, reason: 'dist/native/malloc-trim.node was not built (no C compiler at build time)' };
  const m: { exports: Partial<MallocControl> } = { exports: {} };
  try {
    process.dlopen(m, file);
  } catch (err) {
    return { control: undefined, reason: `loading ${file}: ${(err as Error).message}` };
  }
  const { trim, info } = m.exports;
  if (typeof trim !== 'function' || typeof info !== 'function') return { control: undefined, reason: `${file} exports no trim()/info()` };
  return { control: { trim, info } };
}

export interface MallocTrimmerOptions {
  control: MallocControl;
  log: AgentLogger;
  periodMs?: number;
  /** The process's RSS in bytes (test seam). */
  rss?: () => number;
}

/** A component that trims every `periodMs` while it runs; nothing after stop. */
export function createMallocTrimmer(o: MallocTrimmerOptions): Component {
  const periodMs = o.periodMs ?? TRIM_PERIOD_MS;
  const rss = o.rss ?? (() => process.memoryUsage.rss());
  const tick = (): void => {
    // RSS is read (from /proc) only when the V(4) line can be written.
    const v4 = o.log.v(4);
    if (v4 === undefined) {
      o.control.trim();
      return;
    }
    const before = rss();
    const t0 = performance.now();
    o.control.trim();
    const after = rss();
    if (before - after >= LOG_MIN_BYTES) v4.info('Returned free malloc memory to the kernel', { ms: Math.round((performance.now() - t0) * 100) / 100, rssBeforeMB: mb(before), rssAfterMB: mb(after) });
  };
  return defineComponent('malloc-trim', async (signal, markReady) => {
    const timer = setInterval(tick, periodMs);
    // Not a reason to keep the process alive: the other components are.
    timer.unref();
    markReady();
    await waitForAbort(signal);
    clearInterval(timer);
  });
}

/** The trimmer when the module loads; otherwise undefined, and a log line at V(2) saying why. */
export function mallocTrimmerIfAvailable(log: AgentLogger): Component | undefined {
  const loaded = loadMallocControl();
  if (loaded.control === undefined) {
    log.v(2)?.info('Free malloc memory stays with the process (no malloc_trim)', { reason: loaded.reason });
    return undefined;
  }
  return createMallocTrimmer({ control: loaded.control, log });
}
