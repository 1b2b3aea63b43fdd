// --help, --version, the pflag command-line conventions, and the
// --print-config round trip, through the built agent.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SECTIONS } from '../../src/config/spec.js';
import { flagLeaves } from '../../src/cli/flags.js';
import { REPO, runAgentProcess, tempDir } from '../helpers/agent-process.js';
import { readPrinted } from '../helpers/printed.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** Option names in the spec's tables: `--flag` in the first column of a row. */
function specOptions(): string[] {
  const spec = readFileSync(join(REPO, '../shared/spec/agent-command-line.md'), 'utf8');
  const out = new Set<string>();
  for (const line of spec.split('\n')) {
    const first = /^\| ([^|]+)\|/.exec(line)?.[1] ?? '';
    for (const m of first.matchAll(/`(--[a-z0-9-]+)`/g)) out.add(m[1]!);
    for (const m of line.matchAll(/\(`(--[a-z0-9-]+)`, cfg\)/g)) out.add(m[1]!);
  }
  return [...out];
}

describe('--help', () => {
  it('lists every spec option exactly once, in its section, with its default', async () => {
    const run = await runAgentProcess(['--help']);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    const flagLines = lines.filter((l) => /^ {2}(-[a-z], | {4})--[a-z0-9-]+/.test(l));
    const names = flagLines.map((l) => /--([a-z0-9-]+)/.exec(l)![1]);
    expect(names.length).toBe(new Set(names).size);
    const spec = specOptions();
    expect(spec.length).toBeGreaterThanOrEqual(131);
    for (const flag of spec) expect.soft(names, flag).toContain(flag.slice(2));
    // Section: the heading above each flag is the one the table names.
    let section = '';
    const titleOf = new Map(SECTIONS.map((s) => [`${s.title} flags:`, s.id]));
    const seen = new Map<string, string>();
    for (const l of lines) {
      if (titleOf.has(l)) section = titleOf.get(l)!;
      const m = /^ {2}(?:-[a-z], | {4})--([a-z0-9-]+)/.exec(l);
      if (m) seen.set(m[1]!, section);
    }
    for (const leaf of flagLeaves()) expect.soft(seen.get(leaf.flag), leaf.flag).toBe(leaf.opt.section);
    // One entry per flag: its line plus the wrapped continuation lines, spaces folded.
    const entries = new Map<string, string>();
    let current = '';
    for (const l of lines) {
      const m = /^ {2}(?:-[a-z], | {4})--([a-z0-9-]+)/.exec(l);
      if (m) entries.set((current = m[1]!), l.trim());
      else if (current && /^ {20,}\S/.test(l)) entries.set(current, `${entries.get(current)} ${l.trim()}`);
      else current = '';
    }
    for (const leaf of flagLeaves()) {
      const shown = leaf.opt.defaultText ?? leaf.opt.kind.show(leaf.opt.default as never);
      if (shown !== '') expect.soft(entries.get(leaf.flag), leaf.flag).toContain(`(default ${shown})`);
    }
    expect(entries.get('max-pods')).toMatch(/^--max-pods int32 +Number of Pods that can run on this agent\. \(default 110\) \(DEPRECATED: set "maxPods" in the --config file instead\)$/);
    expect(entries.get('sync-frequency')).toContain('(default 1m0s)');
    expect(entries.get('eviction-hard')).toContain('(default imagefs.available<15%,memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%)');
    expect(entries.get('v')).toMatch(/^-v, --v Level +number for the log level verbosity/);
    expect(entries.get('node-labels')).toContain('(ALPHA)');
    expect(entries.get('cloud-provider')).toContain('(DEPRECATED: will be removed in 1.24 or later)');
    expect(run.stdout).toMatch(/NodeSwap=true\|false \(BETA - default=false\)/);
  });
  it('shows the spec default for every option (deviations listed with their reason)', async () => {
    // Where the agent's default is not the spec's Default column, deliberately.
    const DEVIATIONS: Record<string, string> = {
      // The 1.28 kubelet's default endpoint; the spec leaves the column empty.
      'container-runtime-endpoint': 'unix:///run/containerd/containerd.sock',
      // Said in words in the spec.
      'image-service-endpoint': 'same as --container-runtime-endpoint',
      // The spec names the pause image's shape, not a tag.
      'pod-infra-container-image': 'registry.platform.io/pause:3.9',
      // Go's default suites: nothing to show.
      'tls-cipher-suites': '',
      // The spec leaves it empty; the value is a zero duration.
      'minimum-container-ttl-duration': '0s',
      // The spec's column adds Linux's inodes threshold in words.
      'eviction-hard': 'imagefs.available<15%,memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%',
    };
    const spec = readFileSync(join(REPO, '../shared/spec/agent-command-line.md'), 'utf8');
    const specDefault = new Map<string, string>();
    for (const line of spec.split('\n')) {
      const cells = line.split('|').slice(1, -1).map((c) => c.trim());
      if (cells.length < 4) continue;
      for (const m of cells[0]!.matchAll(/`--([a-z0-9-]+)`/g)) specDefault.set(m[1]!, cells[2]!);
    }
    expect(specDefault.size).toBeGreaterThanOrEqual(125);
    // pflag shows strings quoted, lists in brackets, and no default for a false bool.
    const plain = (s: string) => s.replace(/^"(.*)"$/, '$1').replace(/^\[(.*)\]$/, '$1');
    const fromSpec = (s: string) => s.replace(/`/g, '').replace(/^'(.*)'$/, '$1').replace(/^false$/, '');
    const shown = new Map(flagLeaves().map((l) => [l.flag, plain(l.opt.defaultText ?? l.opt.kind.show(l.opt.default as never))]));
    for (const [flag, text] of specDefault) {
      expect.soft(shown.get(flag), flag).toBe(DEVIATIONS[flag] ?? fromSpec(text));
    }
    // And --help prints exactly that.
    const help = (await runAgentProcess(['--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--container-runtime-endpoint string');
    expect(help).toContain('(default "unix:///run/containerd/containerd.sock")');
  });
  it('-h is the same', async () => {
    const [a, b] = await Promise.all([runAgentProcess(['-h']), runAgentProcess(['--help'])]);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
  });
});

describe('--version', () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
  it('prints the version and exits', async () => {
    const run = await runAgentProcess(['--version']);
    expect(run).toMatchObject({ code: 0, stdout: `Agent v${pkg.version}\n` });
  });
  it('--version=raw prints the version info as JSON', async () => {
    const run = await runAgentProcess(['--version=raw']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ gitVersion: `v${pkg.version}`, nodeVersion: process.version });
  });
  it('--version=vX.Y.Z sets the reported version and does not exit', async () => {
    const run = await runAgentProcess(['--version=v1.28.4', '--print-config']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('kind: AgentConfiguration');
  });
  it('--version=false does nothing', async () => {
    const run = await runAgentProcess(['--version=false', '--print-config']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('kind: AgentConfiguration');
  });
  it('rejects a malformed version', async () => {
    const run = await runAgentProcess(['--version=v1.2']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('invalid argument "v1.2" for "--version" flag');
  });
});

describe('flag syntax as node operators type it', () => {
  const printed = async (args: string[]) => {
    const run = await runAgentProcess(['--print-config', ...args]);
    expect(run.stderr).not.toContain('Error');
    expect(run.code).toBe(0);
    return readPrinted(run.stdout);
  };
  it.each([
    [['--max-pods=7'], 'maxPods', 7],
    [['--max-pods', '7'], 'maxPods', 7],
    [['--max_pods=7'], 'maxPods', 7],
    [['--oom-score-adj', '-5'], 'oomScoreAdj', -5],
    [['--fail-swap-on=false'], 'failSwapOn', false],
    [['--fail-swap-on=0'], 'failSwapOn', false],
    [['--fail-swap-on=false', '--fail-swap-on'], 'failSwapOn', true],
    [['-v=4'], 'logging.verbosity', 4],
    [['-v', '4'], 'logging.verbosity', 4],
    [['--v', '4'], 'logging.verbosity', 4],
    [['--v=4'], 'logging.verbosity', 4],
    [['--max-pods=7', '--max-pods=9'], 'maxPods', 9],
    [['--cluster-dns=10.0.0.1,10.0.0.2', '--cluster-dns=10.0.0.3'], 'clusterDNS', ['10.0.0.1', '10.0.0.2', '10.0.0.3']],
    // Header values print redacted (their parsed values: test/unit/config/redact.test.ts).
    [['--manifest-url-header=a:1,b:2', '--manifest-url-header=a:3'], 'staticPodURLHeader', { a: ['<redacted>', '<redacted>'], b: ['<redacted>'] }],
    [['--system-reserved=cpu=1', '--system-reserved=memory=1Gi'], 'systemReserved', { cpu: '1', memory: '1Gi' }],
    [['--eviction-hard=memory.available<1Gi'], 'evictionHard', { 'memory.available': '1Gi' }],
    [['--feature-gates=NodeSwap=true', '--feature-gates=PodHostIPs=true'], 'featureGates', { NodeSwap: true, PodHostIPs: true }],
    [['--vmodule=a=1', '--vmodule=b=2'], 'logging.vmodule', [{ filePattern: 'a', verbosity: 1 }, { filePattern: 'b', verbosity: 2 }]],
    // Integers as pflag reads them: strconv.ParseInt(s, 0, bits).
    [['--max-pods=0x10'], 'maxPods', 16],
    [['--max-pods=010'], 'maxPods', 8],
    [['--max-pods=0o17'], 'maxPods', 15],
    [['--max-pods=0b101'], 'maxPods', 5],
    [['--max-pods=1_000'], 'maxPods', 1000],
    [['--max-pods=+7'], 'maxPods', 7],
    [['--oom-score-adj=-0x10'], 'oomScoreAdj', -16],
    [['--max-open-files=0x_FF'], 'maxOpenFiles', 255],
    // Header names that are also Object.prototype members stay plain keys.
    [['--manifest-url-header=constructor:x,toString:y,hasOwnProperty:z'], 'staticPodURLHeader', { constructor: ['<redacted>'], toString: ['<redacted>'], hasOwnProperty: ['<redacted>'] }],
  ])('%j', async (args, field, value) => {
    expect((await printed(args)).get(field)?.value).toEqual(value);
  });
  it.each([
    [['--max-pod=3'], 'unknown flag: --max-pod (Did you mean --max-pods?)'],
    [['--nope'], 'unknown flag: --nope'],
    [['--max-pods'], 'flag needs an argument: --max-pods'],
    [['run'], 'unexpected argument "run": the agent takes only flags'],
    [['--fail-swap-on', 'false'], 'unexpected argument "false"'],
    [['-v=high'], 'invalid argument "high" for "--v" flag'],
    [['-v'], 'flag needs an argument: -v'],
    [['--max-pods=3', '--v'], 'flag needs an argument: --v'],
    [['--max-pods= 5'], 'invalid argument " 5" for "--max-pods" flag'],
    [['--max-pods=5 '], 'invalid argument "5 " for "--max-pods" flag'],
    [['--max-pods=08'], 'invalid argument "08" for "--max-pods" flag'],
    [['--max-pods=1__0'], 'invalid argument "1__0" for "--max-pods" flag'],
    [['--max-pods=_1'], 'invalid argument "_1" for "--max-pods" flag'],
    [['--max-pods=0x'], 'invalid argument "0x" for "--max-pods" flag'],
    [['--max-pods=0x80000000'], 'invalid argument "0x80000000" for "--max-pods" flag'],
  ])('%j is rejected', async (args, message) => {
    const run = await runAgentProcess(args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Error: ${message}`);
    expect(run.stderr).toContain("Run 'agent --help' for usage.");
  });
});

describe('header names that shadow Object.prototype', () => {
  it('--manifest-url-header=__proto__:x is a header, not a crash', async () => {
    const run = await runAgentProcess(['--print-config', '--manifest-url-header=__proto__:x,a:1', '--manifest-url-header=__proto__:y']);
    expect(run.stderr).not.toContain('fatal');
    expect(run.code).toBe(0);
    const header = readPrinted(run.stdout).get('staticPodURLHeader')!.value as Record<string, unknown>;
    expect(Object.keys(header)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(header)).toBe('{"__proto__":["<redacted>","<redacted>"],"a":["<redacted>"]}');
  });
});

describe('a checkout that was never built', () => {
  it('bin/agent.js says to build instead of printing a stack', async () => {
    // bin/ copied without dist/: the loader looks for ../dist/bundle/agent.cjs next to it.
    const root = tmp.write('unbuilt/package.json', '{"type":"module"}').replace(/\/package\.json$/, '');
    for (const f of ['agent.js', 'bundle-loader.js', 'package.json']) tmp.write(`unbuilt/bin/${f}`, readFileSync(join(REPO, 'bin', f), 'utf8'));
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((res) => {
      execFile(process.execPath, [join(root, 'bin/agent.js'), '--version'], (err, stdout, stderr) => res({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }));
    });
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'agent: not built: run `npm run build`\n' });
  });
});

describe('--print-config round trip', () => {
  it('its output fed back as --config yields the same effective configuration', async () => {
    const cfg = tmp.write('rt/config.yaml', 'apiVersion: agent.config.platform.io/v1beta1\nkind: AgentConfiguration\nauthentication:\n  webhook:\n    enabled: false\nauthorization:\n  mode: AlwaysAllow\nmaxPods: 80\nevictionSoft:\n  memory.available: 500Mi\nevictionSoftGracePeriod:\n  memory.available: 1m30s\nclusterDomain: "on"\n');
    tmp.write('rt/conf.d/10.conf', 'apiVersion: agent.config.platform.io/v1beta1\nkind: AgentConfiguration\nregisterWithTaints:\n  - key: a\n    value: b\n    effect: NoSchedule\nstaticPodURLHeader:\n  X-A: [one, two]\n');
    const args = ['--config', cfg, '--config-dir', `${tmp.dir}/rt/conf.d`, '--node-labels=team=a', '--sync-frequency=90s', '--feature-gates=NodeSwap=true', '--reserved-memory=0:memory=1Gi', '--vmodule=sync=3', '--registry-burst=0', '--image-credential-provider-config=/etc/cred dir/x.yaml'];
    const first = await runAgentProcess(['--print-config', ...args], { env: { AGENT_CONFIG_DROPIN_DIR_ALPHA: '1' } });
    expect(first.code).toBe(0);
    const out = tmp.write('rt/printed.yaml', first.stdout);
    const second = await runAgentProcess(['--print-config', '--config', out]);
    expect(second.code).toBe(0);
    const values = (text: string) => new Map([...readPrinted(text)].map(([k, v]) => [k, v.value]));
    const [a, b] = [values(first.stdout), values(second.stdout)];
    // --registry-burst=0 cannot round-trip: in a file 0 means "default" (10). The output says so.
    expect([a.get('registryBurst'), b.get('registryBurst')]).toEqual([0, 10]);
    a.delete('registryBurst');
    b.delete('registryBurst');
    expect(b).toEqual(a);
    expect(a.get('clusterDomain')).toBe('on');
    expect(first.stdout).toMatch(/^# 0 cannot be expressed in a config file \(it means "default" there\); pass --registry-burst=0\nregistryBurst: 0 # flag --registry-burst$/m);
    expect(readPrinted(first.stdout).get('syncFrequency')).toEqual({ value: '1m30s', source: 'flag --sync-frequency' });
    // The trailing block lists what the file cannot carry, as shell-safe flags.
    const block = first.stdout.slice(first.stdout.indexOf('# Flags in effect'));
    expect(block.split('\n').filter((l) => l.startsWith('#   '))).toEqual([
      '#   --node-labels=team=a',
      "#   --image-credential-provider-config='/etc/cred dir/x.yaml'",
      '#   --registry-burst=0',
    ]);
  });
});
