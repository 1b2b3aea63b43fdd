// --logging-format=json marks warnings and errors with a stable key
// (`severity`), as read from the running agent's stderr; info is unchanged.
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

describe('--logging-format=json severity', () => {
  it('warnings carry "severity":"WARNING", info records no severity', async () => {
    const dir = workDir();
    // --healthz-port is deprecated as a flag: its warning is logged by the running agent.
    const agent = startAgent([`--root-dir=${join(dir, 'root')}`, '--healthz-port=0', '--logging-format=json']);
    await agent.waitForLine(/"msg":"all components ready"/, { timeoutMs: 10_000 });
    expect(agent.kill('SIGTERM')).toBe(true);
    expect(await agent.waitForExit(10_000)).toEqual({ code: 0, signal: null });
    const recs = agent.lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    const deprecation = recs.find((r) => String(r['msg']).startsWith('Flag --healthz-port has been deprecated'));
    expect(deprecation).toMatchObject({ severity: 'WARNING', v: 0, component: 'agent' });
    expect(recs.find((r) => r['msg'] === 'Starting agent')).not.toHaveProperty('severity');
    expect(recs.filter((r) => r['severity'] === undefined).length).toBeGreaterThan(0);
  });
});
