// Reads one container's log (the kubelet's kuberuntime/logs ReadLogs, plus
// the rotated files it leaves out): from the tail point through the rotated
// files and the live one, lines joined and filtered, to a sink; with follow
// it then streams the live file, reopening the path when the rotation
// manager renames it (the old file read to its end first: no line lost or
// repeated), until the sink is full, the signal aborts or the container is
// no longer running. Called once per request by the /containerLogs/ route;
// resolves when done; never throws for a client that goes away.
import { watch, type FSWatcher } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { onAbort } from '../../lifecycle/abort.js';
import { LineAssembler, logTimeMs, parseCriRecord, renderLine, type LogLine } from './cri-format.js';
import { openSource, tailStart, type LogFile } from './files.js';
import type { ContainerLogOptions } from './options.js';

/** Where the output goes. `write` resolves false once nothing more is wanted (limitBytes reached, client gone). */
export interface LogSink {
  write(b: Buffer): Promise<boolean>;
}

export interface ReadLogsInput {
  /** Oldest first, the live file last (files.ts logFiles). */
  readonly files: readonly LogFile[];
  readonly options: ContainerLogOptions;
  readonly sink: LogSink;
  readonly signal: AbortSignal;
  /** Whether the container still runs (follow stops when not). A failing check counts as not running. */
  readonly isRunning: () => Promise<boolean>;
  /** How often follow asks isRunning while the file is quiet (the kubelet: 5 s). */
  readonly stateCheckMs?: number;
  /** How often follow looks at the file when no change event comes (events are the fast path). */
  readonly pollMs?: number;
  /** Called once the log was found readable, before any output (the route sends its 200 then). */
  readonly opened?: () => void;
}

const READ_CHUNK = 64 * 1024;
const NL = 0x0a;

/** Bytes → records → lines → filtered, rendered output. One per request. */
class Pump {
  private readonly asm = new LineAssembler();
  private rest = Buffer.alloc(0);
  constructor(private readonly o: ContainerLogOptions) {}

  /** Whole records of `chunk` (plus what was left of the last one); the unfinished end is kept. */
  feed(chunk: Buffer): Buffer[] {
    const buf = this.rest.length > 0 ? Buffer.concat([this.rest, chunk]) : chunk;
    const out: Buffer[] = [];
    let start = 0;
    for (let i = buf.indexOf(NL); i >= 0; i = buf.indexOf(NL, start)) {
      this.record(buf.subarray(start, i), out);
      start = i + 1;
    }
    this.rest = Buffer.from(buf.subarray(start));
    return out;
  }

  /** The end of a file that is not followed further: its last record even without a newline. */
  endOfFile(): Buffer[] {
    const out: Buffer[] = [];
    if (this.rest.length > 0) this.record(this.rest, out);
    this.rest = Buffer.alloc(0);
    return out;
  }

  /** The reader stops: unfinished lines are shown as they are. */
  finish(): Buffer[] {
    const out = this.endOfFile();
    for (const l of this.asm.flush()) this.emit(l, out);
    return out;
  }

  private record(raw: Buffer, out: Buffer[]): void {
    const r = parseCriRecord(raw);
    if (!r) return; // Not a CRI record: skipped, as the kubelet does.
    const line = this.asm.push(r);
    if (line) this.emit(line, out);
  }

  private emit(l: LogLine, out: Buffer[]): void {
    if (this.o.sinceMs !== undefined && logTimeMs(l.time) < this.o.sinceMs) return;
    out.push(renderLine(l, this.o.timestamps));
  }
}

async function writeAll(sink: LogSink, bufs: Buffer[]): Promise<boolean> {
  for (const b of bufs) if (!(await sink.write(b))) return false;
  return true;
}

/** Where to begin: [file index, offset] of the last tailLines lines, or the very start. */
async function startPoint(files: readonly LogFile[], tail: number | undefined): Promise<[number, number]> {
  if (tail === undefined) return [0, 0];
  let need = tail;
  for (let i = files.length - 1; i >= 0; i--) {
    const src = await openSource(files[i]!).catch(() => undefined);
    if (!src) continue; // a rotated file removed meanwhile, or no live file yet
    try {
      const { offset, found } = await tailStart(src, need);
      if (found >= need) return [i, offset];
      need -= found;
    } finally {
      await src.close();
    }
  }
  return [0, 0];
}

/** Reads one rotated file from `offset` to its end into the pump. */
async function readWhole(f: LogFile, offset: number, pump: Pump, sink: LogSink): Promise<boolean> {
  const src = await openSource(f).catch(() => undefined);
  if (!src) return true; // removed by the rotation manager meanwhile: nothing left of it to show
  try {
    for (let pos = offset; pos < src.size; pos += READ_CHUNK) {
      if (!(await writeAll(sink, pump.feed(await src.readAt(pos, Math.min(READ_CHUNK, src.size - pos)))))) return false;
    }
  } finally {
    await src.close();
  }
  return writeAll(sink, pump.endOfFile());
}

/** Reads `fh` from `pos` to its current end; returns the new position, or -1 when the sink wants no more. */
async function drain(fh: FileHandle, pos: number, pump: Pump, sink: LogSink): Promise<number> {
  const buf = Buffer.alloc(READ_CHUNK);
  for (;;) {
    const { bytesRead } = await fh.read(buf, 0, READ_CHUNK, pos);
    if (bytesRead === 0) return pos;
    pos += bytesRead;
    if (!(await writeAll(sink, pump.feed(Buffer.from(buf.subarray(0, bytesRead)))))) return -1;
  }
}

/** The live path's inode now; undefined while it does not exist (between a rotation's rename and the runtime's reopen). */
async function inodeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).ino;
  } catch {
    return undefined;
  }
}

/** Resolves on a change in the log's directory, after pollMs, or on abort. One watcher per follow. */
function changeWaiter(path: string, signal: AbortSignal): { wait(ms: number): Promise<void>; close(): void } {
  let wake: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  const name = basename(path);
  try {
    watcher = watch(dirname(path), { persistent: false }, (_ev, f) => {
      if (f === null || f === name || f.startsWith(`${name}.`)) wake?.();
    });
    watcher.on('error', () => watcher?.close());
  } catch {
    watcher = undefined; // no inotify here: polling alone
  }
  return {
    wait: (ms) =>
      new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          dispose();
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        const dispose = onAbort(signal, done);
        wake = done;
      }),
    close: () => watcher?.close(),
  };
}

/** See the file comment. Rejects only when the live file cannot be opened and there is nothing else to read (the route's 400). */
export async function readLogs(inp: ReadLogsInput): Promise<void> {
  const { files, options, sink, signal } = inp;
  const live = files[files.length - 1]!;
  const [first, offset] = await startPoint(files, options.tailLines);
  // Opened before any output: a missing log is the caller's error to report.
  const fh = await open(live.path, 'r').catch((err: unknown) => {
    if (files.length === 1) throw err; // mid-rotation there is a rotated file to read meanwhile
    return undefined;
  });
  inp.opened?.();
  const st: FollowState = { path: live.path, pump: new Pump(options), fh, pos: first === files.length - 1 ? offset : 0 };
  try {
    for (let i = first; i < files.length - 1; i++) {
      if (signal.aborted || !(await readWhole(files[i]!, i === first ? offset : 0, st.pump, sink))) return;
    }
    if (st.fh) st.pos = await drain(st.fh, st.pos, st.pump, sink);
    if (st.pos < 0 || signal.aborted) return;
    if (options.follow) await follow(inp, st);
    else await writeAll(sink, st.pump.finish());
  } finally {
    await st.fh?.close().catch(() => undefined);
  }
}

/** The follow loop's state; readLogs closes whichever handle it holds last. */
interface FollowState {
  readonly path: string;
  readonly pump: Pump;
  fh: FileHandle | undefined;
  pos: number;
}

async function follow(inp: ReadLogsInput, s: FollowState): Promise<void> {
  const stateCheckMs = inp.stateCheckMs ?? 5_000;
  const waiter = changeWaiter(s.path, inp.signal);
  let lastCheck = -Infinity;
  try {
    while (!inp.signal.aborted) {
      const ino = await inodeOf(s.path);
      const current = s.fh ? (await s.fh.stat()).ino : undefined;
      if (ino !== undefined && ino !== current) {
        // Rotated (or first seen): open the new file, then finish the old one, whose writer has moved on.
        const next = await open(s.path, 'r').catch(() => undefined);
        if (next) {
          let end = 0;
          if (s.fh) {
            end = await drain(s.fh, s.pos, s.pump, inp.sink);
            await s.fh.close().catch(() => undefined);
            // The runtime writes whole records, so nothing should be left; if something is, it is not glued to the new file's first.
            if (end >= 0 && !(await writeAll(inp.sink, s.pump.endOfFile()))) end = -1;
          }
          s.fh = next;
          if (end < 0) return;
          s.pos = 0;
        }
      }
      if (s.fh) {
        const before = s.pos;
        s.pos = await drain(s.fh, s.pos, s.pump, inp.sink);
        if (s.pos < 0) return;
        if (s.pos > before) continue;
      }
      // Quiet: is the container still there to write more?
      if (performance.now() - lastCheck >= stateCheckMs) {
        lastCheck = performance.now();
        if (!(await inp.isRunning().catch(() => false))) {
          if (s.fh && (await drain(s.fh, s.pos, s.pump, inp.sink)) < 0) return;
          await writeAll(inp.sink, s.pump.finish());
          return;
        }
      }
      await waiter.wait(Math.min(inp.pollMs ?? 1_000, stateCheckMs));
    }
  } finally {
    waiter.close();
  }
}
