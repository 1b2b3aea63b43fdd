// What the README tells a new operator, checked against the built agent: the
// options table's markers mean what the prose above it says, and the README
// states its differences from the kubelet instead of claiming it behaves
// "exactly" like it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runAgentProcess } from '../helpers/agent-process.js';

const README = readFileSync(join(REPO, 'README.md'), 'utf8');

/** The Notes cell of a flag's row in the README's generated options tables. */
function notesOf(flag: string): string {
  const row = README.split('\n').find((l) => l.startsWith(`| \`--${flag}\` |`));
  expect(row, `no README row for --${flag}`).toBeDefined();
  return row!.split('|').at(-2)!.trim();
}

describe('README', () => {
  it('makes no claim of behaving exactly like the kubelet, and lists the deliberate differences', () => {
    expect(README).not.toMatch(/exactly as they would run the kubelet/);
    const section = /\n## Where it differs from the kubelet\n([\s\S]*?)\n## /.exec(README)?.[1] ?? '';
    expect(section, 'the README has a "Where it differs from the kubelet" section').not.toBe('');
    // The difference a new user meets first: editing a static pod.
    expect(section).toMatch(/keeps? its UID|UID comes from the pod's\s+identity/);
    expect(section).toMatch(/only containers whose spec changed restart/);
    expect(README).toContain('](#where-it-differs-from-the-kubelet)');
  });

  it('explains the cfg marker next to the options table', () => {
    const before = README.slice(README.indexOf('## Options reference'), README.indexOf('<!-- options:begin'));
    expect(before).toMatch(/`cfg` marks a flag that is deprecated in favour of that\s+field/);
  });

  it('a cfg flag warns that it is deprecated in favour of its config field; a field without cfg does not', async () => {
    expect(notesOf('max-pods')).toContain('cfg');
    expect(notesOf('container-runtime-endpoint')).not.toContain('cfg');
    const cfgFlag = await runAgentProcess(['--max-pods=50', '--print-config']);
    expect(cfgFlag.code).toBe(0);
    expect(cfgFlag.stderr).toMatch(/Flag --max-pods has been deprecated: set "maxPods" in the file given by --config instead/);
    const plain = await runAgentProcess(['--container-runtime-endpoint=unix:///run/x.sock', '--print-config']);
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toMatch(/deprecated/);
  });
});
