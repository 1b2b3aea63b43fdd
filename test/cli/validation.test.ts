// Every validation rule through the built agent: one invocation it accepts and
// one it rejects with exit code 1 and a message naming field and flag.
// --print-config runs exactly the checks a real start runs without the runtime
// or the API server, so it stands in for a start here.
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { execFile, execFileSync } from 'node:child_process';
import { RULE_CASES, type Invocation } from '../fixtures/validation-cases.js';
import { AGENT_BIN, runAgentProcess, tempDir } from '../helpers/agent-process.js';
import { onlineCpuCount } from '../../src/node/cpus.js';

const online = (): number => onlineCpuCount() ?? 1;
function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

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
  it('a problem with a value from a file names the file (and a drop-in names the drop-in)', async () => {
    const head = 'apiVersion: agent.config.platform.io/v1beta1\nkind: AgentConfiguration\n';
    const cfg = tmp.write('prov/config.yaml', `${head}authentication:\n  webhook:\n    enabled: false\nauthorization:\n  mode: AlwaysAllow\nmaxPods: -1\nimageGCHighThresholdPercent: 50\n`);
    const drop = tmp.write('prov/conf.d/10.conf', `${head}imageGCLowThresholdPercent: 60\noomScoreAdj: 2000\n`);
    const run = await runAgentProcess(['--print-config', '--config', cfg, '--config-dir', `${tmp.dir}/prov/conf.d`, '--port=0'], { env: { AGENT_CONFIG_DROPIN_DIR_ALPHA: '1' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`  - maxPods (--max-pods): must be >= 0, got -1 (set by --config ${cfg})\n`);
    expect(run.stderr).toContain(`  - oomScoreAdj (--oom-score-adj): must be within [-1000, 1000], got 2000 (set by drop-in ${drop})\n`);
    expect(run.stderr).toContain(`(60) must not be above imageGCHighThresholdPercent (--image-gc-high-threshold) (50) (set by drop-in ${drop}; imageGCHighThresholdPercent set by --config ${cfg})\n`);
    // A flag's value is named by the flag already.
    expect(run.stderr).toContain('  - port (--port): must be between 1 and 65535, got 0\n');
  });
  it('a bare socket path is a deprecated unix endpoint: a warning, not an error', async () => {
    const run = await runAgentProcess(['--print-config', '--container-runtime-endpoint=/run/containerd/containerd.sock']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Warning: containerRuntimeEndpoint: "/run/containerd/containerd.sock" has no URL scheme; it is used as "unix:///run/containerd/containerd.sock", which is deprecated');
  });
  it('GA and deprecated gates that configurations still carry are accepted with a warning', async () => {
    const run = await runAgentProcess(['--print-config', '--feature-gates=SeccompDefault=true,CSIMigrationRBD=false']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Warning: Setting GA feature gate SeccompDefault=true. It will be removed in a future release.');
    expect(run.stderr).toContain('Warning: Setting deprecated feature gate CSIMigrationRBD=false. It will be removed in a future release.');
  });
  it('--minimum-image-ttl-duration=0 keeps no image for a minimum time (allowed)', async () => {
    const run = await runAgentProcess(['--print-config', '--minimum-image-ttl-duration=0']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^imageMinimumGCAge: 0s # flag --minimum-image-ttl-duration$/m);
  });
  it('the static CPU manager may reserve every online CPU, not more (online CPUs, not the affinity mask)', async () => {
    const online = onlineCpuCount() ?? 1;
    const all = online === 1 ? '0' : `0-${online - 1}`;
    const ok = await runAgentProcess(['--print-config', '--cpu-manager-policy=static', `--reserved-cpus=${all}`]);
    expect(ok.stderr).not.toContain('Error');
    expect(ok.code).toBe(0);
    const bad = await runAgentProcess(['--print-config', '--cpu-manager-policy=static', `--reserved-cpus=0-${online}`]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`cannot reserve ${online + 1} CPUs on a node with ${online} online`);
  });
  it.runIf(online() >= 2 && hasTaskset())('an affinity mask of one CPU does not shrink the node (taskset)', async () => {
    const run = await new Promise<{ code: number | null; stderr: string }>((res) => {
      execFile('taskset', ['-c', '0', process.execPath, AGENT_BIN, '--print-config', '--cpu-manager-policy=static', '--reserved-cpus=0-1'], (err, _out, stderr) =>
        res({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stderr }),
      );
    });
    expect(run.stderr).not.toContain('Error');
    expect(run.code).toBe(0);
  });
  it('--runonce alone starts no server and is valid', async () => {
    const run = await runAgentProcess(['--print-config', '--runonce']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('runOnce: true # flag --runonce');
  });
});
