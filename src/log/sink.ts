// Where finished lines go. Writes are plain `stream.write` calls: for
// process.stderr/stdout on Linux these are synchronous for files, TTYs and
// pipes, so a record written just before `process.exit` reaches the fd. Only
// JSON split-stream info records are ever buffered (as in component-base,
// which wraps stdout in zap's BufferedWriteSyncer); errors never are.

import type { Severity } from './text.js';

interface Output {
  write(line: string): void;
  flush(): void;
}

class DirectOutput implements Output {
  constructor(private readonly stream: NodeJS.WritableStream) {}
  write(line: string): void {
    this.stream.write(line);
  }
  flush(): void {}
}

/**
 * Holds whole lines until `size` bytes are pending, `flush()` is called, or
 * `flushMs` has passed since the oldest pending line; a line is never split,
 * and one larger than the buffer is written at once. The timer is one-shot,
 * armed only while something is pending, and unref'd so it never keeps the
 * process alive.
 */
export class BufferedOutput implements Output {
  private pending: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly size: number,
    private readonly flushMs: number,
  ) {}

  write(line: string): void {
    const n = Buffer.byteLength(line);
    if (this.bytes > 0 && this.bytes + n > this.size) this.flush();
    this.pending.push(line);
    this.bytes += n;
    if (this.bytes >= this.size) {
      this.flush();
    } else if (this.timer === undefined && this.flushMs > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0) return;
    const chunk = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.bytes = 0;
    this.stream.write(chunk);
  }
}

export interface SinkOptions {
  format: 'text' | 'json';
  splitStream: boolean;
  infoBufferSize: number;
  flushFrequencyMs: number;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * Routes lines by severity. Text, and JSON without split stream, send
 * everything to stderr (klog's and component-base's default). JSON split
 * stream sends info to stdout and warnings and errors to stderr.
 */
export class Sink {
  private readonly info: Output;
  private readonly problems: Output;
  private closed = false;

  constructor(opts: SinkOptions) {
    this.problems = new DirectOutput(opts.stderr);
    if (opts.format === 'json' && opts.splitStream) {
      this.info =
        opts.infoBufferSize > 0
          ? new BufferedOutput(opts.stdout, opts.infoBufferSize, opts.flushFrequencyMs)
          : new DirectOutput(opts.stdout);
    } else {
      this.info = this.problems;
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  write(sev: Severity, line: string): void {
    if (this.closed) return;
    if (sev === 'I') {
      this.info.write(line);
      return;
    }
    // An error often precedes exit; the info leading up to it must not be
    // left behind in the buffer.
    if (sev === 'E' || sev === 'F') this.info.flush();
    this.problems.write(line);
  }

  flush(): void {
    if (!this.closed) this.info.flush();
  }

  /** Idempotent. Later writes are dropped. */
  close(): void {
    if (this.closed) return;
    this.info.flush();
    this.closed = true;
  }
}
