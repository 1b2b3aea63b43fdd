// `--vmodule` syntax and matching. klog matches patterns against source file
// names; the agent has no cheap file:line, so patterns match component names.

import { ValueError } from '../errors.js';
import type { VmoduleEntry } from './types.js';

const INT32_MAX = 2 ** 31 - 1;
const SYNTAX = 'syntax error: expect comma-separated list of pattern=N';

/**
 * Parses `pattern=N,...` with klog's rules: empty entries (a trailing comma)
 * are skipped; each entry needs exactly one `=`, a non-empty pattern and a
 * non-negative 32-bit decimal level. Throws `ValueError` (flag `--vmodule`).
 */
export function parseVmodule(text: string): VmoduleEntry[] {
  const out: VmoduleEntry[] = [];
  for (const entry of text.split(',')) {
    if (entry === '') continue;
    const parts = entry.split('=');
    const [pattern, level] = parts;
    if (parts.length !== 2 || !pattern || level === undefined || level === '') {
      throw new ValueError(`${SYNTAX}, got ${JSON.stringify(entry)}`, { flag: '--vmodule' });
    }
    if (!/^[0-9]+$/.test(level) || Number(level) > INT32_MAX) {
      const why = /^-[0-9]+$/.test(level) ? 'negative value for vmodule level' : SYNTAX;
      throw new ValueError(`${why}, got ${JSON.stringify(entry)}`, { flag: '--vmodule' });
    }
    out.push({ filePattern: pattern, verbosity: Number(level) });
  }
  return out;
}

/** Inverse of `parseVmodule`, for `--print-config` and generated docs. */
export function formatVmodule(list: ReadonlyArray<VmoduleEntry>): string {
  return list.map((e) => `${e.filePattern}=${e.verbosity}`).join(',');
}

/**
 * Whether `name` matches the glob `pattern` (`*` any run, `?` one character).
 * Greedy with one backtrack point, the last `*`: O(pattern × name) at worst.
 * A regular expression built from the glob backtracks exponentially on
 * patterns like `*a*a*a*b` (13 stars took ~0.5 s on a 28-character name).
 */
export function globMatch(pattern: string, name: string): boolean {
  const p = [...pattern];
  const n = [...name];
  let i = 0;
  let j = 0;
  let star = -1;
  let resume = 0;
  while (j < n.length) {
    if (i < p.length && (p[i] === '?' || (p[i] !== '*' && p[i] === n[j]))) {
      i++;
      j++;
    } else if (i < p.length && p[i] === '*') {
      star = i++;
      resume = j;
    } else if (star >= 0) {
      i = star + 1;
      j = ++resume;
    } else return false;
  }
  while (i < p.length && p[i] === '*') i++;
  return i === p.length;
}

/**
 * Returns the verbosity for a component. As in klog, a vmodule entry can only
 * raise the level (klog checks the global level first), and the first matching
 * entry wins. Results are cached: components are few and long-lived (the cap only guards
 * against a caller minting a component per object).
 */
export function verbosityResolver(
  global: number,
  vmodule: ReadonlyArray<VmoduleEntry>,
): (component: string) => number {
  if (vmodule.length === 0) return () => global;
  const compiled = vmodule.map((e) => ({ pattern: e.filePattern, level: e.verbosity }));
  const cache = new Map<string, number>();
  return (component) => {
    let level = cache.get(component);
    if (level === undefined) {
      const hit = compiled.find((c) => globMatch(c.pattern, component));
      level = hit ? Math.max(global, hit.level) : global;
      if (cache.size >= 1024) cache.clear();
      cache.set(component, level);
    }
    return level;
  };
}
