// The malloc trimmer: the native module loads from dist/native (built by
// `npm run build`) and reports malloc's figures; the component trims every
// period, logs a trim that lowered RSS, and does nothing after stop; a
// missing or broken module is a reason, not a crash.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMallocTrimmer, loadMallocControl, TRIM_PERIOD_MS, type MallocControl } from '../../../src/heap/malloc-trim.js';
import { testLogger } from '../../helpers/test-logger.js';

describe('loadMallocControl', () => {
  it.runIf(process.platform === 'linux')('loads the built module: info() follows malloc, trim() answers', () => {
    const loaded = loadMallocControl();
    expect(loaded.control, loaded.control === undefined ? loaded.reason : '').toBeDefined();
    const control = loaded.control as MallocControl;
    const before = control.info();
    for (const k of ['arenaBytes', 'inUseBytes', 'freeBytes', 'mmapBytes'] as const) expect(before[k]).toBeGreaterThanOrEqual(0);
    // Buffer.alloc takes its memory from malloc: 8 000 × 1 000 bytes are in use while held.
    const held = Array.from({ length: 8_000 }, () => Buffer.alloc(1_000, 1));
    expect(control.info().inUseBytes - before.inUseBytes).toBeGreaterThan(6_000_000);
    expect(held.length).toBe(8_000);
    expect(typeof control.trim()).toBe('boolean');
  });

  it('a module that was not built is a reason', () => {
    const loaded = loadMallocControl([pathToFileURL('/nonexistent/malloc-trim.node')]);
    expect(loaded.control).toBeUndefined();
    if (process.platform === 'linux') expect(loaded).toMatchObject({ reason: expect.stringContaining('was not built') });
  });

  it.runIf(process.platform === 'linux')('a file that is no module is a reason naming it', () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'malloc-trim-'));
    try {
      const file = join(dir, 'malloc-trim.node');
      writeFileSync(file, 'not an ELF object');
      const loaded = loadMallocControl([pathToFileURL(file)]);
      expect(loaded.control).toBeUndefined();
      expect(loaded).toMatchObject({ reason: expect.stringContaining(file) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createMallocTrimmer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function harness(rssSteps: number[]) {
    const state = { trims: 0 };
    const control: MallocControl = { trim: () => (state.trims++, true), info: () => ({ arenaBytes: 0, inUseBytes: 0, freeBytes: 0, mmapBytes: 0 }) };
    let i = 0;
    const log = testLogger();
    const t = createMallocTrimmer({ control, log, rss: () => rssSteps[Math.min(i++, rssSteps.length - 1)] ?? 0 });
    const ac = new AbortController();
    const run = t.run(ac.signal);
    return { t, state, log, stop: async () => (ac.abort(), await run) };
  }

  it('trims every TRIM_PERIOD_MS and logs, at V(4), a trim that lowered RSS by 1 MB or more', async () => {
    // RSS read before and after each trim: the first trim frees 30 MB, the second nothing.
    const h = harness([120e6, 90e6, 90e6, 90e6]);
    await h.t.ready;
    await vi.advanceTimersByTimeAsync(TRIM_PERIOD_MS - 1);
    expect(h.state.trims).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.state.trims).toBe(1);
    await vi.advanceTimersByTimeAsync(TRIM_PERIOD_MS);
    expect(h.state.trims).toBe(2);
    const logged = h.log.records.filter((r) => r.msg === 'Returned free malloc memory to the kernel');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'v4', fields: { rssBeforeMB: 120, rssAfterMB: 90 } });
    await h.stop();
  });

  it('nothing after stop', async () => {
    const h = harness([1]);
    await h.stop();
    await vi.advanceTimersByTimeAsync(10 * TRIM_PERIOD_MS);
    expect(h.state.trims).toBe(0);
  });
});
