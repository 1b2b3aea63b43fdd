// Configuration files as an operator writes them, including the mistakes:
// every fatal problem names the file, the field path and the line.
import { afterAll, describe, expect, it } from 'vitest';
import { runAgentProcess, tempDir } from '../helpers/agent-process.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const HEAD = 'apiVersion: agent.config.platform.io/v1beta1\nkind: AgentConfiguration\n';
const STANDALONE = 'authentication:\n  webhook:\n    enabled: false\nauthorization:\n  mode: AlwaysAllow\n';
const DROPIN_ENV = { AGENT_CONFIG_DROPIN_DIR_ALPHA: '1' };

async function withConfig(name: string, text: string, args: string[] = [], env: Record<string, string> = {}) {
  const path = tmp.write(name, text);
  return { path, run: await runAgentProcess(['--print-config', '--config', path, ...args], { env }) };
}

describe('fatal problems name file, field and line', () => {
  it.each([
    ['YAML syntax error', `${HEAD}maxPods: [1, 2\n`, /line 4: syntax error/],
    ['wrong kind', `apiVersion: agent.config.platform.io/v1beta1\nkind: KubeletConfiguration\n`, /line 2: field kind: must be "AgentConfiguration", got "KubeletConfiguration"/],
    ['wrong apiVersion', `apiVersion: agent.config.platform.io/v1\nkind: AgentConfiguration\n`, /line 1: field apiVersion: must be "agent.config.platform.io\/v1beta1", got "agent.config.platform.io\/v1"/],
    ['missing apiVersion', `kind: AgentConfiguration\nmaxPods: 5\n`, /field apiVersion: missing; must be "agent.config.platform.io\/v1beta1"/],
    ['wrong type', `${HEAD}${STANDALONE}maxPods: many\n`, /line 8: field maxPods: Invalid input: expected number, received string/],
    ['bad duration', `${HEAD}${STANDALONE}syncFrequency: 10\n`, /line 8: field syncFrequency: Invalid input: expected string, received number/],
    ['bad duration text', `${HEAD}${STANDALONE}fileCheckFrequency: 5x\n`, /line 8: field fileCheckFrequency: invalid duration "5x"/],
    ['nested wrong type', `${HEAD}authentication:\n  webhook:\n    enabled: "yes"\n`, /line 5: field authentication\.webhook\.enabled: Invalid input: expected boolean/],
    ['bad enum', `${HEAD}${STANDALONE}cgroupDriver: cgroupfs2\n`, /line 8: field cgroupDriver: must be one of "cgroupfs", "systemd", got "cgroupfs2"/],
    ['list item of the wrong shape', `${HEAD}${STANDALONE}registerWithTaints:\n  - key: a\n    effect: Sometimes\n`, /line 10: field registerWithTaints\.0\.effect:/],
    ['not a mapping', `- 1\n- 2\n`, /expected a mapping/],
    ['empty file', `\n`, /config file ".*" is empty/],
  ])('%s', async (_name, text, want) => {
    const { path, run } = await withConfig(`bad-${_name.replaceAll(' ', '-')}.yaml`, text);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(path);
    expect(run.stderr).toMatch(want);
  });
  it('all problems of one file are reported together', async () => {
    const { run } = await withConfig('many.yaml', `${HEAD}maxPods: x\nport: y\n`);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 3: field maxPods/);
    expect(run.stderr).toMatch(/line 4: field port/);
  });
  it('a missing file is named', async () => {
    const run = await runAgentProcess(['--print-config', '--config', '/nonexistent/agent.yaml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('failed to read config file "/nonexistent/agent.yaml": ENOENT');
  });
});

describe('warnings, not errors', () => {
  it('an unknown field is a warning naming file, field and line', async () => {
    const { path, run } = await withConfig('unknown.yaml', `${HEAD}${STANDALONE}maxPod: 5\nauthentication2: {}\n`);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`Warning: config file "${path}" line 8: unknown field "maxPod" (ignored)`);
    expect(run.stderr).toContain(`line 9: unknown field "authentication2"`);
  });
  it('a nested unknown field is named by its path', async () => {
    const { run } = await withConfig('nested-unknown.yaml', `${HEAD}authentication:\n  webhook:\n    enabled: false\n    cacheTtl: 1m\nauthorization:\n  mode: AlwaysAllow\n`);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('line 6: unknown field "authentication.webhook.cacheTtl"');
  });
  it('a duplicate field warns and the last value wins', async () => {
    const { run } = await withConfig('dup.yaml', `${HEAD}${STANDALONE}maxPods: 5\nmaxPods: 7\n`);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('duplicate field "maxPods" at line 9; the last value is used');
    expect(run.stdout).toMatch(/^maxPods: 7 # --config/m);
  });
});

describe('file semantics', () => {
  it('JSON files are read too', async () => {
    const { run } = await withConfig('c.json', JSON.stringify({ apiVersion: 'agent.config.platform.io/v1beta1', kind: 'AgentConfiguration', maxPods: 12, authentication: { webhook: { enabled: false } }, authorization: { mode: 'AlwaysAllow' } }));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^maxPods: 12 # --config/m);
  });
  it('a zero value in --config means unset (v1beta1 defaulting), but a flag sets it literally', async () => {
    const { run } = await withConfig('zero.yaml', `${HEAD}${STANDALONE}maxPods: 0\nsyncFrequency: 0s\n`);
    expect(run.stdout).toMatch(/^maxPods: 110 # default$/m);
    expect(run.stdout).toMatch(/^syncFrequency: 1m0s # default$/m);
    const flag = await runAgentProcess(['--print-config', '--max-pods=0']);
    expect(flag.stdout).toMatch(/^maxPods: 0 # flag --max-pods$/m);
  });
  it('nodeStatusReportFrequency follows nodeStatusUpdateFrequency when only that is set', async () => {
    const { run } = await withConfig('nsu.yaml', `${HEAD}${STANDALONE}nodeStatusUpdateFrequency: 20s\n`);
    expect(run.stdout).toMatch(/^nodeStatusReportFrequency: 20s # --config/m);
  });
  it('evictionHard in a file replaces the whole default map', async () => {
    const { run } = await withConfig('ev.yaml', `${HEAD}${STANDALONE}evictionHard:\n  memory.available: 1Gi\n`);
    expect(run.stdout).toMatch(/^evictionHard:\n {2}memory\.available: 1Gi\n[a-z]/m);
  });
  it('a relative --config path resolves from the working directory', async () => {
    tmp.write('rel/agent.yaml', `${HEAD}${STANDALONE}maxPods: 33\n`);
    const run = await runAgentProcess(['--print-config', '--config', 'rel/agent.yaml'], { cwd: tmp.dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^maxPods: 33 # --config rel\/agent\.yaml$/m);
  });
});

describe('drop-in directory', () => {
  it('needs AGENT_CONFIG_DROPIN_DIR_ALPHA, and says so', async () => {
    const dir = tmp.write('d0/10.conf', `${HEAD}maxPods: 9\n`).replace(/\/10\.conf$/, '');
    const run = await runAgentProcess(['--print-config', '--config-dir', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('AGENT_CONFIG_DROPIN_DIR_ALPHA is not set');
    const ok = await runAgentProcess(['--print-config', '--config-dir', dir], { env: DROPIN_ENV });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^maxPods: 9 # drop-in /m);
  });
  it('a drop-in needs apiVersion and kind, and a bad one is named with its line', async () => {
    const path = tmp.write('d1/10-bad.conf', `maxPods: 9\n`);
    const run = await runAgentProcess(['--print-config', '--config-dir', path.replace(/\/10-bad\.conf$/, '')], { env: DROPIN_ENV });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`drop-in config file "${path}" line 1: field apiVersion: missing`);
  });
  it('an empty drop-in is fatal', async () => {
    const path = tmp.write('d2/10-empty.conf', '');
    const run = await runAgentProcess(['--print-config', '--config-dir', path.replace(/\/10-empty\.conf$/, '')], { env: DROPIN_ENV });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`drop-in config file "${path}" is empty`);
  });
  it('a missing drop-in directory is fatal', async () => {
    const run = await runAgentProcess(['--print-config', '--config-dir', '/nonexistent/conf.d'], { env: DROPIN_ENV });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('failed to read drop-in directory "/nonexistent/conf.d": ENOENT');
  });
  it('a drop-in map merges key by key and null deletes a key', async () => {
    const cfg = tmp.write('d3/config.yaml', `${HEAD}${STANDALONE}evictionHard:\n  memory.available: 1Gi\n  nodefs.available: 10%\n`);
    tmp.write('d3/conf.d/10.conf', `${HEAD}evictionHard:\n  nodefs.available: null\n  imagefs.available: 20%\n`);
    const run = await runAgentProcess(['--print-config', '--config', cfg, '--config-dir', `${tmp.dir}/d3/conf.d`], { env: DROPIN_ENV });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^evictionHard:\n {2}memory\.available: 1Gi\n {2}imagefs\.available: 20%\n[a-z]/m);
  });
});
