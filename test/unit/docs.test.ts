// The generated options reference must match the option table.
import { describe, expect, it } from 'vitest';
import { renderOptionsDoc, staleDocs } from '../../src/cli/gen-docs.js';
import { flagLeaves } from '../../src/cli/flags.js';

describe('generated docs', () => {
  it('docs/options.md and the README block are current (run `npm run docs`)', () => {
    expect(staleDocs()).toEqual([]);
  });
  it('the reference names every flag once', () => {
    const doc = renderOptionsDoc();
    const rows = doc.split('\n').filter((l) => l.startsWith('| `'));
    for (const leaf of flagLeaves()) expect.soft(rows.filter((r) => r.includes(`\`--${leaf.flag}\` |`)).length, leaf.flag).toBe(1);
  });
});
