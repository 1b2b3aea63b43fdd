// Go `time.Duration` text, as the kubelet reads and writes it. Parsing follows
// time.ParseDuration step by step (including its float rounding of fractions)
// so a value accepted here is accepted by the kubelet with the same meaning.
// The agent keeps durations as milliseconds; internally everything is integer
// nanoseconds (bigint) so that parse → format round-trips exactly.
import { ValueError } from '../../errors.js';

const NS_PER_MS = 1_000_000n;
const MAX_NS = (1n << 63n) - 1n;
const MIN_NS = -(1n << 63n);
const UNITS_HELP = 'use ns, us, ms, s, m, h';

const UNIT_NS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n], // micro sign, what Go prints
  ['\u03bcs', 1_000n], // Greek mu, which Go also accepts
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

function fail(text: string, reason: string): never {
  throw new ValueError(`invalid duration ${JSON.stringify(text)}: ${reason}`);
}

/** Parses Go duration text (`300ms`, `1.5h`, `2h45m`, `-1m`, `0`) into integer nanoseconds. */
export function parseDurationNs(text: string): bigint {
  let s = text;
  let neg = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    neg = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') fail(text, 'expected a number followed by a unit, e.g. 300ms, 1.5h or 2h45m');

  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) fail(text, `unexpected ${JSON.stringify(s)} (expected a number followed by a unit)`);
    let i = 0;
    let whole = 0n;
    while (isDigit(s[i])) {
      whole = whole * 10n + BigInt(Number(s[i]));
      if (whole > 1n << 63n) fail(text, 'out of range');
      i++;
    }
    const hasWhole = i > 0;
    // Go keeps at most as many fraction digits as fit in 63 bits and scales in float64.
    let frac = 0n;
    let scale = 1;
    let hasFrac = false;
    if (s[i] === '.') {
      i++;
      let overflow = false;
      while (isDigit(s[i])) {
        hasFrac = true;
        if (!overflow) {
          const next = frac * 10n + BigInt(Number(s[i]));
          if (frac > MAX_NS / 10n || next > 1n << 63n) overflow = true;
          else {
            frac = next;
            scale *= 10;
          }
        }
        i++;
      }
    }
    if (!hasWhole && !hasFrac) fail(text, 'expected digits before the unit');

    const unitStart = i;
    while (i < s.length && s[i] !== '.' && !isDigit(s[i])) i++;
    if (i === unitStart) fail(text, `missing unit (${UNITS_HELP})`);
    const unitText = s.slice(unitStart, i);
    const unit = UNIT_NS.get(unitText);
    if (unit === undefined) fail(text, `unknown unit ${JSON.stringify(unitText)} (${UNITS_HELP})`);

    let part = whole * unit;
    if (frac > 0n) part += BigInt(Math.trunc(Number(frac) * (Number(unit) / scale)));
    total += part;
    if (total > 1n << 63n) fail(text, 'out of range');
    s = s.slice(i);
  }
  if (neg) return -total;
  if (total > MAX_NS) fail(text, 'out of range');
  return total;
}

/** Parses Go duration text into milliseconds (fractions kept: `1500us` → 1.5). */
export function parseDuration(text: string): number {
  const ns = parseDurationNs(text);
  if (ns === 0n) return 0;
  const whole = ns / NS_PER_MS;
  return Number(whole) + Number(ns - whole * NS_PER_MS) / 1e6;
}

/** Milliseconds to integer nanoseconds, splitting off the fraction so whole milliseconds stay exact. */
export function msToNs(ms: number): bigint {
  if (!Number.isFinite(ms)) throw new ValueError(`invalid duration ${String(ms)}: not a finite number of milliseconds`);
  const whole = Math.trunc(ms);
  const ns = BigInt(whole) * NS_PER_MS + BigInt(Math.round((ms - whole) * 1e6));
  if (ns > MAX_NS || ns < MIN_NS) throw new ValueError(`invalid duration ${String(ms)}ms: out of range`);
  return ns;
}

/** Fraction digits of v / 10^prec without trailing zeros, and the integer part. */
function splitFraction(v: bigint, prec: number): { int: bigint; frac: string } {
  const div = 10n ** BigInt(prec);
  const digits = (v % div).toString().padStart(prec, '0').replace(/0+$/, '');
  return { int: v / div, frac: digits === '' ? '' : `.${digits}` };
}

/** Go's Duration.String(): `0s`, `1.5µs`, `300ms`, `1m0s`, `2h45m0s`, `-1m0s`. */
export function formatDurationNs(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const u = ns < 0n ? -ns : ns;
  if (u < 1_000_000_000n) {
    if (u < 1_000n) return `${sign}${u}ns`;
    const [prec, unit] = u < 1_000_000n ? [3, '\u00b5s'] : [6, 'ms'];
    const { int, frac } = splitFraction(u, prec);
    return `${sign}${int}${frac}${unit}`;
  }
  const { int: secs, frac } = splitFraction(u, 9);
  let out = `${secs % 60n}${frac}s`;
  const mins = secs / 60n;
  if (mins > 0n) {
    out = `${mins % 60n}m${out}`;
    const hours = mins / 60n;
    if (hours > 0n) out = `${hours}h${out}`;
  }
  return `${sign}${out}`;
}

/** Go's canonical text for a duration given in milliseconds. */
export function formatDuration(ms: number): string {
  return formatDurationNs(msToNs(ms));
}
