// The config-file rough edges of issue 14, through the built agent: one
// report with every kind of problem, hints as the flags give them, "did you
// mean", and files that cannot be read named with what is wrong.
import { afterAll, describe, expect, it } from 'vitest';
import { runAgentProcess, tempDir } from '../helpers/agent-process.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const HEAD = 'apiVersion: agent.config.platform.io/v1beta1\nkind: AgentConfiguration\n';
const STANDALONE = 'authentication:\n  webhook:\n    enabled: false\nauthorization:\n  mode: AlwaysAllow\n';

describe('agent --config with mistakes', () => {
  it('reports type errors, field checks and unknown-field warnings in one pass', async () => {
    const path = tmp.write('all.yaml', `${HEAD}${STANDALONE}syncFrequency: 10\nhealthzPort: 99999\nmaxpods: 5\n`);
    const run = await runAgentProcess(['--print-config', '--config', path]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`Warning: config file "${path}" line 10: unknown field "maxpods" (ignored); did you mean "maxPods"?`);
    expect(run.stderr).toContain('Error: failed to load the agent configuration (2 problems):');
    expect(run.stderr).toContain(`config file "${path}" line 8: field syncFrequency: expected a duration with a unit`);
    expect(run.stderr).toContain(`healthzPort (--healthz-port): must be 0 (disabled) or between 1 and 65535, got 99999 (set by --config ${path})`);
  });
  it('a missing --config file says it does not exist', async () => {
    const run = await runAgentProcess(['--print-config', '--config', '/nonexistent/agent.yaml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Error: failed to load the agent configuration: failed to read config file "/nonexistent/agent.yaml": ENOENT: the file does not exist');
  });
  it('a drop-in directory that is a file says so', async () => {
    const path = tmp.write('not-a-dir', HEAD);
    const run = await runAgentProcess(['--print-config', '--config-dir', path], { env: { AGENT_CONFIG_DROPIN_DIR_ALPHA: '1' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`failed to read drop-in directory "${path}": ENOTDIR: it is not a directory`);
  });
  it('a YAML syntax error gives line and column', async () => {
    const path = tmp.write('syntax.yaml', `${HEAD}${STANDALONE}clusterDomain: "x\n`);
    const run = await runAgentProcess(['--print-config', '--config', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 9: syntax error at column \d+: Missing closing "quote/);
  });
});
