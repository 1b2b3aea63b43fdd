// Fuzz tier of the pod decoder and validator: thousands of generated inputs
// through decodePod then validatePod, as the file and URL sources call them.
// Properties: never throws; a rejection carries at least one problem, each
// with a field path and a message of bounded size; an accepted pod is sane
// (pod-invariants.ts) and decodes to itself again. Bounded time is guarded by
// the test timeout, with huge strings, deep nesting and backtracking bait among
// the inputs. The seed is fixed (FUZZ_SEED overrides it) and printed, so any
// failure is reproducible: fast-check reports the seed and the shrunk input.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument, stringify } from 'yaml';
import { decodePod } from '../../src/pod-model/pod-decode.js';
import { validatePod } from '../../src/pod-model/pod-validate.js';
import { mutate, mutatedPod, nonPlain, protoKeyed, SMALL_PODS, slots, validPod, wrongValue, yamlToken } from './pod-arbitraries.js';
import { acceptedPodProblem, rejectionProblem } from './pod-invariants.js';

const SEED = Number(process.env.FUZZ_SEED ?? 13_2026);
const MARK = 'fuzz-inject-here';
// Each property stops early when its time share is spent, so that the file stays within about 20 s on a
// loaded 2-core machine; the counts of cases actually run are printed. Not a performance assertion.
// FUZZ_SCALE multiplies both, for a longer campaign by hand (e.g. FUZZ_SCALE=10 with a larger --testTimeout).
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const params = (numRuns: number, timeShareMs: number): fc.Parameters<unknown> => ({ seed: SEED, numRuns: numRuns * SCALE, interruptAfterTimeLimit: timeShareMs * SCALE, markInterruptAsFailure: false });

console.log(`pod decoder fuzz: seed ${SEED} (set FUZZ_SEED to change it), scale ${SCALE}`);

type Outcome = 'decode-rejected' | 'validate-rejected' | 'accepted';

/** Decodes and validates as the sources do; throws with the broken property. */
function check(raw: unknown): Outcome {
  const decoded = decodePod(raw);
  if (!decoded.ok) {
    const bad = rejectionProblem(decoded.problems);
    if (bad) throw new Error(`decode rejection: ${bad}`);
    return 'decode-rejected';
  }
  const problems = validatePod(decoded.pod);
  if (problems.length > 0) {
    const bad = rejectionProblem(problems);
    if (bad) throw new Error(`validation rejection: ${bad}`);
    return 'validate-rejected';
  }
  const bad = acceptedPodProblem(decoded.pod);
  if (bad) throw new Error(`accepted nonsense: ${bad}`);
  // The API's defaults are idempotent: an accepted pod, written out and read back, is the same pod.
  const again = decodePod(JSON.parse(JSON.stringify(decoded.pod)));
  expect(again.ok && validatePod(again.pod)).toEqual([]);
  expect(again.ok && again.pod).toEqual(decoded.pod);
  return 'accepted';
}

function tally(): { count: (o: Outcome) => void; summary: () => Record<Outcome, number> } {
  const n: Record<Outcome, number> = { 'decode-rejected': 0, 'validate-rejected': 0, accepted: 0 };
  return { count: (o) => void n[o]++, summary: () => n };
}

describe('pod decoder fuzz', () => {
  it('accepts every valid pod, leaves the input untouched, and the result is sane', () => {
    const t = tally();
    fc.assert(
      fc.property(validPod, (raw) => {
        const before = structuredClone(raw);
        const decoded = decodePod(raw);
        const problems = decoded.ok ? validatePod(decoded.pod) : decoded.problems;
        if (problems.length > 0) throw new Error(`valid pod refused: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
        t.count(check(raw));
        expect(raw).toEqual(before);
      }),
      params(1000, 2500),
    );
    console.log('valid pods:', t.summary());
    expect(t.summary().accepted).toBeGreaterThan(0);
  });

  it('a valid pod with one spot made wrong never throws, and never slips through as nonsense', () => {
    const t = tally();
    fc.assert(
      fc.property(mutatedPod, (m) => {
        t.count(check(mutate(m)));
      }),
      params(3000, 5000),
    );
    console.log('mutated pods:', t.summary());
    // Most single mutations must be refused; a few (e.g. an unknown field renamed) are harmless.
    expect(t.summary()['decode-rejected'] + t.summary()['validate-rejected']).toBeGreaterThan(0);
  });

  it('arbitrary values, at the root or as metadata and spec, never throw', () => {
    const t = tally();
    const anything = fc.anything({ maxDepth: 4, withBigInt: true, withBoxedValues: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withObjectString: true, withSparseArray: true, withTypedArray: true });
    const shaped = fc.record({ apiVersion: fc.oneof(fc.constant('v1'), anything), kind: fc.oneof(fc.constant('Pod'), anything), metadata: fc.oneof(anything, fc.constant({ name: 'p' })), spec: fc.oneof(anything, fc.record({ containers: fc.oneof(anything, fc.array(fc.oneof(anything, nonPlain, protoKeyed), { maxLength: 3 })) })) });
    fc.assert(
      fc.property(fc.oneof(anything, fc.jsonValue(), nonPlain, wrongValue, shaped), (raw) => {
        t.count(check(raw));
      }),
      params(4000, 2000),
    );
    console.log('arbitrary values:', t.summary());
  });

  it('YAML values with explicit tags and special scalars (.inf, !!binary, !!timestamp, !!set, merge keys) never throw', () => {
    const t = tally();
    // Small manifests, written out once: YAML costs milliseconds per kilobyte, more than the rest of a case.
    const manifests = SMALL_PODS.map((p) => stringify(p).split('\n'));
    let unreadable = 0;
    let unparsable = 0;
    fc.assert(
      fc.property(fc.nat(), fc.nat(), yamlToken, (which, where, token) => {
        // Replace one scalar or key of a manifest's text, then read it as the file source does.
        const lines = [...manifests[which % manifests.length]!];
        // Scalars only (a line ending in `key:` opens a block, and a value there would not parse).
        const candidates = lines.map((l, i) => [l, i] as const).filter(([l]) => /^\s*(- )?[^\s:]+: \S|^\s*- [^\s:]+$/.test(l));
        const [line, index] = candidates[where % candidates.length]!;
        const m = /^(\s*(?:- )?)([^\s:]+):(.*)$/.exec(line);
        lines[index] = token.key && m ? `${m[1]}${token.text}:${m[3]}` : line.replace(/(: |- )(.*)$/, `$1${token.text}`);
        const doc = parseDocument(lines.join('\n'), { prettyErrors: false, logLevel: 'error' });
        if (doc.errors.length > 0) return void unparsable++;
        let value: unknown;
        try {
          value = doc.toJS();
        } catch {
          unreadable++; // an unresolved alias or an alias bomb: the YAML layer's to refuse, before the decoder
          return;
        }
        t.count(check(value));
      }),
      params(800, 1500),
    );
    console.log('YAML tokens:', t.summary(), `unparsable: ${unparsable}, unreadable by toJS: ${unreadable}`);
  });

  it('JSON-parsed objects with prototype-named keys anywhere never pollute or throw', () => {
    const t = tally();
    fc.assert(
      fc.property(validPod, fc.nat(), fc.constantFrom('__proto__', 'constructor', 'prototype'), (generated, where, key) => {
        const raw = structuredClone(generated);
        // Mark one object, then re-parse with the key injected there, as JSON.parse (and YAML's toJS) produce it.
        const objects = [raw, ...slots(raw).map((s) => (s.parent as Record<string | number, unknown>)[s.key])].filter((v): v is object => v !== null && typeof v === 'object' && !Array.isArray(v));
        Object.assign(objects[where % objects.length]!, { [MARK]: 0 });
        const text = JSON.stringify(raw).replace(`"${MARK}":0`, `${JSON.stringify(key)}:{"polluted":"yes"}`);
        t.count(check(JSON.parse(text)));
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      params(500, 1500),
    );
    console.log('prototype-named keys:', t.summary());
  });
});
