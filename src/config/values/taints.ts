// Node taints: `--register-with-taints` text (pkg/util/taints ParseTaints) and
// the `registerWithTaints` list from files (CheckTaintValidation).
import { ValueError } from '../../errors.js';
import { isLabelValue, isQualifiedName } from './names.js';

export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
export type TaintEffect = (typeof TAINT_EFFECTS)[number];

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
}

const isEffect = (s: string): s is TaintEffect => (TAINT_EFFECTS as readonly string[]).includes(s);
const EFFECT_HELP = `use ${TAINT_EFFECTS.join(', ')}`;

/** One `key[=value][:Effect]` item; the effect may be absent only in removal syntax. */
function parseTaintItem(item: string): { key: string; value: string; effect: TaintEffect | undefined } {
  const fail = (reason: string): never => {
    throw new ValueError(`invalid taint ${JSON.stringify(item)}: ${reason}`);
  };
  const parts = item.split(':');
  if (parts.length > 2) fail('expected key=value:Effect or key:Effect');
  const [kv = '', effectText] = parts;
  const effect =
    effectText === undefined || isEffect(effectText)
      ? effectText
      : fail(`unsupported effect ${JSON.stringify(effectText)} (${EFFECT_HELP})`);
  const kvParts = kv.split('=');
  if (kvParts.length > 2) fail("only one '=' is allowed, between key and value");
  const [key = '', value = ''] = kvParts;
  const badKey = isQualifiedName(key);
  if (badKey !== undefined) fail(`key ${JSON.stringify(key)}: ${badKey}`);
  const badValue = isLabelValue(value);
  if (badValue !== undefined) fail(`value ${JSON.stringify(value)}: ${badValue}`);
  return { key, value, effect };
}

/**
 * `key=value:Effect,key:Effect`. A trailing `-` (kubectl's removal syntax) is
 * checked and then dropped, since there is nothing to remove at registration.
 */
export function parseTaints(text: string): Taint[] {
  if (text.trim() === '') return [];
  const taints: Taint[] = [];
  const seen = new Set<string>();
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item.endsWith('-')) {
      parseTaintItem(item.slice(0, -1));
      continue;
    }
    const { key, value, effect } = parseTaintItem(item);
    if (effect === undefined) throw new ValueError(`invalid taint ${JSON.stringify(item)}: missing effect (${EFFECT_HELP})`);
    const id = `${key}:${effect}`;
    if (seen.has(id)) throw new ValueError(`invalid taint ${JSON.stringify(item)}: duplicate key and effect`);
    seen.add(id);
    taints.push(value === '' ? { key, effect } : { key, value, effect });
  }
  return taints;
}

/** Problems with one taint from a file; `what` names it in messages (e.g. `registerWithTaints[0]`). */
export function validateTaint(t: { readonly key?: unknown; readonly value?: unknown; readonly effect?: unknown }, what = 'taint'): string[] {
  const problems: string[] = [];
  if (typeof t.key !== 'string') problems.push(`${what}: key must be a string`);
  else {
    const bad = isQualifiedName(t.key);
    if (bad !== undefined) problems.push(`${what}: invalid key ${JSON.stringify(t.key)}: ${bad}`);
  }
  if (t.value !== undefined) {
    if (typeof t.value !== 'string') problems.push(`${what}: value must be a string`);
    else {
      const bad = isLabelValue(t.value);
      if (bad !== undefined) problems.push(`${what}: invalid value ${JSON.stringify(t.value)}: ${bad}`);
    }
  }
  if (typeof t.effect !== 'string' || !isEffect(t.effect)) {
    // A file may hold any JSON here; String() throws on an object whose toString is not a function.
    const shown = typeof t.effect === 'string' ? t.effect : t.effect === undefined || t.effect === null ? '' : typeof t.effect === 'object' ? `(${Array.isArray(t.effect) ? 'a list' : 'an object'})` : String(t.effect);
    problems.push(`${what}: invalid effect ${JSON.stringify(shown)} (${EFFECT_HELP})`);
  }
  return problems;
}

/** validateTaint for each entry, plus the API server's rule that key+effect pairs are unique. */
export function validateTaintList(list: readonly Taint[], what = 'registerWithTaints'): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  list.forEach((t, i) => {
    const bad = validateTaint(t, `${what}[${i}]`);
    problems.push(...bad);
    // Duplicates are only meaningful between well-formed taints (and only those have string fields to compare).
    if (bad.length > 0) return;
    const id = `${t.key}:${t.effect}`;
    if (seen.has(id)) problems.push(`${what}[${i}]: duplicate key ${JSON.stringify(t.key)} and effect ${t.effect}`);
    seen.add(id);
  });
  return problems;
}
