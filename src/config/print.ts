// The effective configuration as an AgentConfiguration document: every field,
// durations in the canonical form /configz uses, and a comment per field naming
// the layer its value came from. Feeding the output back as --config yields
// the same configuration.
import { Document, isMap, isNode, isPair, isScalar, type Node } from 'yaml';
import { CONFIG_API_VERSION, CONFIG_KIND, configSpec, type AgentConfiguration } from './options.js';
import { flagSpec, type AgentFlags } from './flag-options.js';
import { getIn, leaves, setIn } from './spec.js';
import { describeSource, type Source } from './resolve.js';

/** The configuration in its file representation (what /configz serves). */
export function encodeConfig(config: AgentConfiguration): Record<string, unknown> {
  const out: Record<string, unknown> = { apiVersion: CONFIG_API_VERSION, kind: CONFIG_KIND };
  for (const leaf of leaves(configSpec)) {
    setIn(out, leaf.keys, leaf.opt.kind.encode(getIn(config, leaf.keys) as never));
  }
  return out;
}

export function printConfig(config: AgentConfiguration, provenance: ReadonlyMap<string, Source>, flags?: AgentFlags): string {
  const doc = new Document(encodeConfig(config));
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
  }
  doc.commentBefore = ' Effective agent configuration. Each field says where its value came from:\n default, --config FILE, drop-in FILE or flag --NAME.';
  let text = doc.toString({ lineWidth: 0 });
  if (flags) text += flagOnlyComment(flags);
  return text;
}

function isEmptyCollection(n: Node): boolean {
  const items = (n as { items?: unknown[] }).items;
  return Array.isArray(items) && items.length === 0;
}

/** Flags that have no configuration field are listed as comments so the output still round-trips. */
function flagOnlyComment(flags: AgentFlags): string {
  const lines: string[] = [];
  for (const leaf of leaves(flagSpec)) {
    if (leaf.path === 'printConfig' || leaf.path === 'help' || leaf.path === 'version') continue;
    const value = getIn(flags, leaf.keys);
    if (JSON.stringify(value) === JSON.stringify(leaf.opt.default)) continue;
    const text = leaf.opt.kind.encode(value as never);
    lines.push(`#   --${leaf.opt.flag}=${typeof text === 'string' ? text : JSON.stringify(text)}`);
  }
  if (lines.length === 0) return '';
  return ['# Flags in effect that have no AgentConfiguration field:', ...lines, ''].join('\n');
}
