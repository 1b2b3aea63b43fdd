// The config folder has no import cycle, type-only imports included: the
// same count `npm run cycles` (madge without skipTypeImports) makes.
import { join } from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../helpers/agent-process.js';

describe('src/config imports', () => {
  it('form no cycle, counting type-only imports', async () => {
    const res = await madge(join(REPO, 'src/config'), { fileExtensions: ['ts'], tsConfig: join(REPO, 'tsconfig.json') });
    expect(Object.keys(res.obj()).length).toBeGreaterThan(10);
    expect(res.circular()).toEqual([]);
  });
});
