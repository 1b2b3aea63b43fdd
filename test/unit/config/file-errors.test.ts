// Configuration-file errors as helpful as flag errors: what is wanted, what
// was meant, which path, where in the file, and everything in one pass.
import { mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { listDropIns, loadConfigFile, FileLayerError } from '../../../src/config/load.js';
import { ResolveError, resolveConfig } from '../../../src/config/resolve.js';
import { alsoCheck } from '../../../src/config/one-pass.js';
import { parseFlags } from '../../../src/cli/flags.js';
import { ConfigFileError, ValidationError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/agent-process.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const HEAD = 'apiVersion: agent.config.platform.io/v1beta1\nkind: AgentConfiguration\n';

async function problemsOf(text: string): Promise<string[]> {
  const file = tmp.write(`f${Math.random().toString(36).slice(2)}.yaml`, text);
  const err = await loadConfigFile(file, 'file').catch((e: unknown) => e);
  if (err instanceof ValidationError) return err.problems.map((p) => p.message);
  expect(err).toBeInstanceOf(ConfigFileError);
  return [(err as ConfigFileError).message];
}

describe('a value of the wrong type says what is wanted, as the flag error does', () => {
  it.each([
    ['syncFrequency: 10', /line 3: field syncFrequency: expected a duration with a unit, as text such as "10s", "1m30s" or "2h45m" \(units: ns, us, ms, s, m, h\), got the number 10$/],
    ['imageMinimumGCAge: true', /field imageMinimumGCAge: expected a duration with a unit.*, got the boolean true$/],
    ['logging:\n  flushFrequency: [1]', /field logging\.flushFrequency: expected a duration with a unit, as text such as "5s" or "100ms", or an integer number of nanoseconds, got a list$/],
    ['logging:\n  options:\n    json:\n      infoBufferSize: [1]', /field logging\.options\.json\.infoBufferSize: expected a size in bytes such as 512, "1K" \(1000\) or "2Ki" \(2048\), got a list$/],
    ['clusterDNS: 10.0.0.10', /field clusterDNS: expected a list of strings, such as \[a, b\], got the string "10\.0\.0\.10"$/],
    ['systemReserved: cpu=1', /field systemReserved: expected a mapping of names to strings, such as \{cpu: "500m", memory: 1Gi\}, got the string "cpu=1"$/],
    ['featureGates: NodeSwap=true', /field featureGates: expected a mapping of names to true or false, such as \{NodeSwap: true\}, got the string/],
    ['evictionHard: memory.available<100Mi', /field evictionHard: expected a mapping of eviction signals to thresholds/],
    ['registerWithTaints: a=b:NoSchedule', /field registerWithTaints: expected a list of taints, such as \[\{key: dedicated, value: infra, effect: NoSchedule\}\], got the string/],
    ['systemReserved:\n  memory: 1', /field systemReserved\.memory: expected a string \(put a number in quotes: "1"\), got the number 1$/],
    ['evictionHard:\n  memory.available: 100', /field evictionHard\.memory\.available: expected a threshold as a string, such as "100Mi" or "10%", got the number 100$/],
    ['featureGates:\n  NodeSwap: "yes"', /field featureGates\.NodeSwap: expected true or false, got the string "yes"$/],
    ['clusterDNS: [1]', /field clusterDNS\.0: expected a string \(put a number in quotes: "1"\), got the number 1$/],
    ['staticPodURLHeader:\n  X-A: v', /field staticPodURLHeader\.X-A: expected a list of values, such as \[value\], got a string$/],
    // A sensitive option's value is not echoed.
    ['staticPodURL: 5', /field staticPodURL: Invalid input: expected string, received number$/],
    ['authentication: 5', /field authentication: expected a mapping \(the fields of authentication\), got the number 5$/],
    // Kinds without a hint keep the schema's message (it names the type already).
    ['maxPods: many', /field maxPods: Invalid input: expected number, received string$/],
  ])('%s', async (line, want) => {
    const messages = await problemsOf(`${HEAD}${line}\n`);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(want);
  });
});

describe('a misspelt field gets a "did you mean"', () => {
  it.each([
    ['maxpods: 5', 'unknown field "maxpods" (ignored); did you mean "maxPods"?'],
    ['healthzport: 10248', 'unknown field "healthzport" (ignored); did you mean "healthzPort"?'],
    ['syncFrequncy: 1m', 'unknown field "syncFrequncy" (ignored); did you mean "syncFrequency"?'],
    ['authentication:\n  webhook:\n    enabeld: false', 'unknown field "authentication.webhook.enabeld" (ignored); did you mean "enabled"?'],
    ['registerWithTaints:\n  - key: a\n    effect: NoSchedule\n    Value: b', 'unknown field "registerWithTaints.0.Value" (ignored); did you mean "value"?'],
    ['colour: red', 'unknown field "colour" (ignored)'],
    ['Kind: AgentConfiguration', 'unknown field "Kind" (ignored); did you mean "kind"?'],
  ])('%s', async (text, want) => {
    const layer = await loadConfigFile(tmp.write(`u${Math.random().toString(36).slice(2)}.yaml`, `${HEAD}${text}\n`), 'file');
    expect(layer.warnings.join('\n')).toContain(want);
    if (!want.includes('did you mean')) expect(layer.warnings.join('\n')).not.toContain('did you mean');
  });
});

describe('a file or directory that cannot be read is named with what is wrong', () => {
  it('a missing --config file', async () => {
    await expect(loadConfigFile(`${tmp.dir}/nope.yaml`, 'file')).rejects.toThrow(`failed to read config file "${tmp.dir}/nope.yaml": ENOENT: the file does not exist`);
  });
  it('a directory given as --config', async () => {
    mkdirSync(`${tmp.dir}/adir`);
    await expect(loadConfigFile(`${tmp.dir}/adir`, 'file')).rejects.toThrow(`failed to read config file "${tmp.dir}/adir": EISDIR: it is a directory, not a file (drop-in directories are given with --config-dir)`);
  });
  it('a drop-in directory that is a file', async () => {
    const file = tmp.write('plain.conf', HEAD);
    await expect(listDropIns(file)).rejects.toThrow(`failed to read drop-in directory "${file}": ENOTDIR: it is not a directory`);
  });
  it('a missing drop-in directory', async () => {
    await expect(listDropIns(`${tmp.dir}/no-such-dir`)).rejects.toThrow(`failed to read drop-in directory "${tmp.dir}/no-such-dir": ENOENT: the directory does not exist`);
  });
  it('a path through a file', async () => {
    const file = tmp.write('through.yaml', HEAD);
    await expect(loadConfigFile(`${file}/x.yaml`, 'file')).rejects.toThrow(': ENOTDIR: a part of the path is not a directory');
  });
});

describe('a YAML syntax error gives its line and column', () => {
  it.each([
    [`${HEAD}maxPods: [1, 2\n`, /line 4: syntax error at column 1: Flow sequence in block collection must be sufficiently indented and end with a \]$/],
    [`${HEAD}maxPods: 5\n  port: 3\n`, /line 3: syntax error at column \d+: /],
    [`${HEAD}clusterDomain: "x\n`, /line 4: syntax error at column \d+: Missing closing "quote$/],
    [`${HEAD}\tmaxPods: 5\n`, /line 3: syntax error at column 1: Tabs are not allowed as indentation$/],
    [`${HEAD}clusterDomain: *nope\n`, /line 3: syntax error at column 16: Unresolved alias/],
  ])('%j', async (text, want) => {
    const messages = await problemsOf(text);
    expect(messages[0]).toMatch(want);
    for (const m of messages) expect(m).not.toMatch(/line \?|undefined/);
  });
});

describe('one pass: type errors, field checks and unknown-field warnings together', () => {
  async function resolveWith(text: string, extra: string[] = []) {
    const file = tmp.write(`p${Math.random().toString(36).slice(2)}.yaml`, text);
    const p = parseFlags(['--config', file, ...extra]);
    const err = await resolveConfig({ configFlags: p.configFlags, otherFlags: p.otherFlags, env: {} }).catch((e: unknown) => e);
    return { file, err };
  }
  const STANDALONE = 'authentication:\n  webhook:\n    enabled: false\nauthorization:\n  mode: AlwaysAllow\n';

  it('a file with a type error still yields its good fields and its warnings', async () => {
    const { err } = await resolveWith(`${HEAD}${STANDALONE}syncFrequency: 10\nhealthzPort: 99999\nmaxpods: 5\n`);
    expect(err).toBeInstanceOf(ResolveError);
    const e = err as ResolveError;
    expect(e.problems.map((p) => p.field)).toEqual(['syncFrequency']);
    expect(e.complete).toBe(true);
    expect(e.partial.config.healthzPort).toBe(99999);
    expect(e.partial.config.syncFrequency).toBe(60_000);
    expect(e.partial.warnings.join('\n')).toContain('did you mean "maxPods"?');
    const more = alsoCheck(e, { cpuCount: 2 });
    expect(more.problems.map((p) => p.message)).toEqual([expect.stringMatching(/^healthzPort \(--healthz-port\): must be 0 \(disabled\) or between 1 and 65535, got 99999 \(set by --config /)]);
    expect(more.warnings.join('\n')).toContain('unknown field "maxpods" (ignored); did you mean "maxPods"?');
  });
  it('a field that failed to decode is not checked again at its default', async () => {
    // The default of authentication.webhook.enabled with a file (true) needs an API server; the file's own value did not decode.
    const { err } = await resolveWith(`${HEAD}authentication:\n  webhook:\n    enabled: "no"\nauthorization:\n  mode: AlwaysAllow\n`);
    const more = alsoCheck(err, { cpuCount: 2 });
    expect(more.problems.filter((p) => p.field === 'authentication.webhook.enabled')).toEqual([]);
  });
  it('nothing more is checked when a file could not be read at all', async () => {
    const p = parseFlags(['--config', `${tmp.dir}/missing.yaml`, '--healthz-port=99999']);
    const err = await resolveConfig({ configFlags: p.configFlags, otherFlags: p.otherFlags, env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResolveError);
    expect((err as ResolveError).complete).toBe(false);
    expect(alsoCheck(err).problems).toEqual([]);
  });
  it('a FileLayerError carries the decoded fields', async () => {
    const file = tmp.write('partial.yaml', `${HEAD}maxPods: x\nport: 8000\n`);
    const err = await loadConfigFile(file, 'file').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileLayerError);
    expect([...(err as FileLayerError).layer.values]).toEqual([['port', 8000]]);
  });
});
