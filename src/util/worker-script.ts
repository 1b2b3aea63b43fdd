// Where a worker thread's script is: next to the bundle (dist/bundle/*.cjs),
// next to tsc's output (dist/**.js), or, when the caller runs from src/ under
// vitest, tsc's output in dist/. Shared by every worker the agent starts.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The first candidate that exists; undefined when none does (the caller decides how to run without it). */
export function findScript(candidates: readonly URL[]): URL | undefined {
  return candidates.find((u) => u.protocol === 'file:' && existsSync(fileURLToPath(u)));
}
