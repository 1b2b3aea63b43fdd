// Configuration files as an operator writes them, including the mistakes:
// every fatal problem names the file, the field path and the line.
import { symlinkSync, mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runAgentProcess, tempDir } from '../helpers/agent-process.js';
import { readPrinted } from '../helpers/printed.js';

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
    // Issue 14: the file error says what the flag error says, a duration needs a unit.
    ['bad duration', `${HEAD}${STANDALONE}syncFrequency: 10\n`, /line 8: field syncFrequency: expected a duration with a unit, as text such as "10s", "1m30s" or "2h45m" \(units: ns, us, ms, s, m, h\), got the number 10/],
    ['bad duration text', `${HEAD}${STANDALONE}fileCheckFrequency: 5x\n`, /line 8: field fileCheckFrequency: invalid duration "5x"/],
    ['nested wrong type', `${HEAD}authentication:\n  webhook:\n    enabled: "yes"\n`, /line 5: field authentication\.webhook\.enabled: Invalid input: expected boolean/],
    ['bad enum', `${HEAD}${STANDALONE}cgroupDriver: cgroupfs2\n`, /line 8: field cgroupDriver: must be one of "cgroupfs", "systemd", got "cgroupfs2"/],
    ['list item of the wrong shape', `${HEAD}${STANDALONE}registerWithTaints:\n  - key: a\n    effect: Sometimes\n`, /line 10: field registerWithTaints\.0\.effect:/],
    ['not a mapping', `- 1\n- 2\n`, /expected a mapping/],
    ['empty file', `\n`, /config file ".*" is empty/],
    ['two YAML documents', `${HEAD}${STANDALONE}maxPods: 5\n---\n${HEAD}maxPods: 6\n`, /config file ".*" holds 2 YAML documents \(the second starts at line 10\)/],
    ['an alias bomb', `${HEAD}${STANDALONE}x-a: &a [1, 2]\nx-b: [${Array(120).fill('*a').join(', ')}]\n`, /config file ".*": Excessive alias count/],
    ['a timestamp on a taint', `${HEAD}${STANDALONE}registerWithTaints:\n  - key: a\n    effect: NoSchedule\n    timeAdded: 2024-01-01T00:00:00Z\n`, /line 11: field registerWithTaints\.0\.timeAdded: timeAdded must not be set/],
    ['a fractional flush frequency in nanoseconds', `${HEAD}${STANDALONE}logging:\n  flushFrequency: 1.5\n`, /field logging\.flushFrequency:/],
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
  it('a key that is a list is an unknown field, reported by the agent alone (no raw node warning from the YAML library)', async () => {
    const { path, run } = await withConfig('complex-key.yaml', `${HEAD}${STANDALONE}? [a]\n: 1\n`);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`Warning: config file "${path}" line 8: unknown field "[ a ]" (ignored)`);
    expect(run.stderr).not.toContain('(node:');
  });
  it('an unknown key inside a list item is a warning naming its path', async () => {
    const text = `${HEAD}${STANDALONE}registerWithTaints:\n  - key: a\n    effect: NoSchedule\n    colour: red\nreservedMemory:\n  - numaNode: 0\n    limits: {memory: 1Gi}\n    extra: 1\nshutdownGracePeriodByPodPriority:\n  - priority: 1\n    shutdownGracePeriodSeconds: 10\n    note: x\nlogging:\n  vmodule:\n    - filePattern: sync\n      verbosity: 2\n      level: 3\n`;
    const { path, run } = await withConfig('item-unknown.yaml', text);
    expect(run.stderr).toContain(`Warning: config file "${path}" line 11: unknown field "registerWithTaints.0.colour" (ignored)`);
    expect(run.stderr).toContain('line 15: unknown field "reservedMemory.0.extra" (ignored)');
    expect(run.stderr).toContain('line 19: unknown field "shutdownGracePeriodByPodPriority.0.note" (ignored)');
    expect(run.stderr).toContain('line 24: unknown field "logging.vmodule.0.level" (ignored)');
    expect(readPrinted(run.stdout).get('registerWithTaints')?.value).toEqual([{ key: 'a', effect: 'NoSchedule' }]);
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
  it('a zero nodeStatusReportFrequency counts as unset, a zero update frequency does not lend it 0', async () => {
    const zeroReport = await withConfig('nsr0.yaml', `${HEAD}${STANDALONE}nodeStatusUpdateFrequency: 20s\nnodeStatusReportFrequency: 0s\n`);
    expect(zeroReport.run.stdout).toMatch(/^nodeStatusReportFrequency: 20s # --config/m);
    const zeroUpdate = await withConfig('nsu0.yaml', `${HEAD}${STANDALONE}nodeStatusUpdateFrequency: 0s\n`);
    expect(zeroUpdate.run.code).toBe(0);
    expect(zeroUpdate.run.stdout).toMatch(/^nodeStatusUpdateFrequency: 10s # default$/m);
    expect(zeroUpdate.run.stdout).toMatch(/^nodeStatusReportFrequency: 5m0s # default$/m);
  });
  it('an empty enum value counts as unset (v1beta1 defaults it)', async () => {
    const enums = 'cgroupDriver: ""\nhairpinMode: ""\nmemoryManagerPolicy: ""\ncpuManagerPolicy: ""\ntopologyManagerPolicy: ""\ntopologyManagerScope: ""\nconfigMapAndSecretChangeDetectionStrategy: ""\nlogging:\n  format: ""\n';
    const { run } = await withConfig('empty-enums.yaml', `${HEAD}authentication:\n  webhook:\n    enabled: false\nauthorization:\n  mode: ""\n${enums}`, ['--platformconfig=/etc/platform/agent.conf']);
    expect(run.stderr).not.toContain('Error');
    expect(run.code).toBe(0);
    const printed = readPrinted(run.stdout);
    const want: Record<string, string> = { cgroupDriver: 'cgroupfs', hairpinMode: 'promiscuous-bridge', memoryManagerPolicy: 'None', cpuManagerPolicy: 'none', topologyManagerPolicy: 'none', topologyManagerScope: 'container', configMapAndSecretChangeDetectionStrategy: 'Watch', 'logging.format': 'text', 'authorization.mode': 'Webhook' };
    for (const [field, value] of Object.entries(want)) expect.soft(printed.get(field), field).toEqual({ value, source: 'default' });
  });
  it('maxParallelImagePulls of 2 or more without serializeImagePulls turns serial pulls off', async () => {
    const { path, run } = await withConfig('parallel.yaml', `${HEAD}${STANDALONE}maxParallelImagePulls: 4\n`);
    expect(run.code).toBe(0);
    expect(readPrinted(run.stdout).get('serializeImagePulls')).toEqual({ value: false, source: `--config ${path}` });
    expect(readPrinted(run.stdout).get('maxParallelImagePulls')).toEqual({ value: 4, source: `--config ${path}` });
    const unset = await withConfig('parallel-unset.yaml', `${HEAD}${STANDALONE}maxPods: 9\n`);
    expect(readPrinted(unset.run.stdout).get('maxParallelImagePulls')).toEqual({ value: null, source: 'default' });
    expect(readPrinted(unset.run.stdout).get('serializeImagePulls')).toEqual({ value: true, source: 'default' });
  });
  it('a negative podPidsLimit in a file is read as -1 (v1beta1), a flag keeps it', async () => {
    const { path, run } = await withConfig('pids.yaml', `${HEAD}${STANDALONE}podPidsLimit: -5\n`);
    expect(readPrinted(run.stdout).get('podPidsLimit')).toEqual({ value: -1, source: `--config ${path}` });
    const flag = await withConfig('pids-flag.yaml', `${HEAD}${STANDALONE}podPidsLimit: 100\n`, ['--pod-max-pids=-5']);
    expect(readPrinted(flag.run.stdout).get('podPidsLimit')).toEqual({ value: -5, source: 'flag --pod-max-pids' });
  });
  it('logging.flushFrequency may be integer nanoseconds and infoBufferSize a number', async () => {
    const { run } = await withConfig('logging.yaml', `${HEAD}${STANDALONE}featureGates:\n  LoggingAlphaOptions: true\nlogging:\n  flushFrequency: 2000000000\n  options:\n    json:\n      infoBufferSize: 1024\n`);
    expect(run.stderr).not.toContain('Error');
    expect(readPrinted(run.stdout).get('logging.flushFrequency')?.value).toBe('2s');
    expect(readPrinted(run.stdout).get('logging.options.json.infoBufferSize')?.value).toBe('1024');
  });
  it('a trailing --- (an empty second document) is fine', async () => {
    const { run } = await withConfig('trailing.yaml', `---\n${HEAD}${STANDALONE}maxPods: 5\n---\n`);
    expect(run.stderr).not.toContain('Error');
    expect(run.stdout).toMatch(/^maxPods: 5 # --config/m);
  });
  it('is YAML 1.1, as sigs.k8s.io/yaml reads it: yes/no/on/off, 0x and 0-octal numbers, << merge keys', async () => {
    const text = `${HEAD}${STANDALONE}failSwapOn: no\nregisterNode: off\nrunOnce: yes\nenableServer: off\nmaxPods: 0x20\npodsPerCore: 010\neventBurst: 1_000\nx-eviction: &ev\n  memory.available: 1Gi\n  nodefs.available: 5%\nevictionHard:\n  <<: *ev\n  imagefs.available: 20%\nclusterDomain: 2001-12-14\n`;
    const { run } = await withConfig('yaml11.yaml', text);
    expect(run.stderr).not.toContain('Error');
    expect(run.code).toBe(0);
    const v = (f: string) => readPrinted(run.stdout).get(f)?.value;
    expect([v('failSwapOn'), v('registerNode'), v('runOnce'), v('enableServer')]).toEqual([false, false, true, false]);
    expect([v('maxPods'), v('podsPerCore'), v('eventBurst')]).toEqual([32, 8, 1000]);
    expect(v('evictionHard')).toEqual({ 'memory.available': '1Gi', 'nodefs.available': '5%', 'imagefs.available': '20%' });
    // go-yaml hands a timestamp to the JSON conversion as text.
    expect(v('clusterDomain')).toBe('2001-12-14');
  });
  it('a drop-in reads zero values as unset too, and its update frequency carries the report frequency', async () => {
    const cfg = tmp.write('dz/config.yaml', `${HEAD}${STANDALONE}maxPods: 50\ncgroupDriver: systemd\npodPidsLimit: 100\n`);
    const drop = tmp.write('dz/conf.d/10.conf', `${HEAD}maxPods: 0\ncgroupDriver: ""\nsyncFrequency: 0s\nnodeStatusUpdateFrequency: 30s\npodPidsLimit: -3\n`);
    const run = await runAgentProcess(['--print-config', '--config', cfg, '--config-dir', `${tmp.dir}/dz/conf.d`], { env: DROPIN_ENV });
    expect(run.code).toBe(0);
    const printed = readPrinted(run.stdout);
    expect(printed.get('maxPods')).toEqual({ value: 50, source: `--config ${cfg}` });
    expect(printed.get('cgroupDriver')).toEqual({ value: 'systemd', source: `--config ${cfg}` });
    expect(printed.get('syncFrequency')).toEqual({ value: '1m0s', source: 'default' });
    expect(printed.get('podPidsLimit')).toEqual({ value: -1, source: `drop-in ${drop}` });
    expect(printed.get('nodeStatusReportFrequency')).toEqual({ value: '30s', source: `drop-in ${drop}` });
  });
  it('an explicit nodeStatusReportFrequency is not overridden by a later update frequency', async () => {
    const cfg = tmp.write('dr/config.yaml', `${HEAD}${STANDALONE}nodeStatusReportFrequency: 2m\n`);
    tmp.write('dr/conf.d/10.conf', `${HEAD}nodeStatusUpdateFrequency: 30s\n`);
    const run = await runAgentProcess(['--print-config', '--config', cfg, '--config-dir', `${tmp.dir}/dr/conf.d`], { env: DROPIN_ENV });
    expect(readPrinted(run.stdout).get('nodeStatusReportFrequency')).toEqual({ value: '2m0s', source: `--config ${cfg}` });
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
  it('the directory is walked recursively, each directory in lexical order (filepath.WalkDir)', async () => {
    // Root entries sorted: "10.conf", "20" (a directory, walked in place), "30.conf".
    const d = `${tmp.dir}/walk`;
    tmp.write('walk/10.conf', `${HEAD}maxPods: 10\neventBurst: 10\n`);
    tmp.write('walk/20/05.conf', `${HEAD}maxPods: 20\npodsPerCore: 20\n`);
    tmp.write('walk/20/deeper/01.conf', `${HEAD}podsPerCore: 21\n`);
    tmp.write('walk/30.conf', `${HEAD}eventBurst: 30\n`);
    tmp.write('walk/40/notes.txt', 'not a drop-in');
    mkdirSync(`${d}/50.conf`); // a directory named *.conf is walked, not read
    const run = await runAgentProcess(['--print-config', '--config-dir', d], { env: DROPIN_ENV });
    expect(run.stderr).not.toContain('Error');
    const printed = readPrinted(run.stdout);
    expect(printed.get('maxPods')).toEqual({ value: 20, source: `drop-in ${d}/20/05.conf` });
    expect(printed.get('podsPerCore')).toEqual({ value: 21, source: `drop-in ${d}/20/deeper/01.conf` });
    expect(printed.get('eventBurst')).toEqual({ value: 30, source: `drop-in ${d}/30.conf` });
  });
  it('a dangling symbolic link is an error naming it, not a crash', async () => {
    const dir = `${tmp.dir}/dangling`;
    tmp.write('dangling/10.conf', `${HEAD}maxPods: 10\n`);
    symlinkSync(`${dir}/gone.yaml`, `${dir}/20-link.conf`);
    const run = await runAgentProcess(['--print-config', '--config-dir', dir], { env: DROPIN_ENV });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('fatal');
    expect(run.stderr).toContain(`failed to read drop-in config file "${dir}/20-link.conf": ENOENT`);
  });
  it('a symbolic link to a file counts as that file', async () => {
    const target = tmp.write('linked/real.yaml', `${HEAD}maxPods: 12\n`);
    mkdirSync(`${tmp.dir}/linked/conf.d`);
    symlinkSync(target, `${tmp.dir}/linked/conf.d/10.conf`);
    const run = await runAgentProcess(['--print-config', '--config-dir', `${tmp.dir}/linked/conf.d`], { env: DROPIN_ENV });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^maxPods: 12 # drop-in /m);
  });
  it('a drop-in map merges key by key and null deletes a key', async () => {
    const cfg = tmp.write('d3/config.yaml', `${HEAD}${STANDALONE}evictionHard:\n  memory.available: 1Gi\n  nodefs.available: 10%\n`);
    tmp.write('d3/conf.d/10.conf', `${HEAD}evictionHard:\n  nodefs.available: null\n  imagefs.available: 20%\n`);
    const run = await runAgentProcess(['--print-config', '--config', cfg, '--config-dir', `${tmp.dir}/d3/conf.d`], { env: DROPIN_ENV });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^evictionHard:\n {2}memory\.available: 1Gi\n {2}imagefs\.available: 20%\n[a-z]/m);
  });
});
