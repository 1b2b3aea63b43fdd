// Structural rules of src/: no import cycles (type-only imports aside), and
// nothing below bin/ decides the process exit code.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/agent-process.js';
import { shapeReport, wideSignatures } from '../helpers/source-shape.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('architecture', () => {
  it('src has no import cycles', async () => {
    const res = await madge(join(REPO, 'src'), { fileExtensions: ['ts'], tsConfig: join(REPO, 'tsconfig.json'), detectiveOptions: { ts: { skipTypeImports: true } } });
    expect(Object.keys(res.obj()).length).toBeGreaterThan(30);
    expect(res.circular()).toEqual([]);
  });
  it('nothing under src calls process.exit', () => {
    const offenders = sourceFiles(join(REPO, 'src')).filter((f) => /process\.exit\(/.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => relative(REPO, f))).toEqual([]);
  });
  // The style rules: a function that needs more than ~6 things has its boundary wrong; files stay under 400 lines.
  it('no function, method or arrow in src takes more than 6 parameters', () => {
    // The checker itself: a split or destructured list counts by parameter, `this:` not at all.
    expect(wideSignatures('x.ts', 'class C { m(this: C, a: 1, b: 2, c: 3, d: 4, e: 5, f: 6) {} }\nconst f = (a: 1, {b}: {b: 2}, c: 3,\n d: 4, e: 5, f: 6, g: 7) => 0;', 6)).toEqual(['x.ts:2 ArrowFunction (7 parameters)']);
    expect(shapeReport(REPO, join(REPO, 'src'), { maxParams: 6, maxLines: 400 }).wide).toEqual([]);
  });
  it('no file in src is over 400 lines', () => {
    expect(shapeReport(REPO, join(REPO, 'src'), { maxParams: 6, maxLines: 400 }).long).toEqual([]);
  });
});
