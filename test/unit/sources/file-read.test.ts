// Listing the manifest path: a full listing, and one patched with the entries a watch event named, agree.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listPath, patchListing, readBounded } from '../../../src/sources/file-read.js';
import { tempDir } from '../../helpers/agent-process.js';

const dirs: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

describe('patchListing', () => {
  it('gives what a full listing gives after adds, edits, removals, new subdirectories, links and special files', () => {
    const t = tempDir();
    dirs.push(t);
    t.write('b.yaml', 'x');
    t.write('d.yaml', 'x');
    const before = listPath(t.dir);
    expect(before.isDir).toBe(true);
    t.write('a.yaml', 'new');
    t.write('b.yaml', 'edited, longer');
    rmSync(join(t.dir, 'd.yaml'));
    mkdirSync(join(t.dir, 'sub'));
    symlinkSync(join(t.dir, 'loop.yaml'), join(t.dir, 'loop.yaml'));
    execFileSync('mkfifo', [join(t.dir, 'fifo.yaml')]);
    t.write('.hidden.yaml', 'x');
    const patched = patchListing(t.dir, before, ['a.yaml', 'b.yaml', 'd.yaml', 'sub', 'loop.yaml', 'fifo.yaml', '.hidden.yaml', 'gone.yaml']);
    expect(patched).toEqual(listPath(t.dir));
  });

  it('leaves entries not named as they were (the periodic full listing catches what a watch missed)', () => {
    const t = tempDir();
    dirs.push(t);
    t.write('a.yaml', 'x');
    const before = listPath(t.dir);
    writeFileSync(join(t.dir, 'a.yaml'), 'changed without an event');
    expect(patchListing(t.dir, before, [])).toEqual(before);
  });
});

describe('readBounded', () => {
  it('reads a file to its end, and refuses one past the limit', () => {
    const t = tempDir();
    dirs.push(t);
    const p = t.write('a.yaml', 'x'.repeat(100_000));
    const r = readBounded(p, 200_000);
    expect('bytes' in r && r.bytes.toString()).toBe('x'.repeat(100_000));
    expect(readBounded(p, 99_999)).toEqual({ problem: expect.stringMatching(/larger than the .* limit/) as string });
  });
});
