// `agent --help`, generated from the option table: grouped by the spec's
// sections, one entry per flag, with type, default and markers.
import { SECTIONS, type Section } from '../config/spec.js';
import { gateHelpLines } from '../config/featuregates.js';
import { flagLeaves, type FlagLeaf } from './flags.js';
import { wrapWords } from '../util/pflag.js';

export const DESCRIPTION = `The agent is the primary "node agent" that runs on each node. It can register
the node with the API server using the hostname, a hostname override, or
cloud-provider logic.

The agent works in terms of a PodSpec: a YAML or JSON object that describes a
pod. It takes PodSpecs from the API server, from files (--pod-manifest-path) and
from an HTTP endpoint (--manifest-url), and ensures that the containers they
describe are running and healthy. It does not manage containers it did not create.

Giving --platformconfig selects API server mode; omitting it selects standalone mode.`;

/** Flag column as pflag prints it: `-v, --v Level`, `    --max-pods int32`. */
export function flagColumn(leaf: FlagLeaf): string {
  const { kind, short } = leaf.opt;
  const names = short ? `-${short}, --${leaf.flag}` : `    --${leaf.flag}`;
  const type = kind.isBool ? '' : ` ${kind.type}`;
  return `${names}${type}`;
}

export function defaultText(leaf: FlagLeaf): string {
  const { opt } = leaf;
  if (opt.defaultText !== undefined) return opt.defaultText;
  return opt.kind.show(opt.default as never);
}

/** The notes that follow a flag's help: default, stage, deprecation. */
export function annotations(leaf: FlagLeaf): string[] {
  const out: string[] = [];
  const d = defaultText(leaf);
  if (d !== '') out.push(`(default ${d})`);
  if (leaf.opt.markers.includes('alpha')) out.push('(ALPHA)');
  if (leaf.opt.markers.includes('beta')) out.push('(BETA)');
  if (leaf.table === 'config' && leaf.opt.markers.includes('cfg')) {
    out.push(`(DEPRECATED: set "${leaf.path}" in the --config file instead)`);
  } else if (leaf.opt.markers.includes('removal')) {
    out.push(`(DEPRECATED: will be removed in ${leaf.opt.removal ?? 'a future release'})`);
  }
  return out;
}

const wrap = wrapWords;

export function sectionLeaves(section: Section): FlagLeaf[] {
  return flagLeaves()
    .filter((l) => l.opt.section === section)
    .sort((a, b) => a.flag.localeCompare(b.flag));
}

export function renderHelp(width = 100): string {
  const out: string[] = [DESCRIPTION, '', 'Usage:', '  agent [flags]', ''];
  for (const { id, title } of SECTIONS) {
    const entries = sectionLeaves(id);
    if (entries.length === 0) continue;
    out.push(`${title} flags:`, '');
    const col = Math.max(...entries.map((l) => flagColumn(l).length)) + 4;
    const textWidth = Math.max(40, width - col);
    for (const leaf of entries) {
      const body = [leaf.opt.help, ...annotations(leaf)].join(' ');
      const lines = wrap(body, textWidth);
      const head = `  ${flagColumn(leaf)}`.padEnd(col);
      out.push(head + (lines[0] ?? ''));
      for (const l of lines.slice(1)) out.push(' '.repeat(col) + l);
      if (leaf.flag === 'feature-gates') for (const g of gateHelpLines()) out.push(' '.repeat(col + 2) + g);
    }
    out.push('');
  }
  return out.join('\n');
}
