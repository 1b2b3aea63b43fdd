// Runs the file source on a real path with the real manifest parser, for the
// integration tests: every set it hands on, every log record, and bounded
// waits that wake on each new set. Call `stopAll()` in afterEach.
import type { Pod } from '../../src/pod-model/pod-types.js';
import { createFileSource } from '../../src/sources/file.js';
import { createManifestParser, type ManifestParser } from '../../src/sources/parser.js';
import { testLogger, type LogRecord } from './test-logger.js';

const stops: Array<() => Promise<void>> = [];

/** Stops every source started here, newest first. */
export async function stopAll(): Promise<void> {
  for (const s of stops.splice(0).reverse()) await s();
}

/** Runs `fn` at stopAll(), after the sources started since (a temporary directory's removal). */
export function atStop(fn: () => void | Promise<void>): void {
  stops.push(async () => fn());
}

export interface FileSourceRun {
  readonly sets: Pod[][];
  readonly records: LogRecord[];
  /** The latest set's pod names, sorted, with `suffix` (the node name) removed. */
  names(suffix?: string): string[];
  /** Waits (bounded) until `pred` holds for the latest set's full pod names; returns them. */
  until(pred: (names: string[]) => boolean, what?: string, ms?: number): Promise<string[]>;
  /** The 'Could not process manifest file' records for `path`. */
  errorsFor(path: string): LogRecord[];
}

export async function startFileSource(path: string, opts: { node?: string; checkFrequencyMs?: number; wrap?: (p: ManifestParser) => ManifestParser } = {}): Promise<FileSourceRun> {
  const sets: Pod[][] = [];
  const records: LogRecord[] = [];
  const waiters: Array<() => void> = [];
  const parser = (opts.wrap ?? ((p) => p))(createManifestParser({ log: testLogger(records) }));
  const src = createFileSource({
    path,
    node: opts.node ?? 'node-a',
    checkFrequencyMs: opts.checkFrequencyMs ?? 60_000,
    log: testLogger(records),
    parser,
    onPods: (pods) => {
      sets.push(pods);
      for (const w of waiters.splice(0)) w();
    },
  });
  const ac = new AbortController();
  const done = src.run(ac.signal);
  stops.push(async () => {
    ac.abort();
    await done;
    await parser.close();
  });
  await src.ready;
  const full = (): string[] => (sets.at(-1) ?? []).map((p) => p.metadata.name).sort();
  return {
    sets,
    records,
    names: (suffix = `-${opts.node ?? 'node-a'}`) => full().map((n) => (n.endsWith(suffix) ? n.slice(0, -suffix.length) : n)),
    async until(pred, what = 'the condition', ms = 5000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const names = full();
        if (pred(names)) return names;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last set: ${JSON.stringify(names)}; log: ${JSON.stringify(records.map((r) => [r.msg, r.fields]))}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100).unref();
        });
      }
    },
    errorsFor: (p) => records.filter((r) => r.msg === 'Could not process manifest file' && r.fields['path'] === p),
  };
}
