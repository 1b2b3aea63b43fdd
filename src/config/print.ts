// The effective configuration as an AgentConfiguration document (YAML, as
// the loader reads it back: src/config/yaml-emit.ts): every field,
// durations in the canonical form /configz uses, and a comment per field naming
// the layer its value came from. Feeding the output back as --config yields
// the same configuration, except for what a file cannot express: a zero value
// that a flag set in a field where a file's zero means "default". Such fields
// say so in a comment, and the trailing block lists the flags that keep them.
import { CONFIG_API_VERSION, CONFIG_KIND, configSpec, type AgentConfiguration } from './options.js';
import { flagSpec, type AgentFlags } from './flag-options.js';
import { flagTextOf, shellQuote } from './kinds.js';
import { getIn, leaves, setIn, type Leaf } from './spec.js';
import { describeSource, type Source } from './resolve.js';
import { emitYaml, type EntryComments } from './yaml-emit.js';
import { isSensitive, redactEncoded, shownValue, REDACTED } from './redact.js';

/**
 * The configuration in its file representation as it may be shown (what
 * --print-config prints and /configz will serve): sensitive values redacted.
 */
export function encodeConfig(config: AgentConfiguration): Record<string, unknown> {
  const out: Record<string, unknown> = { apiVersion: CONFIG_API_VERSION, kind: CONFIG_KIND };
  for (const leaf of leaves(configSpec)) setIn(out, leaf.keys, shownValue(leaf, config));
  return out;
}

/** `--name=value`, shell-quoted where needed; a sensitive value as `<redacted>`. */
function flagArg(leaf: Leaf, value: unknown): string {
  const text = flagTextOf(leaf.opt.kind, value as never);
  return `--${leaf.opt.flag}=${shellQuote(isSensitive(leaf.opt) ? String(redactEncoded(leaf.opt, text)) : text)}`;
}

/** Sensitive fields whose printed value hides something, for the header's note. */
function redactedFields(config: AgentConfiguration, encoded: Record<string, unknown>): string[] {
  return leaves(configSpec)
    .filter((leaf) => isSensitive(leaf.opt) && JSON.stringify(getIn(encoded, leaf.keys)) !== JSON.stringify(leaf.opt.kind.encode(getIn(config, leaf.keys) as never)))
    .map((leaf) => leaf.path);
}

/** Fields a flag set to a zero value that a config file would read as "unset". */
function unexpressible(config: AgentConfiguration, provenance: ReadonlyMap<string, Source>): Leaf[] {
  return leaves(configSpec).filter((leaf) => {
    if (!leaf.opt.zeroIsUnset || provenance.get(leaf.path)?.kind !== 'flag') return false;
    return leaf.opt.kind.isZero(getIn(config, leaf.keys) as never);
  });
}

export function printConfig(config: AgentConfiguration, provenance: ReadonlyMap<string, Source>, flags?: AgentFlags): string {
  const encoded = encodeConfig(config);
  const zeroes = unexpressible(config, provenance);
  const notes = new Map<string, EntryComments>();
  for (const leaf of leaves(configSpec)) {
    const source = ` ${describeSource(provenance.get(leaf.path) ?? { kind: 'default' })}`;
    const value = getIn(encoded, leaf.keys);
    // A scalar or an empty collection carries its comment on its line; a block map or list on the line above.
    const block = value !== null && typeof value === 'object' && Object.keys(value).length > 0;
    notes.set(leaf.path, block ? { before: source } : { trailing: source });
  }
  for (const leaf of zeroes) {
    const shown = JSON.stringify(leaf.opt.kind.encode(getIn(config, leaf.keys) as never));
    notes.set(leaf.path, { ...notes.get(leaf.path), before: ` ${shown} cannot be expressed in a config file (it means "default" there); pass ${flagArg(leaf, getIn(config, leaf.keys))}` });
  }
  const hidden = redactedFields(config, encoded);
  const note = hidden.length === 0 ? '' : `\n Values that may carry credentials are shown as ${REDACTED} (${hidden.join(', ')}).`;
  const header = ` Effective agent configuration. Each field says where its value came from:\n default, --config FILE, drop-in FILE or flag --NAME.${note}`;
  let text = emitYaml(encoded, (keys) => notes.get(keys.join('.')), header);
  if (flags) text += flagsComment(flags, zeroes, config);
  return text;
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
    if (['printConfig', 'printPlan', 'help', 'version', 'config', 'configDir'].includes(leaf.path)) continue;
    const value = getIn(flags, leaf.keys);
    if (JSON.stringify(value) === JSON.stringify(leaf.opt.default)) continue;
    lines.push(`#   ${flagArg(leaf, value)}`);
  }
  for (const leaf of zeroes) lines.push(`#   ${flagArg(leaf, getIn(config, leaf.keys))}`);
  if (lines.length === 0) return '';
  return ['# Flags in effect that a config file cannot express (flag-only options, and zero values a file reads as "default"):', ...lines, ''].join('\n');
}

/**
 * What /configz serves: the kubelet's `{"kubeletconfig": ...}` as
 * `agentconfig` (the document --print-config prints, sensitive values
 * redacted) and, beyond the kubelet, `sources`: where each field's value came
 * from, by dotted path, in the words --print-config's comments use.
 */
export function configzDocument(config: AgentConfiguration, provenance: ReadonlyMap<string, Source>): { agentconfig: Record<string, unknown>; sources: Record<string, string> } {
  const sources: Record<string, string> = {};
  for (const leaf of leaves(configSpec)) sources[leaf.path] = describeSource(provenance.get(leaf.path) ?? { kind: 'default' });
  return { agentconfig: encodeConfig(config), sources };
}
