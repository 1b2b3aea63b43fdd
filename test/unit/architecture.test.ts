// Structural rules of src/: no import cycles (type-only imports aside), and
// nothing below bin/ decides the process exit code.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/agent-process.js';

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
});
