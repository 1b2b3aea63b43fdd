// --platformconfig selects API-server mode, which does not exist yet: the
// agent must say so at start, naming what is not served, never run silently.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/agent-process.js';
import { killAllDaemons, startAgent } from '../helpers/agent-daemon.js';

const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  await killAllDaemons();
  for (const c of cleanups.splice(0).reverse()) await c();
});

function workDir(): string {
  const t = tempDir('agent-edges-');
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('--platformconfig (API-server mode, not implemented yet)', () => {
  it('warns at start, naming what is not served, before the agent runs its local sources', async () => {
    const dir = workDir();
    const conf = join(dir, 'agent.conf');
    writeFileSync(conf, '');
    const agent = startAgent([`--root-dir=${join(dir, 'root')}`, `--platformconfig=${conf}`, '--healthz-port=0']);
    await agent.waitForLine(/\] all components ready /, { timeoutMs: 10_000 });
    const warnings = agent.lines().filter((l) => l.startsWith('W') && /API server mode/.test(l));
    expect(warnings, agent.stderr).toHaveLength(1);
    const [warning] = warnings;
    expect(warning).toMatch(/API server mode is not implemented yet/);
    for (const part of ['node registration', 'pods from the API server', 'node status updates', 'node lease renewal']) expect(warning).toContain(part);
    expect(warning).toMatch(/Only the local pod sources \(--pod-manifest-path, --manifest-url\) run/);
    expect(warning).toContain(`platformconfig="${conf}"`);
    // It comes right after the start line, before anything is waited for.
    const lines = agent.lines();
    expect(lines.findIndex((l) => l === warning)).toBeGreaterThan(lines.findIndex((l) => /\] Starting agent .*mode="api-server"/.test(l)));
    expect(agent.kill('SIGTERM')).toBe(true);
    expect(await agent.waitForExit(10_000)).toEqual({ code: 0, signal: null });
  });

  it('standalone mode says nothing about API-server mode', async () => {
    const dir = workDir();
    const agent = startAgent([`--root-dir=${join(dir, 'root')}`, '--healthz-port=0']);
    await agent.waitForLine(/\] all components ready /, { timeoutMs: 10_000 });
    expect(agent.stderr).not.toMatch(/API server mode/);
    expect(agent.kill('SIGTERM')).toBe(true);
    expect(await agent.waitForExit(10_000)).toEqual({ code: 0, signal: null });
  });
});

