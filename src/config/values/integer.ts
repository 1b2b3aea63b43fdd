// Integer flag values as pflag reads them: strconv.ParseInt(s, 0, bits), so
// `0x10`, `010` (octal), `0o17`, `0b101` and Go's digit-separating
// underscores (`1_000`) are accepted, and nothing else (no surrounding spaces).
import { ValueError } from '../../errors.js';

/** Go's underscoreOK: underscores only between digits (a base prefix counts as a digit). */
function underscoreOK(text: string): boolean {
  let s = text;
  if (s.startsWith('-') || s.startsWith('+')) s = s.slice(1);
  let saw = '^';
  let i = 0;
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'box'.includes((s[1] ?? '').toLowerCase())) {
    i = 2;
    saw = '0';
    hex = (s[1] ?? '').toLowerCase() === 'x';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/**
 * strconv.ParseInt(text, 0, bits) with the range given as [min, max]. Throws
 * ValueError naming `type` ("int32", "int") for bad syntax or a value out of range.
 */
export function parseGoInt(text: string, min: bigint, max: bigint, type: string): bigint {
  const syntax = (): never => {
    throw new ValueError(`invalid ${type} "${text}": not an integer (decimal, or 0x/0o/0b/0-prefixed as in Go)`);
  };
  let s = text;
  let neg = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '') return syntax();
  let base = 10;
  if (s[0] === '0') {
    const p = (s[1] ?? '').toLowerCase();
    if (s.length >= 3 && p === 'b') [base, s] = [2, s.slice(2)];
    else if (s.length >= 3 && p === 'o') [base, s] = [8, s.slice(2)];
    else if (s.length >= 3 && p === 'x') [base, s] = [16, s.slice(2)];
    else [base, s] = [8, s.slice(1)];
  }
  const outOfRange = (): never => {
    throw new ValueError(`invalid ${type} "${text}": out of range [${min}, ${max}]`);
  };
  // As Go's ParseUint, stop at the first digit that leaves the range: growing a
  // BigInt over a 128 KiB run of digits costs quadratic time.
  const limit = neg ? -min : max;
  let n = 0n;
  let underscores = false;
  const b = BigInt(base);
  for (const c of s) {
    if (c === '_') {
      underscores = true;
      continue;
    }
    const d = /[0-9]/.test(c) ? c.charCodeAt(0) - 48 : /[a-zA-Z]/.test(c) ? c.toLowerCase().charCodeAt(0) - 87 : 99;
    if (d >= base) return syntax();
    n = n * b + BigInt(d);
    if (n > limit) return outOfRange();
  }
  if (underscores && !underscoreOK(text)) return syntax();
  const v = neg ? -n : n;
  if (v < min || v > max) return outOfRange();
  return v;
}
