// Fuzz tier (issue 13), numeric and key/value flag-value parsers: every
// generated input is either accepted with a value in the parser's domain or
// rejected with a ValueError; accepted values round-trip through the
// formatter; the Go-syntax parsers agree with a reference implementation.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, formatDurationNs, msToNs, parseDuration, parseDurationNs } from '../../src/config/values/duration.js';
import { parseByteSize, parseQuantity } from '../../src/config/values/quantity.js';
import { parseGoInt } from '../../src/config/values/integer.js';
import { parseGoBool, parseHeaders, parseLangleSeparatedMap, parseMapStringBool, parseMapStringString } from '../../src/config/values/kv.js';
import { formatCpuSet, parseCpuSet } from '../../src/config/values/cpuset.js';
import { ValueError } from '../../src/errors.js';
import { attempt, check, checkLong, fuzzText, numberText } from './flag-arbitraries.js';
import { QUANTITY_GRAMMAR, goDurationString, goParseDuration, goParseIntBase0, refCpuSet } from './flag-oracles.js';

const MAX_NS = (1n << 63n) - 1n;
const MIN_NS = -(1n << 63n);

const DURATION_PIECES = ['0', '1', '5', '9', '00', '.', '.5', '1.5', '-', '+', 'ns', 'us', '\u00b5s', '\u03bcs', 'ms', 's', 'm', 'h', 'd', 'x', ' ', '2562047', '9223372036854775807', '9223372036854775808', '854775807', '000000000000000000001'];

describe('durations (Go time.Duration)', () => {
  const durationText = fuzzText(DURATION_PIECES, 10);

  it('parseDurationNs agrees with a reference time.ParseDuration, and stays in int64', () => {
    check(
      fc.property(durationText, (text) => {
        const r = attempt(() => parseDurationNs(text), ValueError);
        const want = goParseDuration(text);
        if (r.ok) {
          expect(r.value).toBe(want);
          expect(r.value >= MIN_NS && r.value <= MAX_NS).toBe(true);
        } else {
          expect(want).toBeUndefined();
          expect(r.error.message).toContain('invalid duration');
        }
      }),
      3000,
    );
  });

  it('formatDurationNs writes what Go writes, and is the inverse of parseDurationNs over the whole int64 range', () => {
    check(
      fc.property(fc.oneof(fc.bigInt({ min: MIN_NS, max: MAX_NS }), fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), fc.constantFrom(MIN_NS, MAX_NS, 0n, 1n, -1n, 999n, 1000n, 999_999n, 60_000_000_000n, 3_600_000_000_000n)), (ns) => {
        const text = formatDurationNs(ns);
        expect(text).toBe(goDurationString(ns));
        expect(parseDurationNs(text)).toBe(ns);
      }),
      1000,
    );
  });

  it('parseDuration (ms) is finite and parse(format(parse(x))) = parse(x)', () => {
    check(
      fc.property(durationText, (text) => {
        const r = attempt(() => parseDuration(text), ValueError);
        if (!r.ok) return;
        expect(Number.isFinite(r.value)).toBe(true);
        expect(parseDuration(formatDuration(r.value))).toBe(r.value);
      }),
      1000,
    );
  });

  it('msToNs / formatDuration accept any finite double in range and reject the rest with ValueError', () => {
    check(
      fc.property(fc.double(), (ms) => {
        const r = attempt(() => formatDuration(ms), ValueError);
        if (!r.ok) return;
        expect(Math.abs(Number(msToNs(ms)) / 1e6 - ms)).toBeLessThanOrEqual(Math.max(1e-6, Math.abs(ms) * 1e-12));
      }),
      1000,
    );
  });

  it('answers a flag-sized adversarial input without super-linear work', () => {
    checkLong(['1', '0', '.', 'h', '1h', '0.', '1.1'], 'parseDurationNs', (text) => void attempt(() => parseDurationNs(text), ValueError));
  });
});

const QUANTITY_PIECES = ['0', '1', '5', '.', '.5', '-', '+', 'e', 'E', 'e3', 'e-3', 'e+400', 'Ki', 'Mi', 'Gi', 'Ei', 'i', 'n', 'u', 'm', 'k', 'K', 'M', 'G', 'T', 'P', 'E', '%', ' ', '9'.repeat(20)];

describe('quantities (resource.Quantity)', () => {
  const quantityText = fuzzText(QUANTITY_PIECES);

  it('accepts exactly the Quantity grammar, with a finite value and the text kept', () => {
    check(
      fc.property(quantityText, (text) => {
        const r = attempt(() => parseQuantity(text), ValueError);
        if (r.ok) {
          expect(text).toMatch(QUANTITY_GRAMMAR);
          expect(Number.isFinite(r.value.value)).toBe(true);
          expect(Object.is(r.value.value, -0)).toBe(false);
          expect(r.value.text).toBe(text);
          expect(parseQuantity(r.value.text).value).toBe(r.value.value);
        } else {
          expect(r.error.message).toContain('invalid quantity');
          // Grammatical text is refused only for being out of range.
          if (QUANTITY_GRAMMAR.test(text)) expect(r.error.message).toContain('out of range');
        }
      }),
      3000,
    );
  });

  it('parseByteSize gives a whole, non-negative, safe number of bytes', () => {
    check(
      fc.property(fuzzText([...QUANTITY_PIECES, 'K']), (text) => {
        const r = attempt(() => parseByteSize(text), ValueError);
        if (!r.ok) return;
        expect(Number.isSafeInteger(r.value) && r.value >= 0).toBe(true);
      }),
      1000,
    );
  });

  it('answers a flag-sized adversarial input without super-linear work', () => {
    checkLong(['1', '.', '0', 'e', 'Ki'], 'parseQuantity', (text) => void attempt(() => parseQuantity(text), ValueError));
  });
});

const INT_PIECES = ['0', '1', '7', '8', '9', 'a', 'f', 'g', 'x', 'X', 'b', 'B', 'o', 'O', '_', '-', '+', ' ', '0x', '0b', '0o', '2147483647', '2147483648', '9007199254740991', '9007199254740992'];

describe('integers (strconv.ParseInt base 0)', () => {
  const ranges: Array<[string, bigint, bigint]> = [
    ['int32', -(2n ** 31n), 2n ** 31n - 1n],
    ['int', BigInt(Number.MIN_SAFE_INTEGER), BigInt(Number.MAX_SAFE_INTEGER)],
    ['Level', 0n, 2n ** 32n - 1n],
  ];

  it.each(ranges)('parseGoInt(%s) agrees with a reference ParseInt and stays in range', (type, min, max) => {
    check(
      fc.property(fc.oneof(fuzzText(INT_PIECES, 10), numberText), (text) => {
        const r = attempt(() => parseGoInt(text, min, max, type), ValueError);
        const want = goParseIntBase0(text);
        if (r.ok) {
          expect(r.value).toBe(want);
          expect(r.value >= min && r.value <= max).toBe(true);
        } else {
          expect(r.error.message).toContain(`invalid ${type}`);
          if (want !== undefined) expect(want < min || want > max).toBe(true);
        }
      }),
      1500,
    );
  });

  it('answers a flag-sized run of digits without super-linear work', () => {
    checkLong(['1', '9', '0x', 'f', '_1'], 'parseGoInt', (text) => void attempt(() => parseGoInt(text, -(2n ** 31n), 2n ** 31n - 1n, 'int32'), ValueError));
  });
});

const KV_PIECES = ['a', 'b', 'key', '=', '<', ':', ',', ' ', 'true', 'false', '1', '0', 'T', '__proto__', 'constructor', '', '\t', 'x-y', '\r\n'];

describe('key/value maps (cliflag)', () => {
  const kvText = fuzzText(KV_PIECES, 12);

  it('parseGoBool accepts exactly strconv.ParseBool spellings', () => {
    const spellings = ['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'];
    check(
      fc.property(fc.oneof(fuzzText(spellings, 2), fc.constantFrom(...spellings)), (text) => {
        const r = attempt(() => parseGoBool(text), ValueError);
        expect(r.ok).toBe(spellings.includes(text));
      }),
    );
  });

  it.each([
    ['parseMapStringString', (t: string) => parseMapStringString(t), '='],
    ['parseLangleSeparatedMap', (t: string) => parseLangleSeparatedMap(t), '<'],
  ] as const)('%s: trimmed non-empty keys, own properties, and a k%sv text that parses back the same', (_name, parse, sep) => {
    check(
      fc.property(kvText, (text) => {
        const r = attempt(() => parse(text), ValueError);
        if (!r.ok) return;
        for (const [k, v] of Object.entries(r.value)) {
          expect(k).not.toBe('');
          expect(k).toBe(k.trim());
          expect(v).toBe(v.trim());
          expect(k.includes(',') || k.includes(sep) || v.includes(',')).toBe(false);
        }
        const again = Object.entries(r.value).map(([k, v]) => `${k}${sep}${v}`).join(',');
        expect(parse(again)).toEqual(r.value);
      }),
      1000,
    );
  });

  it('parseMapStringBool gives booleans only', () => {
    check(
      fc.property(kvText, (text) => {
        const r = attempt(() => parseMapStringBool(text), ValueError);
        if (r.ok) for (const v of Object.values(r.value)) expect(typeof v).toBe('boolean');
      }),
    );
  });

  it('parseHeaders gives RFC 9110 names and values an HTTP request can carry', () => {
    check(
      fc.property(fuzzText([...KV_PIECES, 'Authorization', 'Bearer x', '\u0000', '\u007f', '\u00e9'], 12), (text) => {
        const r = attempt(() => parseHeaders(text), ValueError);
        if (!r.ok) return;
        for (const [name, value] of r.value) {
          expect(name).toMatch(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/);
          // field-value: visible ASCII, obs-text, space and tab; never CR, LF or NUL.
          expect(value).toMatch(/^[\t\x20-\x7e\x80-\xff]*$/);
          expect(value).toBe(value.trim());
        }
      }),
      1000,
    );
  });

  it('answers flag-sized adversarial maps without super-linear work', () => {
    checkLong(['a=b,', 'a', '=', ',', ' ', 'a<b,', 'n:v,'], 'kv parsers', (text) => {
      attempt(() => parseMapStringString(text), ValueError);
      attempt(() => parseMapStringBool(text), ValueError);
      attempt(() => parseHeaders(text), ValueError);
    });
  });
});

const CPU_PIECES = ['0', '1', '3', '7', '-', ',', ' ', '65535', '65536', '0-3', '1-1', '3-1', '+1', 'a', '00'];

describe('cpusets (cpuset list syntax)', () => {
  it('agrees with a reference parser; accepted sets are sorted, unique, in range and format back', () => {
    check(
      fc.property(fuzzText(CPU_PIECES, 10), (text) => {
        const r = attempt(() => parseCpuSet(text), ValueError);
        const want = refCpuSet(text, 65_535);
        if (!r.ok) {
          expect(want).toBeUndefined();
          return;
        }
        expect(r.value).toEqual(want);
        expect(parseCpuSet(formatCpuSet(r.value))).toEqual(r.value);
      }),
      2000,
    );
  });

  it('answers a flag-sized list of wide ranges without enumerating each one', () => {
    checkLong(['0-65535,', '1-65535,', '5,', '0-1,'], 'parseCpuSet', (text) => void attempt(() => parseCpuSet(text), ValueError));
  });
});
