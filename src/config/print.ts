// The effective configuration as an AgentConfiguration document: every field,
// durations in the canonical form /configz uses, and a comment per field naming
// the layer its value came from. Feeding the output back as --config yields
// the same configuration, except for what a file cannot express: a zero value
// that a flag set in a field where a file's zero means "default". Such fields
// say so in a comment, and the trailing block lists the flags that keep them.
import { Document, isMap, isNode, isPair, isScalar, type Node } from 'yaml';
import { CONFIG_API_VERSION, CONFIG_KIND, configSpec, type AgentConfiguration } from './options.js';
import { flagSpec, type AgentFlags } from './flag-options.js';
import { flagTextOf, shellQuote } from './kinds.js';
import { getIn, leaves, setIn, type Leaf } from './spec.js';
import { describeSource, type Source } from './resolve.js';

/** The configuration in its file representation (what /configz serves). */
export function encodeConfig(config: AgentConfiguration): Record<string, unknown> {
  const out: Record<string, unknown> = { apiVersion: CONFIG_API_VERSION, kind: CONFIG_KIND };
  for (const leaf of leaves(configSpec)) {
    setIn(out, leaf.keys, leaf.opt.kind.encode(getIn(config, leaf.keys) as never));
  }
  return out;
}

/** `--name=value`, shell-quoted where needed. */
function flagArg(leaf: Leaf, value: unknown): string {
  return `--${leaf.opt.flag}=${shellQuote(flagTextOf(leaf.opt.kind, value as never))}`;
}

/** Fields a flag set to a zero value that a config file would read as "unset". */
function unexpressible(config: AgentConfiguration, provenance: ReadonlyMap<string, Source>): Leaf[] {
  return leaves(configSpec).filter((leaf) => {
    if (!leaf.opt.zeroIsUnset || provenance.get(leaf.path)?.kind !== 'flag') return false;
    return leaf.opt.kind.isZero(getIn(config, leaf.keys) as never);
  });
}

export function printConfig(config: AgentConfiguration, provenance: ReadonlyMap<string, Source>, flags?: AgentFlags): string {
  // Written as YAML 1.1, the version the loader reads: `"yes"`, `"on"` or `"0x10"` stay quoted strings.
  const doc = new Document(encodeConfig(config), { version: '1.1' });
  const zeroes = new Set(unexpressible(config, provenance).map((l) => l.path));
  for (const leaf of leaves(configSpec)) {
    const comment = ` ${describeSource(provenance.get(leaf.path) ?? { kind: 'default' })}`;
    const parent: unknown = leaf.keys.length === 1 ? doc.contents : doc.getIn(leaf.keys.slice(0, -1), true);
    if (!isMap(parent)) continue;
    const pair = parent.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === leaf.keys[leaf.keys.length - 1]);
    if (!pair || !isPair(pair)) continue;
    const value = pair.value as Node | null;
    // A scalar carries its comment on the same line; a block map or list gets it on the line above.
    if (isScalar(value)) value.comment = comment;
    else if (isNode(value) && isEmptyCollection(value)) {
      (value as { flow?: boolean }).flow = true;
      value.comment = comment;
    }
    else if (isScalar(pair.key)) pair.key.commentBefore = comment;
    if (zeroes.has(leaf.path) && isScalar(pair.key)) {
      const shown = JSON.stringify(leaf.opt.kind.encode(getIn(config, leaf.keys) as never));
      pair.key.commentBefore = ` ${shown} cannot be expressed in a config file (it means "default" there); pass ${flagArg(leaf, getIn(config, leaf.keys))}`;
    }
  }
  doc.commentBefore = ' Effective agent configuration. Each field says where its value came from:\n default, --config FILE, drop-in FILE or flag --NAME.';
  let text = doc.toString({ lineWidth: 0 });
  if (flags) text += flagsComment(flags, [...zeroes].map((p) => leaves(configSpec).find((l) => l.path === p)!), config);
  return text;
}

function isEmptyCollection(n: Node): boolean {
  const items = (n as { items?: unknown[] }).items;
  return Array.isArray(items) && items.length === 0;
}

/**
 * Flags that a config file cannot replace, as comments, so the output still
 * round-trips: flag-only options, and zero values a file would read as "default".
 * Values are written as the flag takes them (`k=v,k2=v2` for maps), shell-quoted.
 */
function flagsComment(flags: AgentFlags, zeroes: readonly Leaf[], config: AgentConfiguration): string {
  const lines: string[] = [];
  for (const leaf of leaves(flagSpec)) {
    // The printed document itself replaces --config and --config-dir.
    if (['printConfig', 'help', 'version', 'config', 'configDir'].includes(leaf.path)) continue;
    const value = getIn(flags, leaf.keys);
    if (JSON.stringify(value) === JSON.stringify(leaf.opt.default)) continue;
    lines.push(`#   ${flagArg(leaf, value)}`);
  }
  for (const leaf of zeroes) lines.push(`#   ${flagArg(leaf, getIn(config, leaf.keys))}`);
  if (lines.length === 0) return '';
  return ['# Flags in effect that a config file cannot express (flag-only options, and zero values a file reads as "default"):', ...lines, ''].join('\n');
}
