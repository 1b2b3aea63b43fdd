// Straightforward reference implementations the fuzz tier compares the
// parsers against. They are written from the Go specifications (time,
// strconv, apimachinery) in the most direct way, favouring clarity over
// speed: whole-grammar regexes and BigInt arithmetic, no shared code with src/.

const TWO63 = 1n << 63n;

const GO_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  '\u00b5s': 1000n,
  '\u03bcs': 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60n * 1_000_000_000n,
  h: 3600n * 1_000_000_000n,
};

/**
 * Go's time.ParseDuration: `[-+]?([0-9]*(\.[0-9]*)?unit)+` or `[-+]?0`;
 * fractions keep the digits that fit in 63 bits and are scaled in float64,
 * then truncated. undefined means Go rejects the text.
 */
export function goParseDuration(text: string): bigint | undefined {
  const m = /^([-+]?)(.*)$/s.exec(text)!;
  const neg = m[1] === '-';
  let rest = m[2]!;
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let sum = 0n;
  const part = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/s;
  while (rest !== '') {
    const [all, int = '', frac, unitText = ''] = part.exec(rest)!;
    if (int === '' && (frac === undefined || frac === '')) return undefined;
    const unit = GO_UNITS[unitText];
    if (unit === undefined) return undefined;
    const whole = BigInt(`0${int}`);
    if (whole * unit > TWO63) return undefined;
    let v = whole * unit;
    // The fraction digits Go keeps: the longest prefix whose value stays within 2^63 (and whose predecessor within (2^63-1)/10).
    let f = 0n;
    let scale = 1;
    for (const d of frac ?? '') {
      if (f > (TWO63 - 1n) / 10n || f * 10n + BigInt(d) > TWO63) break;
      f = f * 10n + BigInt(d);
      scale *= 10;
    }
    if (f > 0n) v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
    if (v > TWO63) return undefined;
    sum += v;
    if (sum > TWO63) return undefined;
    rest = rest.slice(all.length);
  }
  if (neg) return -sum;
  return sum > TWO63 - 1n ? undefined : sum;
}

/** `v / 10^digits` as decimal text without trailing fraction zeros, e.g. (1500n, 3) → '1.5'. */
function decimal(v: bigint, digits: number): string {
  const text = v.toString().padStart(digits + 1, '0');
  const int = text.slice(0, text.length - digits);
  const frac = text.slice(text.length - digits).replace(/0+$/, '');
  return frac === '' ? int : `${int}.${frac}`;
}

/**
 * Go's Duration.String(), from its documented form: below one second a single
 * unit (ns, µs, ms) with a decimal fraction; from one second `[Nh][Nm]N.Fs`,
 * where minutes appear whenever hours do.
 */
export function goDurationString(ns: bigint): string {
  const sign = ns < 0n ? '-' : '';
  const u = ns < 0n ? -ns : ns;
  if (u === 0n) return '0s';
  if (u < 1000n) return `${sign}${u}ns`;
  if (u < 1_000_000n) return `${sign}${decimal(u, 3)}\u00b5s`;
  if (u < 1_000_000_000n) return `${sign}${decimal(u, 6)}ms`;
  const h = u / 3_600_000_000_000n;
  const m = (u / 60_000_000_000n) % 60n;
  const s = decimal(u % 60_000_000_000n, 9);
  return `${sign}${h > 0n ? `${h}h` : ''}${h > 0n || m > 0n ? `${m}m` : ''}${s}s`;
}

/** strconv.ParseInt(text, 0, 64) syntax, as one regex per base; the value via BigInt. undefined: bad syntax. */
export function goParseIntBase0(text: string): bigint | undefined {
  const m = /^([+-]?)(?:0[bB]((?:_?[01])+)|0[oO]((?:_?[0-7])+)|0[xX]((?:_?[0-9a-fA-F])+)|0((?:_?[0-7])*)|([1-9](?:_?[0-9])*))$/.exec(text);
  if (m === null) return undefined;
  const [, sign, bin, oct, hex, legacyOct, dec] = m;
  const digits = (s: string): string => s.replaceAll('_', '');
  let v: bigint;
  if (bin !== undefined) v = BigInt(`0b${digits(bin)}`);
  else if (oct !== undefined) v = BigInt(`0o${digits(oct)}`);
  else if (hex !== undefined) v = BigInt(`0x${digits(hex)}`);
  else if (legacyOct !== undefined) v = legacyOct === '' ? 0n : BigInt(`0o${digits(legacyOct)}`);
  else v = BigInt(digits(dec!));
  return sign === '-' ? -v : v;
}

/** resource.Quantity syntax the agent accepts (apimachinery's, minus its oddities such as a bare `-`). */
export const QUANTITY_GRAMMAR = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

/** apimachinery IsQualifiedName, character by character. */
export function refQualifiedName(value: string): boolean {
  const parts = value.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1]!;
  if (parts.length === 2 && !refDnsSubdomain(parts[0]!)) return false;
  return name.length >= 1 && name.length <= 63 && refNameToken(name);
}

const isAlnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c);

/** `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?` without a regex quantifier. */
export function refNameToken(s: string): boolean {
  if (s === '' || !isAlnum(s[0]!) || !isAlnum(s[s.length - 1]!)) return false;
  return [...s].every((c) => isAlnum(c) || c === '-' || c === '_' || c === '.');
}

export function refLabelValue(s: string): boolean {
  return s === '' || (s.length <= 63 && refNameToken(s));
}

/** RFC 1123 subdomain: labels of [a-z0-9-], not starting or ending with `-`, joined by dots; at most 253 characters. */
export function refDnsSubdomain(s: string): boolean {
  if (s.length === 0 || s.length > 253) return false;
  return s.split('.').every((label) => label !== '' && /^[a-z0-9-]+$/.test(label) && !label.startsWith('-') && !label.endsWith('-'));
}

/** k8s.io/utils/cpuset.Parse restricted to unsigned decimal CPU numbers in [0, max]; undefined when rejected. */
export function refCpuSet(text: string, max: number): number[] | undefined {
  if (text.trim() === '') return [];
  const cpus = new Set<number>();
  for (const item of text.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(item);
    if (m === null) return undefined;
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (lo > max || hi > max || lo > hi) return undefined;
    for (let c = lo; c <= hi; c++) cpus.add(c);
  }
  return [...cpus].sort((a, b) => a - b);
}
