// Fuzz tier (issue 13), the option table's value kinds: every flag of the
// agent gets generated text, and every config-file field gets arbitrary JSON.
// A flag value is accepted (in its kind's domain, and its flag text reads back
// the same) or rejected with a FlagError naming the flag (and the config field);
// a file value is accepted (in its domain, and its encoding decodes back the
// same) or rejected with zod issues whose path names the field.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flagLeaves, parseFlags, type FlagLeaf } from '../../src/cli/flags.js';
import { configSpec } from '../../src/config/options.js';
import { dropNulls, fileSchema } from '../../src/config/schema.js';
import { getIn, leaves, setIn, type Leaf } from '../../src/config/spec.js';
import * as k from '../../src/config/kinds.js';
import { FlagError, ValueError } from '../../src/errors.js';
import { anyJson, attempt, check, checkLong, fuzzText, numberText } from './flag-arbitraries.js';
import { domainProblem } from './flag-kind-domains.js';

type AnyKind = k.Kind<unknown>;

const DURATION = ['0', '1', '1.5', '.', '-', '+', 'ns', 'us', 'ms', 's', 'm', 'h', 'd', '2562047h', '9223372036854775807'];
const INT = ['0', '1', '9', '-', '+', '0x', '0b', '_', '2147483647', '2147483648', '4294967295', '4294967296', '9007199254740993', 'e'];
const BOOL = ['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'false', 'yes', ' '];
const MAP = ['a', 'b.c/d', '=', '<', ':', ',', ';', ' ', 'true', '1', '__proto__', 'memory.available', 'nodefs.available', '100Mi', '10%', 'memory', '1Gi', 'hugepages-2Mi', 'NoSchedule', 'Authorization', '\r\n'];

/** Grammar tokens per kind, so most generated text is near-valid for the flag it is given to. */
function piecesFor(kind: AnyKind): readonly string[] {
  if (kind === (k.duration as AnyKind) || kind === (k.timeOrMetaDuration as AnyKind)) return DURATION;
  if (kind.isBool) return BOOL;
  if (['int32', 'int', 'Level', 'float'].includes(kind.type)) return [...INT, '.', '5e3', 'Infinity', 'NaN'];
  if (kind === (k.vmodule as AnyKind)) return ['a', '*', '?', '=', ',', '1', '-1', '2147483648', ' '];
  return [...MAP, ...DURATION.slice(0, 4), ...INT.slice(0, 4)];
}

/** A leaf that prints as its flag in failure reports. */
function named<L extends Leaf>(leaf: L, name: string): L {
  return Object.assign(Object.create(leaf) as L, { [fc.toStringMethod]: () => name });
}

const flagCases: fc.Arbitrary<[FlagLeaf, string]> = fc
  .constantFrom(...flagLeaves().map((l) => named(l, `--${l.flag}`)))
  .chain((leaf) => fuzzText(piecesFor(leaf.opt.kind as AnyKind), 8).map((text): [FlagLeaf, string] => [leaf, text]));

/** Whether two values of a kind mean the same: the kind's own notion, else same JSON. */
function same(kind: AnyKind, a: unknown, b: unknown): boolean {
  return kind.same ? kind.same(a, b) : JSON.stringify(a) === JSON.stringify(b);
}

describe('flag values through the option table', () => {
  it('each kind parses a flag into its domain or throws ValueError, and its flag text parses back the same', () => {
    check(
      fc.property(flagCases, ([leaf, text]) => {
        const kind = leaf.opt.kind as AnyKind;
        const r = attempt(() => kind.parseFlag(text, undefined), ValueError);
        if (!r.ok) return;
        expect(domainProblem(kind, r.value)).toBeUndefined();
        const again = k.flagTextOf(kind, r.value);
        const back = attempt(() => kind.parseFlag(again, undefined), ValueError);
        expect(back.ok ? same(kind, back.value, r.value) : back.error.message).toBe(true);
      }),
      4000,
    );
  });

  it('the command line names the flag (and config field) in every rejection', () => {
    check(
      fc.property(flagCases, ([leaf, text]) => {
        let parsed: ReturnType<typeof parseFlags>;
        try {
          parsed = parseFlags([`--${leaf.flag}=${text}`]);
        } catch (e) {
          expect(e).toBeInstanceOf(FlagError);
          const err = e as FlagError;
          expect(err.flag).toBe(`--${leaf.flag}`);
          expect(err.message).toContain(`--${leaf.flag}`);
          if (leaf.table === 'config') {
            expect(err.field).toBe(leaf.path);
            expect(err.message).toContain(leaf.path);
          }
          expect(err.cause).toBeInstanceOf(ValueError);
          return;
        }
        const given = [...parsed.configFlags, ...parsed.otherFlags].find((g) => g.leaf.path === leaf.path);
        expect(given).toBeDefined();
        expect(domainProblem(leaf.opt.kind as AnyKind, given!.value)).toBeUndefined();
      }),
      600,
    );
  });
});

/** Every kind kinds.ts exports, flag or not (some are file-only), and a oneOf instance. */
const allKinds: Array<[string, AnyKind]> = [
  ...Object.entries(k as Record<string, unknown>).flatMap(([name, v]): Array<[string, AnyKind]> => (typeof v === 'object' && v !== null && 'parseFlag' in v ? [[name, v as AnyKind]] : [])),
  ['oneOf', k.oneOf(['none', 'static']) as AnyKind],
];

describe('every value kind, also those no flag uses', () => {
  it.each(allKinds)('%s: parseFlag gives its domain or a ValueError, and flagText reads back the same', (_name, kind) => {
    check(
      fc.property(fc.oneof(fuzzText(piecesFor(kind), 8), fuzzText([...MAP, ...INT, ...DURATION], 6)), (text) => {
        const r = attempt(() => kind.parseFlag(text, undefined), ValueError);
        if (!r.ok) return;
        expect(domainProblem(kind, r.value)).toBeUndefined();
        const back = attempt(() => kind.parseFlag(k.flagTextOf(kind, r.value), undefined), ValueError);
        expect(back.ok ? same(kind, back.value, r.value) : back.error.message).toBe(true);
      }),
      150,
    );
  });
});

describe('float (strconv.ParseFloat, decimal)', () => {
  it('accepts exactly the decimal float grammar, finite', () => {
    const grammar = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
    check(
      fc.property(fc.oneof(fuzzText(['0', '1', '9', '.', 'e', 'E', '-', '+', '5', 'x', 'b', ' ', '308', '309'], 8), numberText), (text) => {
        const r = attempt(() => k.float.parseFlag(text, undefined), ValueError);
        expect(r.ok).toBe(grammar.test(text) && Number.isFinite(Number(text)));
      }),
      1000,
    );
  });
});

describe('flag-sized values', () => {
  it.each(allKinds)('%s: parseFlag answers a 128 KiB argument without super-linear work', (name, kind) => {
    checkLong(piecesFor(kind), `${name}.parseFlag`, (text) => void attempt(() => kind.parseFlag(text, undefined), ValueError), 4);
  });
});

/** Values that are valid for a field more often than arbitrary JSON: its default, encoded, and a few nearby shapes. */
function fileValueFor(leaf: Leaf): fc.Arbitrary<unknown> {
  const kind = leaf.opt.kind as AnyKind;
  const encodedDefault = kind.encode(leaf.opt.fileDefault);
  return fc.oneof(
    { weight: 3, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.constant(encodedDefault) },
    { weight: 2, arbitrary: fuzzText(piecesFor(kind), 6) },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constantFrom(2 ** 31, 2 ** 32, -1, 0)) },
    { weight: 1, arbitrary: fc.array(fc.record({ key: fc.constantFrom('a', 'b/c', ''), effect: fc.constantFrom('NoSchedule', 'x'), numaNode: fc.constantFrom(0, 2 ** 31, 2 ** 32, -1), limits: fc.dictionary(fc.constantFrom('memory', 'cpu'), fc.constantFrom('1Gi', 'x')), filePattern: fc.string(), verbosity: fc.integer(), priority: fc.integer(), shutdownGracePeriodSeconds: fc.integer() }, { requiredKeys: [] }), { maxLength: 2 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('memory.available', 'a', 'Bad Name', 'X-Ok', '__proto__'), fc.oneof(fc.constantFrom('1Gi', '10%', true, 'x\ny', ['v', 'a\r\nb']), fc.array(fc.string(), { maxLength: 2 })), { maxKeys: 3 }) },
  );
}

const fileLeaves = leaves(configSpec);
const fileCases = fc.constantFrom(...fileLeaves.map((l) => named(l, l.path))).chain((leaf) => fileValueFor(leaf).map((value): [Leaf, unknown] => [leaf, value]));

function decode(leaf: Leaf, value: unknown): { ok: true; value: unknown } | { ok: false; paths: Array<readonly PropertyKey[]> } {
  // As the loader: a null field (YAML `key:`) is dropped before decoding.
  const raw = {};
  setIn(raw, leaf.keys, value);
  const decoded = dropNulls(raw);
  const r = fileSchema(decoded).safeParse(decoded);
  return r.success ? { ok: true, value: getIn(r.data, leaf.keys) } : { ok: false, paths: r.error.issues.map((i) => i.path) };
}

describe('config-file values through the option table', () => {
  it('each field decodes arbitrary JSON into its domain or reports issues under the field, and its encoding decodes back the same', () => {
    check(
      fc.property(fileCases, ([leaf, value]) => {
        const kind = leaf.opt.kind as AnyKind;
        const r = decode(leaf, value);
        if (!r.ok) {
          expect(r.paths.length).toBeGreaterThan(0);
          for (const path of r.paths) expect(path.slice(0, leaf.keys.length)).toEqual(leaf.keys);
          return;
        }
        if (r.value === undefined) return; // null or absent: the field is unset
        expect(domainProblem(kind, r.value)).toBeUndefined();
        const back = decode(leaf, JSON.parse(JSON.stringify(kind.encode(r.value))) as unknown);
        expect(back.ok && (back.value === undefined || same(kind, back.value, r.value))).toBe(true);
      }),
      3000,
    );
  });
});
