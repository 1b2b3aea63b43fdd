// Every option of the table, through the built agent as a process: its
// default, its flag, its configuration-file field, and a value it rejects; and
// the precedence defaults < --config < drop-ins < flags, field by field.
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { configSpec } from '../../src/config/options.js';
import { flagSpec } from '../../src/config/flag-options.js';
import { leaves, setIn, type Leaf } from '../../src/config/spec.js';
import { redactEncoded } from '../../src/config/redact.js';
import { ACTION_FLAGS, CONFIG_SAMPLES, FLAG_ONLY_SAMPLES, MAP_FIELDS, type Sample } from '../fixtures/option-samples.js';
import { runAgentProcess, tempDir } from '../helpers/agent-process.js';
import { readFlagOnly, readPrinted } from '../helpers/printed.js';

const configLeaves = leaves(configSpec);
const flagOnlyLeaves = leaves(flagSpec);
const HEADER = { apiVersion: 'agent.config.platform.io/v1beta1', kind: 'AgentConfiguration' };
// Set A enables webhook authentication, which needs an API server connection.
const API_MODE = ['--platformconfig=/etc/platform/agent.conf'];
const DROPIN_ENV = { AGENT_CONFIG_DROPIN_DIR_ALPHA: 'on' };

/** A sample value as --print-config shows it: sensitive options (the manifest URL headers) redacted. */
const shown = (leaf: Leaf, v: unknown): unknown => redactEncoded(leaf.opt, v);

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function fileOf(pick: (path: string) => Sample | undefined, extra: (path: string, v: unknown) => unknown = (_p, v) => v): string {
  const obj: Record<string, unknown> = { ...HEADER };
  for (const leaf of configLeaves) {
    const sample = pick(leaf.path);
    if (sample) setIn(obj, leaf.keys, extra(leaf.path, sample.value));
  }
  return stringify(obj);
}

function flagsOf(set: 'a' | 'b'): string[] {
  return configLeaves.flatMap((leaf) => {
    const sample = CONFIG_SAMPLES[leaf.path]?.[set];
    return leaf.opt.flag && sample?.flag !== undefined ? [`--${leaf.opt.flag}=${sample.flag}`] : [];
  });
}

async function printConfig(args: string[], env: Record<string, string> = {}): Promise<ReturnType<typeof readPrinted>> {
  const run = await runAgentProcess(['--print-config', ...args], { env });
  expect(run.stderr.split('\n').filter((l) => l.startsWith('Error'))).toEqual([]);
  expect(run.code).toBe(0);
  return readPrinted(run.stdout);
}

describe('the sample table', () => {
  it('has two samples for every configuration field', () => {
    expect(Object.keys(CONFIG_SAMPLES).sort()).toEqual(configLeaves.map((l) => l.path).sort());
    for (const leaf of configLeaves) {
      const { a, b } = CONFIG_SAMPLES[leaf.path]!;
      if (leaf.opt.flag) expect.soft(a.flag, `${leaf.path} needs flag samples`).toBeDefined();
      if (leaf.path !== 'enableSystemLogHandler') expect.soft(a.value, `${leaf.path}: A and B must differ`).not.toEqual(b.value);
    }
  });
  it('has a sample for every flag-only option', () => {
    expect([...Object.keys(FLAG_ONLY_SAMPLES), ...ACTION_FLAGS].sort()).toEqual(flagOnlyLeaves.map((l) => l.path).sort());
  });
});

describe('defaults', () => {
  it('without --config: the flag defaults, every field marked default', async () => {
    const printed = await printConfig([]);
    for (const leaf of configLeaves) {
      expect.soft(printed.get(leaf.path), leaf.path).toEqual({ value: leaf.opt.kind.encode(leaf.opt.default as never), source: 'default' });
    }
  });
  it('with --config: the v1beta1 file defaults (they differ for auth and the read-only port)', async () => {
    const file = tmp.write('empty.yaml', stringify(HEADER));
    const printed = await printConfig(['--config', file, ...API_MODE]);
    for (const leaf of configLeaves) {
      expect.soft(printed.get(leaf.path), leaf.path).toEqual({ value: leaf.opt.kind.encode(leaf.opt.fileDefault as never), source: 'default' });
    }
    expect(printed.get('readOnlyPort')?.value).toBe(0);
    expect(printed.get('authorization.mode')?.value).toBe('Webhook');
    expect(printed.get('authentication.anonymous.enabled')?.value).toBe(false);
    expect(printed.get('authentication.webhook.enabled')?.value).toBe(true);
  });
});

describe('every option maps flag and file field to the same value', () => {
  it('set A as flags', async () => {
    const printed = await printConfig([...flagsOf('a'), ...API_MODE]);
    for (const leaf of configLeaves) {
      const a = CONFIG_SAMPLES[leaf.path]!.a;
      const want = leaf.opt.flag ? { value: shown(leaf, a.value), source: `flag --${leaf.opt.flag}` } : { value: leaf.opt.kind.encode(leaf.opt.default as never), source: 'default' };
      expect.soft(printed.get(leaf.path), leaf.path).toEqual(want);
    }
  });
  it('set A as a --config file', async () => {
    const file = tmp.write('a.yaml', fileOf((p) => CONFIG_SAMPLES[p]!.a));
    const printed = await printConfig(['--config', file, ...API_MODE]);
    for (const leaf of configLeaves) {
      expect.soft(printed.get(leaf.path), leaf.path).toEqual({ value: shown(leaf, CONFIG_SAMPLES[leaf.path]!.a.value), source: `--config ${file}` });
    }
  });
  it('flag-only options', async () => {
    const args = Object.entries(FLAG_ONLY_SAMPLES).map(([path, s]) => `--${flagOnlyLeaves.find((l) => l.path === path)!.opt.flag}=${s.flag}`);
    const run = await runAgentProcess(['--print-config', ...args]);
    expect(run.code).toBe(0);
    const shown = readFlagOnly(run.stdout);
    for (const leaf of flagOnlyLeaves) {
      const s = FLAG_ONLY_SAMPLES[leaf.path];
      if (s) expect.soft(shown.get(leaf.opt.flag!), leaf.path).toBe(s.shown);
    }
  });
});

describe('precedence: defaults < --config < drop-ins < flags, field by field', () => {
  const fileA = tmp.write('prec/config.yaml', fileOf((p) => CONFIG_SAMPLES[p]!.a));
  // The drop-in sets every field to B; map entries only A has are deleted with null (JSON merge patch).
  const dropB = tmp.write(
    'prec/conf.d/50-b.conf',
    fileOf(
      (p) => CONFIG_SAMPLES[p]!.b,
      (p, v) => {
        if (!MAP_FIELDS.has(p)) return v;
        const a = CONFIG_SAMPLES[p]!.a.value as Record<string, unknown>;
        return { ...Object.fromEntries(Object.keys(a).map((k) => [k, null])), ...(v as Record<string, unknown>) };
      },
    ),
  );
  const dir = dropB.slice(0, dropB.lastIndexOf('/'));

  it('drop-ins beat the file', async () => {
    const printed = await printConfig(['--config', fileA, '--config-dir', dir, ...API_MODE], DROPIN_ENV);
    for (const leaf of configLeaves) {
      expect.soft(printed.get(leaf.path), leaf.path).toEqual({ value: shown(leaf, CONFIG_SAMPLES[leaf.path]!.b.value), source: `drop-in ${dropB}` });
    }
  });
  it('flags beat drop-ins (feature gates merge)', async () => {
    const printed = await printConfig(['--config', fileA, '--config-dir', dir, ...flagsOf('a'), ...API_MODE], DROPIN_ENV);
    for (const leaf of configLeaves) {
      const { a, b } = CONFIG_SAMPLES[leaf.path]!;
      let want = leaf.opt.flag ? { value: shown(leaf, a.value), source: `flag --${leaf.opt.flag}` } : { value: shown(leaf, b.value), source: `drop-in ${dropB}` };
      if (leaf.path === 'featureGates') want = { value: { ...(b.value as object), ...(a.value as object) }, source: 'flag --feature-gates' };
      expect.soft(printed.get(leaf.path), leaf.path).toEqual(want);
    }
  });
  it('later drop-ins win, in lexical order of the file name, and only *.conf files count (subdirectories: config-files.test)', async () => {
    const d = tempDir();
    try {
      d.write('20-b.conf', stringify({ ...HEADER, maxPods: 20, podsPerCore: 2 }));
      d.write('10-a.conf', stringify({ ...HEADER, maxPods: 10, eventBurst: 11 }));
      d.write('30-c.yaml', stringify({ ...HEADER, maxPods: 30 }));
      d.write('.99-hidden.conf.bak', 'not yaml: [');
      const printed = await printConfig(['--config-dir', d.dir], DROPIN_ENV);
      expect(printed.get('maxPods')).toEqual({ value: 20, source: `drop-in ${d.dir}/20-b.conf` });
      expect(printed.get('eventBurst')).toEqual({ value: 11, source: `drop-in ${d.dir}/10-a.conf` });
      expect(printed.get('podsPerCore')).toEqual({ value: 2, source: `drop-in ${d.dir}/20-b.conf` });
    } finally {
      d.cleanup();
    }
  });
});

describe('every typed flag rejects a bad value, naming the flag and its field', () => {
  const cases = [
    ...configLeaves.flatMap((leaf) => {
      const bad = CONFIG_SAMPLES[leaf.path]?.bad;
      return bad === undefined || !leaf.opt.flag ? [] : [{ flag: leaf.opt.flag, bad, field: leaf.path as string | undefined }];
    }),
    ...flagOnlyLeaves.flatMap((leaf) => {
      const bad = FLAG_ONLY_SAMPLES[leaf.path]?.bad;
      return bad === undefined ? [] : [{ flag: leaf.opt.flag!, bad, field: undefined }];
    }),
  ];
  it('covers every flag whose kind has a syntax (plain strings and string lists take any text)', () => {
    const typed = [...configLeaves, ...flagOnlyLeaves].filter((l) => l.opt.flag && !['string', 'strings'].includes(l.opt.kind.type) && !ACTION_FLAGS.has(l.path));
    expect(cases.map((c) => c.flag).sort()).toEqual(expect.arrayContaining(typed.map((l) => l.opt.flag!).sort()));
  });
  it.each([...new Set(cases.map((c) => c.flag))])('--%s', async (flag) => {
    const c = cases.find((x) => x.flag === flag)!;
    const run = await runAgentProcess([`--${c.flag}=${c.bad}`, '--print-config']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`"--${c.flag}"`);
    if (c.field) expect(run.stderr).toContain(`config field ${c.field}`);
  });
});

describe('a deprecated flag prints one warning naming the field to use instead', () => {
  it.each([
    ['--max-pods=50', 'Flag --max-pods has been deprecated: set "maxPods" in the file given by --config instead'],
    ['--cloud-provider=external', 'Flag --cloud-provider has been deprecated and will be removed in 1.24 or later'],
  ])('%s', async (arg, warning) => {
    const run = await runAgentProcess([arg, arg, '--print-config']);
    expect(run.code).toBe(0);
    expect(run.stderr.split('\n').filter((l) => l.includes('deprecated'))).toEqual([`Warning: ${warning}`]);
  });
  it('flags without a marker do not warn', async () => {
    const run = await runAgentProcess(['--hostname-override=n1', '--v=2', '--print-config']);
    expect(run.stderr).not.toContain('deprecated');
  });
});

