// Reads `agent --print-config` output back: each field's value and the
// source its comment names.
import { isMap, isNode, isPair, isScalar, parseDocument, type Node } from 'yaml';
import { configSpec } from '../../src/config/options.js';
import { leaves } from '../../src/config/spec.js';

export interface PrintedField {
  value: unknown;
  /** `default`, `--config FILE`, `drop-in FILE` or `flag --NAME`. */
  source: string;
}

export function readPrinted(text: string): Map<string, PrintedField> {
  const doc = parseDocument(text);
  const js = doc.toJS() as Record<string, unknown>;
  const out = new Map<string, PrintedField>();
  for (const leaf of leaves(configSpec)) {
    const parent: unknown = leaf.keys.length === 1 ? doc.contents : doc.getIn(leaf.keys.slice(0, -1), true);
    if (!isMap(parent)) throw new Error(`printed config has no map at ${leaf.keys.slice(0, -1).join('.')}`);
    const pair = parent.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === leaf.keys[leaf.keys.length - 1]);
    if (!pair || !isPair(pair)) throw new Error(`printed config lacks field ${leaf.path}`);
    const value = pair.value as Node | null;
    const comment = (isNode(value) && value.comment) || (isScalar(pair.key) && pair.key.commentBefore) || '';
    let v: unknown = js;
    for (const k of leaf.keys) v = (v as Record<string, unknown>)[k];
    out.set(leaf.path, { value: v, source: comment.trim() });
  }
  return out;
}

/** `--flag=value` lines of the trailing comment about flag-only options. */
export function readFlagOnly(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^#\s+--([a-z0-9-]+)=(.*)$/gm)) out.set(m[1]!, m[2]!);
  return out;
}
