// Shape checks over src/ for the architecture test: functions with too many
// parameters (parsed with the TypeScript compiler API, so a parameter list
// split over lines or a destructured parameter counts once) and files over the
// line limit. Pure over the files given; the test decides what is allowed.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** Every .ts file under `dir`, recursively, sorted. */
export function tsFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
    });
}

/** `path:line name (n parameters)` for each function, method, constructor or arrow in `text` with more than `max` parameters. */
export function wideSignatures(path: string, text: string, max: number): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) {
      // `this:` is a type annotation, not an argument the caller passes.
      const params = node.parameters.filter((p) => !(ts.isIdentifier(p.name) && p.name.text === 'this'));
      if (params.length > max) {
        const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
        const name = node.name !== undefined && ts.isIdentifier(node.name) ? node.name.text : ts.SyntaxKind[node.kind];
        found.push(`${path}:${line} ${name} (${params.length} parameters)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** `path (n lines)` when `text` has more than `max` lines (a final newline does not start a line). */
export function overLong(path: string, text: string, max: number): string | undefined {
  const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  return lines > max ? `${path} (${lines} lines)` : undefined;
}

/** Runs both checks over every .ts file under `dir`, paths relative to `root`. */
export function shapeReport(root: string, dir: string, limits: { maxParams: number; maxLines: number }): { wide: string[]; long: string[] } {
  const wide: string[] = [];
  const long: string[] = [];
  for (const f of tsFiles(dir)) {
    const text = readFileSync(f, 'utf8');
    const rel = relative(root, f);
    wide.push(...wideSignatures(rel, text, limits.maxParams));
    const l = overLong(rel, text, limits.maxLines);
    if (l !== undefined) long.push(l);
  }
  return { wide, long };
}
