// Generators and harness shared by the flag-value fuzz tier. Every property
// runs with a fixed seed (override with FUZZ_SEED) so a failure reproduces;
// fast-check prints the seed and the shrunk counterexample when one fails.
import fc from 'fast-check';
import { expect } from 'vitest';
import { AgentError } from '../../src/errors.js';

const envSeed = Number(process.env.FUZZ_SEED);
/** The seed every property uses; printed in each failure report by fast-check. */
export const SEED = Number.isSafeInteger(envSeed) ? envSeed : 0x13_f1a9;

/** Default generated cases per property; the whole tier runs a few tens of thousands. */
export const RUNS = 300;

/** fc.assert with the tier's seed, a run count and no time-dependent behaviour. */
export function check<Ts extends [unknown, ...unknown[]]>(prop: fc.IPropertyWithHooks<Ts>, numRuns = RUNS): void {
  fc.assert(prop, { seed: SEED, numRuns });
}

/**
 * The longest single argument Linux passes to a program (MAX_ARG_STRLEN):
 * the most a flag value can hold, so adversarial inputs are this long.
 */
export const MAX_ARG = 128 * 1024;

/**
 * Hang guard: a parser given one MAX_ARG-long input must answer within this
 * bound. It is ~1000x what a linear parser needs, so only super-linear work
 * (a quadratic loop, a backtracking regex) trips it; it is not a benchmark.
 */
export const HANG_BOUND_MS = 2_000;

/** Runs `fn`, failing the case when it takes longer than HANG_BOUND_MS. */
export function bounded<T>(what: string, fn: () => T): T {
  const start = performance.now();
  try {
    return fn();
  } finally {
    const took = performance.now() - start;
    if (took > HANG_BOUND_MS) throw new Error(`${what} took ${Math.round(took)} ms on a ${MAX_ARG}-character input (super-linear?)`);
  }
}

/** Calls a parser: the value when accepted, or the error when it threw one of the expected typed class. */
export function attempt<T>(fn: () => T, errorClass: new (...args: never[]) => AgentError): { ok: true; value: T } | { ok: false; error: AgentError } {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    // Anything else (TypeError, RangeError from a regex or BigInt, ...) is a defect: let it fail the case.
    if (!(e instanceof errorClass)) throw e;
    expect(e.message.length).toBeGreaterThan(0);
    return { ok: false, error: e };
  }
}

/** Any code unit, lone surrogates included: what a hostile argv or file may hold. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

/** Printable ASCII and the whitespace and separators that parsers split on. */
const asciiUnit = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.constantFrom(' ', '\t', '\n', '\r', '\u0000', ',', ';', ':', '=', '<', '-', '.', '_', '%', '/'),
);

/** Text made of grammar tokens, joined without separators: mostly near-valid input. */
export function tokens(pieces: readonly string[], maxLength = 8): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...pieces), { maxLength }).map((a) => a.join(''));
}

/** Replaces, inserts or deletes a few characters of `base`. */
export function mutate(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const edit = fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), fc.oneof(asciiUnit, anyUnit));
  return fc.tuple(base, fc.array(edit, { minLength: 1, maxLength: 3 })).map(([text, edits]) => {
    let s = text;
    for (const [at, op, ch] of edits) {
      const i = s.length === 0 ? 0 : at % (s.length + 1);
      if (op === 'insert') s = s.slice(0, i) + ch + s.slice(i);
      else if (op === 'delete') s = s.slice(0, i) + s.slice(i + 1);
      else s = s.slice(0, i) + ch + s.slice(i + 1);
    }
    return s;
  });
}

/** Numbers as an operator (or an attacker) might type them. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(1n << 70n), max: 1n << 70n }).map(String),
  fc.double().map(String),
  fc.constantFrom('0', '-0', '+0', '00', '1e308', '1e309', '-1e309', '1e-400', 'NaN', 'Infinity', '-Infinity', '0x10', '0b1', '0o7', '1_000', '.5', '5.', '.', '-', '+', '9'.repeat(40), `0.${'0'.repeat(30)}1`),
);

/**
 * The generic mix for a parser whose grammar is given as tokens: arbitrary
 * unicode, printable noise, grammar-built text, mutated grammar, numbers, and
 * a few fixed edge cases (empty, whitespace only).
 */
export function fuzzText(pieces: readonly string[], maxTokens = 8): fc.Arbitrary<string> {
  const grammar = tokens(pieces, maxTokens);
  return fc.oneof(
    { weight: 1, arbitrary: fc.string({ unit: anyUnit, maxLength: 24 }) },
    { weight: 1, arbitrary: fc.string({ unit: asciiUnit, maxLength: 24 }) },
    { weight: 4, arbitrary: grammar },
    { weight: 3, arbitrary: mutate(grammar) },
    { weight: 1, arbitrary: numberText },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t', ',', '=', ':', '\u00a0', '\ufeff') },
  );
}

/** A flag-sized input, printed in failure reports by its recipe rather than its 128 KiB of text. */
export interface LongInput {
  readonly text: string;
}

/** Long adversarial inputs: a grammar piece repeated up to MAX_ARG, with a tail that makes it invalid or not. */
export function longInputs(pieces: readonly string[]): fc.Arbitrary<LongInput> {
  return fc
    .tuple(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 3 }), fc.constantFrom('', '!', 'x', ',', '-', '.', '\u0000', '\u00e9'))
    .map(([unit, tail]) => {
      const u = unit.join('') || 'a';
      const text = (u.repeat(Math.ceil(MAX_ARG / u.length)).slice(0, MAX_ARG - tail.length) + tail).slice(0, MAX_ARG);
      return { text, [fc.toStringMethod]: () => `${JSON.stringify(u)} repeated to ${MAX_ARG} characters, then ${JSON.stringify(tail)}` };
    });
}

/** Runs a hang-guard property over `count` long inputs; stops at the first failure (shrinking 128 KiB inputs is slow). */
export function checkLong(pieces: readonly string[], what: string, fn: (text: string) => void, count = 12): void {
  fc.assert(
    fc.property(longInputs(pieces), (input) => void bounded(what, () => fn(input.text))),
    { seed: SEED, numRuns: count, endOnFailure: true },
  );
}

/** Arbitrary JSON-ish values (what YAML or JSON can decode to), with the numbers YAML adds (.nan, .inf). */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(Number.NaN, Number.POSITIVE_INFINITY, -0, 2 ** 63, -(2 ** 53), 1e21, '', '0', null, [], {}, { __proto__: null }) },
  { weight: 1, arbitrary: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString')), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }) },
);
