// Structural rules of src/: no import cycles (type-only imports aside), no
// import cycles between folders (type-only imports included, as `npm run
// cycles` counts them), and nothing below bin/ decides the process exit code.
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

/** A top-level folder of src/ (`pods`, `config`, ...), or the file itself for files directly in src/ (`agent.ts`). */
const folderOf = (file: string): string => file.split('/')[0]!;

/**
 * The cycles between folders in a file-level import graph: each strongly
 * connected component of more than one folder (Tarjan), its folders sorted,
 * with one import that closes it for the message.
 */
function folderCycles(files: Record<string, readonly string[]>): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const [from, tos] of Object.entries(files)) {
    const a = folderOf(from);
    if (!edges.has(a)) edges.set(a, new Set());
    for (const to of tos) {
      const b = folderOf(to);
      if (a !== b) edges.get(a)!.add(b);
    }
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    for (;;) {
      const w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
      if (w === v) break;
    }
    if (scc.length > 1) out.push(scc.sort());
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

describe('architecture', () => {
  it('src has no import cycles', async () => {
    const res = await madge(join(REPO, 'src'), { fileExtensions: ['ts'], tsConfig: join(REPO, 'tsconfig.json'), detectiveOptions: { ts: { skipTypeImports: true } } });
    expect(Object.keys(res.obj()).length).toBeGreaterThan(30);
    expect(res.circular()).toEqual([]);
  });
  it('src has no import cycles between files or folders, type-only imports included (what `npm run cycles` sees, and a level up)', async () => {
    // The graph `npm run cycles` (madge --circular --extensions ts src) builds: type-only imports count.
    const res = await madge(join(REPO, 'src'), { fileExtensions: ['ts'], tsConfig: join(REPO, 'tsconfig.json') });
    const graph = res.obj();
    expect(Object.keys(graph).length).toBeGreaterThan(30);
    expect(res.circular()).toEqual([]);
    expect(folderCycles(graph)).toEqual([]);
    // The check itself: a two-folder and a three-folder cycle are found, a folder's own imports are not.
    expect(folderCycles({ 'a/x.ts': ['b/y.ts', 'a/z.ts'], 'b/y.ts': ['a/z.ts'], 'a/z.ts': ['a/x.ts'] })).toEqual([['a', 'b']]);
    expect(folderCycles({ 'a/x.ts': ['b/y.ts'], 'b/y.ts': ['c/z.ts'], 'c/z.ts': ['a/x.ts'], 'agent.ts': ['a/x.ts'] })).toEqual([['a', 'b', 'c']]);
  });
  it('nothing under src calls process.exit', () => {
    const offenders = sourceFiles(join(REPO, 'src')).filter((f) => /process\.exit\(/.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => relative(REPO, f))).toEqual([]);
  });
  // The bundle keeps no function or class names (packaging/bundle.mjs: esbuild's keepNames made thousands of
  // functions carry an own `name`, ~2 MB of the agent's heap), so an error's name is a literal in its class.
  it('every error class in src names itself with a literal, and nothing reads a function name at run time', () => {
    const unnamed: string[] = [];
    const readers: string[] = [];
    for (const f of sourceFiles(join(REPO, 'src'))) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/^(?:export )?(abstract )?class (\w+) extends \w*Error\b/gm)) {
        if (m[1] === undefined && !text.includes(`name = '${m[2]}'`) && !text.includes(`super('${m[2]}'`)) unnamed.push(`${relative(REPO, f)}: ${m[2]}`);
      }
      if (/new\.target\.name|constructor\.name/.test(text)) readers.push(relative(REPO, f));
    }
    expect(unnamed).toEqual([]);
    expect(readers).toEqual([]);
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
