// Runs the built agent (bin/agent.js) as a child process, the way an operator
// does, and captures exit code and output. `npm test` builds dist/ first.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const AGENT_BIN = join(REPO, 'bin/agent.js');

export interface AgentRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
}

export function runAgentProcess(args: readonly string[], opts: RunOptions = {}): Promise<AgentRun> {
  return new Promise((res) => {
    execFile(
      process.execPath,
      [AGENT_BIN, ...args],
      { cwd: opts.cwd ?? REPO, env: { PATH: process.env['PATH'], ...opts.env }, timeout: opts.timeoutMs ?? 30_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { code?: number | string; signal?: NodeJS.Signals }) | null;
        res({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, signal: e?.signal ?? null, stdout, stderr });
      },
    );
  });
}

/** Runs many invocations with bounded concurrency (the machine has 2 cores). */
export async function runAll<T>(items: readonly T[], fn: (item: T) => Promise<void>, concurrency = 4): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** A temporary directory with helpers to write files into it; `cleanup()` removes it. */
export function tempDir(prefix = 'agent-test-'): { dir: string; write(rel: string, text: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    write(rel, text) {
      const p = join(dir, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
      return p;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
