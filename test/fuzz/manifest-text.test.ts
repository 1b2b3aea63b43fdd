// Property-based fuzzing of manifest text → pods (src/sources/manifest.ts):
// whatever the text, podFromFile and podsFromUrlBody return a result (never
// throw), a refusal says why in a bounded message, and an accepted pod is a
// valid one. Generated from YAML's own tokens so the parser's corners are hit,
// not only its first-character error path. Seeded: a failure names its seed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validatePod } from '../../src/pod-model/pod-validate.js';
import { podFromFile, podsFromUrlBody, type ManifestResult } from '../../src/sources/manifest.js';

const ctx = { node: 'n', source: 'file' as const, location: '/m/a.yaml', now: new Date('2026-11-22T00:00:00Z') };
const SEED = 20261123;

const good = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: c\n    image: i:1\n';
const tokens = ['apiVersion: v1', 'kind: Pod', 'kind: PodList', 'metadata:', 'name: web', 'spec:', 'containers:', 'items:', '- name: c', 'image: i:1', '&a', '*a', '*b', '<<: *a', '!!binary', '!!str', '!foo', '? ', ': ', '- ', '---', '...', '#', '|', '>-', '"', "'", '{', '}', '[', ']', ',', '\t', '\n', '  ', '\\u0000', '%YAML 1.2', '~', 'null', '1e400', '0x1F', '.nan', '2001-12-14', '__proto__: 1', 'constructor: {}', '\ufeff'];

function checkResult(r: ManifestResult): void {
  if (r.ok) {
    for (const p of r.pods) expect(validatePod(p)).toEqual([]);
    return;
  }
  expect(typeof r.error).toBe('string');
  expect(r.error.length).toBeGreaterThan(0);
  // total() turns an exception inside the decoder into this message: contained, but still a bug.
  expect(r.error).not.toMatch(/^the manifest could not be processed/);
  // Bounded: ten clipped problems and their separators at most.
  expect(r.error.length).toBeLessThan(5_000);
}

describe('manifest text fuzzing', () => {
  it('token soup: a result, never an exception', () => {
    const soup = fc.array(fc.constantFrom(...tokens), { maxLength: 60 }).map((t) => t.join(''));
    fc.assert(
      fc.property(soup, (text) => {
        checkResult(podFromFile(text, ctx));
        checkResult(podsFromUrlBody(text, { ...ctx, source: 'http', location: 'http://x' }));
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it('a valid manifest with bytes inserted, removed or replaced', () => {
    const edit = fc.tuple(fc.nat(good.length), fc.nat(8), fc.string({ maxLength: 8, unit: 'binary' }));
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        let text = good;
        for (const [at, del, ins] of edits) text = text.slice(0, at) + ins + text.slice(at + del);
        checkResult(podFromFile(text, ctx));
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it('arbitrary unicode and JSON values as text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200, unit: 'grapheme' }), fc.json({ maxDepth: 6 })), (text) => {
        checkResult(podFromFile(text, ctx));
        checkResult(podsFromUrlBody(text, { ...ctx, source: 'http', location: 'http://x' }));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
