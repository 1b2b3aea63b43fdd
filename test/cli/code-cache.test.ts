// The built bundle starts from V8's code cache both ways the agent is started:
// as a program (bin/agent.js's first line runs node with its memory options)
// and as `node bin/agent.js`. V8 rejects a cache made under other node options.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { launcherOptions } from '../../packaging/launcher-options.mjs';

const loader = fileURLToPath(new URL('../../bin/bundle-loader.js', import.meta.url));
const agent = fileURLToPath(new URL('../../bin/agent.js', import.meta.url));
const probe = `const { loadBundle } = require(${JSON.stringify(loader)}); process.stdout.write(String(loadBundle().cacheUsed));`;

function cacheUsed(nodeArgs: string[]): string {
  // A script file, not -e: node's own options are what names the cache.
  const dir = fileURLToPath(new URL('../../.tmp/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}code-cache-probe.cjs`;
  writeFileSync(file, probe);
  return execFileSync(process.execPath, [...nodeArgs, file], { encoding: 'utf8' });
}

describe('code cache', () => {
  it('is used with the node options of bin/agent.js and without any', () => {
    const { nodeArgs } = launcherOptions(agent);
    expect(nodeArgs.length).toBeGreaterThan(0);
    expect(cacheUsed(nodeArgs)).toBe('true');
    expect(cacheUsed([])).toBe('true');
  });
});
