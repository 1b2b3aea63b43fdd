// Every validation rule through the built agent: one invocation it accepts and
// one it rejects with exit code 1 and a message naming field and flag.
// --print-config runs exactly the checks a real start runs without the runtime
// or the API server, so it stands in for a start here.
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { RULE_CASES, type Invocation } from '../fixtures/validation-cases.js';
import { runAgentProcess, tempDir } from '../helpers/agent-process.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
let files = 0;

function argsOf(inv: Invocation): string[] {
  const args = [...(inv.args ?? [])];
  if (inv.file) {
    const path = tmp.write(`c${files++}.yaml`, stringify({ apiVersion: 'agent.config.platform.io/v1beta1', kind: 'AgentConfiguration', ...inv.file }));
    args.unshift('--config', path);
  }
  return ['--print-config', ...args];
}

describe.concurrent('validation rules', () => {
  it('rule names are unique', () => {
    const names = RULE_CASES.map((c) => c.rule);
    expect(new Set(names).size).toBe(names.length);
  });
  it.each(RULE_CASES.map((c) => [c.rule, c] as const))('%s', async (_rule, c) => {
    const [ok, bad] = await Promise.all([runAgentProcess(argsOf(c.ok)), runAgentProcess(argsOf(c.bad))]);
    expect(ok.stderr.split('\n').filter((l) => l.startsWith('Error') || l.startsWith('  - '))).toEqual([]);
    expect(ok.code).toBe(0);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain(c.msg);
  });
});

describe('reporting', () => {
  it('reports every problem at once, each naming field and flag, and starts nothing', async () => {
    const run = await runAgentProcess(['--max-pods=-1', '--port=0', '--image-gc-low-threshold=95', '--healthz-port=1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Error: invalid agent configuration (3 problems):');
    expect(run.stderr).toContain('  - maxPods (--max-pods): must be >= 0, got -1');
    expect(run.stderr).toContain('  - port (--port): must be between 1 and 65535, got 0');
    expect(run.stderr).toContain('imageGCLowThresholdPercent (--image-gc-low-threshold): (95) must not be above');
    expect(run.stderr).not.toMatch(/Starting agent/);
  });
  it('insecure cipher suites are accepted with a warning', async () => {
    const run = await runAgentProcess(['--print-config', '--tls-cipher-suites=TLS_RSA_WITH_AES_128_CBC_SHA256']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/Warning: .*TLS_RSA_WITH_AES_128_CBC_SHA256/);
  });
  it('--runonce alone starts no server and is valid', async () => {
    const run = await runAgentProcess(['--print-config', '--runonce']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('runOnce: true # flag --runonce');
  });
});
