// Resource quantities in apimachinery's `resource.Quantity` syntax:
//   <sign><digits>[.<digits>]<suffix>, suffix = Ki..Ei | n u m "" k M G T P E | e<int> / E<int>
// The original text is kept because files and /configz echo what the operator
// wrote; `value` (base units, a float) is for comparisons and arithmetic.
import { ValueError } from '../../errors.js';

export interface Quantity {
  readonly text: string;
  /** The amount in base units: `500m` → 0.5, `1Ki` → 1024, `1e3` → 1000. */
  readonly value: number;
}

const BINARY_SUFFIX: ReadonlyMap<string, number> = new Map([
  ['Ki', 2 ** 10],
  ['Mi', 2 ** 20],
  ['Gi', 2 ** 30],
  ['Ti', 2 ** 40],
  ['Pi', 2 ** 50],
  ['Ei', 2 ** 60],
]);

const DECIMAL_SUFFIX: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);

const SUFFIX_HELP = 'use Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E, or an exponent such as e3';
const NUMBER_AND_SUFFIX = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(.*)$/s;
const EXPONENT = /^[eE]([+-]?\d+)$/;

function fail(text: string, reason: string): never {
  throw new ValueError(`invalid quantity ${JSON.stringify(text)}: ${reason}`);
}

/** Parses a `resource.Quantity` (`10Mi`, `500m`, `1e3`, `512`); rejects `1K` as the API server does. */
export function parseQuantity(text: string): Quantity {
  if (text === '') fail(text, 'empty (expected a number with an optional suffix, e.g. 100Mi or 500m)');
  const m = NUMBER_AND_SUFFIX.exec(text);
  if (m === null) fail(text, 'expected a number with an optional suffix, e.g. 100Mi or 500m');
  const [, sign = '', number = '', suffix = ''] = m;
  const mantissa = `${sign}${number.endsWith('.') ? number.slice(0, -1) : number}`;

  let value: number;
  const binary = BINARY_SUFFIX.get(suffix);
  const decimal = DECIMAL_SUFFIX.get(suffix);
  const exponent = EXPONENT.exec(suffix);
  if (binary !== undefined) value = Number(mantissa) * binary;
  // Scaling through the exponent keeps decimal suffixes exact (`0.1k` is 100, not 100.00000000000001).
  else if (decimal !== undefined) value = Number(`${mantissa}e${decimal}`);
  else if (exponent !== null) value = Number(`${mantissa}e${exponent[1] ?? '0'}`);
  else if (/[^A-Za-z]/.test(suffix)) fail(text, 'malformed number');
  else fail(text, `unknown suffix ${JSON.stringify(suffix)} (${SUFFIX_HELP})`);

  if (!Number.isFinite(value)) fail(text, 'out of range');
  return { text, value: Object.is(value, -0) ? 0 : value };
}

export function isNegative(q: Quantity): boolean {
  return q.value < 0;
}

/**
 * A byte count for `--log-json-info-buffer-size`. Its help promises `1K` and
 * `3M` as well as `2Ki`, so upper-case `K` is accepted here (as 1000) even
 * though resource.Quantity rejects it; the result must be whole, non-negative bytes.
 */
export function parseByteSize(text: string): number {
  const hint = 'expected a whole number of bytes such as 512, 1K, 2Ki, 3M or 5Mi';
  let q: number;
  try {
    q = parseQuantity(text.endsWith('K') ? `${text.slice(0, -1)}k` : text).value;
  } catch (e) {
    if (!(e instanceof ValueError)) throw e;
    throw new ValueError(`invalid size ${JSON.stringify(text)}: ${hint}`, { cause: e });
  }
  if (q < 0) throw new ValueError(`invalid size ${JSON.stringify(text)}: must not be negative`);
  if (!Number.isSafeInteger(q)) throw new ValueError(`invalid size ${JSON.stringify(text)}: ${hint}`);
  return q;
}
