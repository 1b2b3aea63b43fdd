// The bearer token a request carries: a fixed `token`, or a `tokenFile` that
// is re-read when it changes (a rotated service-account or bootstrap token),
// as client-go's cachingTokenSource does. The file is stat'ed at most once a
// second, and read again only when its size, mtime or inode moved; after a
// 401 the transport calls reload() to read it at once. A file that cannot be
// read keeps the last good token (logged once per distinct failure).
// Concurrent callers share one stat/read. Never throws.
import { readFile, stat } from 'node:fs/promises';
import type { ClientLog } from '../types.js';

/** The file operations the source uses; the seam the tests replace. */
export interface TokenFileIo {
  stat(path: string): Promise<{ readonly mtimeMs: number; readonly size: number; readonly ino: number }>;
  read(path: string): Promise<string>;
}

export const nodeTokenFileIo: TokenFileIo = {
  stat: (p) => stat(p),
  read: (p) => readFile(p, 'utf8'),
};

/** Stat the token file at most this often. */
export const TOKEN_FILE_STAT_INTERVAL_MS = 1000;

export interface BearerTokenOptions {
  readonly token: string | undefined;
  readonly tokenFile: string | undefined;
  readonly log: ClientLog;
  readonly now: () => number;
  readonly io?: TokenFileIo;
}

export class BearerToken {
  private value: string | undefined;
  private signature: string | undefined;
  private lastStat = -Infinity;
  private pending: Promise<void> | undefined;
  private lastFailure: string | undefined;
  private readonly io: TokenFileIo;

  constructor(private readonly opts: BearerTokenOptions) {
    this.value = opts.token;
    this.io = opts.io ?? nodeTokenFileIo;
  }

  /** Whether a 401 may be cured by reading the file again. */
  get fileBacked(): boolean {
    return this.opts.tokenFile !== undefined;
  }

  /** The token to send now; stats the file when a second has passed since the last look. */
  async current(): Promise<string | undefined> {
    const file = this.opts.tokenFile;
    if (file === undefined) return this.value;
    // A look in flight is shared (the first request must not go out without the file's token).
    if (this.pending !== undefined) await this.pending;
    else if (this.opts.now() - this.lastStat >= TOKEN_FILE_STAT_INTERVAL_MS) await this.refresh(file, false);
    return this.value;
  }

  /** Reads the file now (after a 401); true when the token changed. */
  async reload(): Promise<boolean> {
    const file = this.opts.tokenFile;
    if (file === undefined) return false;
    const before = this.value;
    await this.refresh(file, true);
    return this.value !== before;
  }

  private refresh(file: string, force: boolean): Promise<void> {
    this.pending ??= this.look(file, force).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async look(file: string, force: boolean): Promise<void> {
    this.lastStat = this.opts.now();
    try {
      const s = await this.io.stat(file);
      const signature = `${s.ino}:${s.size}:${s.mtimeMs}`;
      if (!force && signature === this.signature) return;
      const token = (await this.io.read(file)).trim();
      if (token === '') throw new Error('the file is empty');
      this.value = token;
      this.signature = signature;
      this.lastFailure = undefined;
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      if (msg !== this.lastFailure) this.opts.log.warn('Cannot read the token file; keeping the last token', { tokenFile: file, err: msg });
      this.lastFailure = msg;
    }
  }
}
