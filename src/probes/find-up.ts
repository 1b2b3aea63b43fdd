// Finds a file shipped with the agent (a proto definition) by walking up from
// a module's directory: the same rule as src/cri/proto.ts, so it works from
// src/ (vitest), dist/ (tsc) and the bundle alike.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AgentError } from '../errors.js';

export function findUp(startDir: string, relative: string): string {
  for (let dir = startDir; ; dir = dirname(dir)) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new AgentError('EINTERNAL', `cannot find ${relative} in ${startDir} or any parent directory (incomplete installation?)`);
  }
}
