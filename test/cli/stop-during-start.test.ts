// A stop (SIGTERM) while the agent still waits at start ends it at once, as
// an operator sees it through the built bin/agent.js: the wait for an absent
// runtime socket (30 s by default), for --lock-file, for the --root-dir lock.
// No container runtime is needed: every case stops before one would be used.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/agent-process.js';
import { killAllDaemons, startAgent, type AgentDaemon } from '../helpers/agent-daemon.js';

const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  await killAllDaemons();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The bound: a stop during a start-up wait ends the process within 2 s of the signal. */
const STOP_WITHIN_MS = 2_000;

function workDir(): string {
  const t = tempDir('agent-edges-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** Sends SIGTERM and requires a clean exit (0) within STOP_WITHIN_MS, with no forced exit by bin/. */
async function expectPromptCleanStop(agent: AgentDaemon): Promise<void> {
  expect(agent.kill('SIGTERM'), 'the agent was still running when signalled').toBe(true);
  // waitForExit resolves on the process's exit event and rejects at the bound.
  expect(await agent.waitForExit(STOP_WITHIN_MS)).toEqual({ code: 0, signal: null });
  expect(agent.stderr).toMatch(/\] shutting down; send the signal again to exit immediately signal="SIGTERM"/);
  // bin/ forces an exit 2 s after main() settles when something is left open: not a clean stop.
  expect(agent.stderr).not.toMatch(/still running \d+ ms after stopping/);
}

/**
 * Holds an exclusive flock on `file` from another process until cleanup; resolves once held.
 * flock(1) runs its command as a child that inherits the locked descriptor, so
 * cleanup kills the whole process group (the helper is its leader).
 */
function holdFlock(file: string): Promise<ChildProcess> {
  const child = spawn('flock', [file, 'sh', '-c', 'echo locked; exec sleep 60'], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  const gone = new Promise<void>((resolve) => child.once('close', () => resolve()));
  cleanups.push(async () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await gone;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      if (s.includes('locked')) resolve(child);
    });
  });
}

describe('a stop while the agent waits at start', () => {
  it('SIGTERM while waiting for an absent runtime socket: exit 0 within 2 s', async () => {
    const dir = workDir();
    const manifests = join(dir, 'manifests');
    mkdirSync(manifests);
    const agent = startAgent([
      `--root-dir=${join(dir, 'root')}`,
      `--pod-manifest-path=${manifests}`,
      `--container-runtime-endpoint=unix://${join(dir, 'absent.sock')}`,
      '--healthz-port=0',
    ]);
    await agent.waitForLine(/\] Waiting for the container runtime /, { timeoutMs: 10_000 });
    await expectPromptCleanStop(agent);
  });

  it('SIGTERM while waiting for --lock-file held by another process: exit 0 within 2 s', async () => {
    const dir = workDir();
    const lock = join(dir, 'agent.lock');
    writeFileSync(lock, '');
    await holdFlock(lock);
    const agent = startAgent([`--root-dir=${join(dir, 'root')}`, `--lock-file=${lock}`, '--healthz-port=0']);
    await agent.waitForLine(/\] Waiting for the lock file, held by another process /, { timeoutMs: 10_000 });
    await expectPromptCleanStop(agent);
  });

  it('SIGTERM while waiting for the --root-dir lock: exit 0 (a stop, not the refusal after the wait)', async () => {
    const dir = workDir();
    const root = join(dir, 'root');
    const manifests = join(dir, 'manifests');
    mkdirSync(root);
    mkdirSync(manifests);
    await holdFlock(join(root, 'agent-root-dir.lock'));
    const agent = startAgent([`--root-dir=${root}`, `--pod-manifest-path=${manifests}`, '--healthz-port=0']);
    // The wait logs nothing of its own (it lasts 2 s at most); the start line precedes it.
    await agent.waitForLine(/\] Starting agent /, { timeoutMs: 10_000 });
    await expectPromptCleanStop(agent);
    expect(agent.stderr).not.toMatch(/is already using --root-dir/);
  });
});

