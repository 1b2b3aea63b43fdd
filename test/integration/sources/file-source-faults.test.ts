// The file source under bad input on a real directory: each bad entry is
// reported once with its path and skipped; the others are read as usual; the
// watch survives its directory being replaced. Rescans are 10 min apart here,
// so every change below is seen through the watch.
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileParse } from '../../../src/sources/file-parse.js';
import type { ManifestResult } from '../../../src/sources/manifest.js';
import type { ManifestParser } from '../../../src/sources/parser.js';
import { atStop, startFileSource, stopAll } from '../../helpers/file-source-harness.js';
import { tempDir } from '../../helpers/agent-process.js';

const manifest = (name: string) => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n  - name: c\n    image: localhost/busybox:1\n`;
const NO_RESCAN_MS = 600_000;

afterEach(stopAll);

const start = (path: string, wrap?: (p: ManifestParser) => ManifestParser) => startFileSource(path, { node: 'n', checkFrequencyMs: NO_RESCAN_MS, wrap });

describe('file source: one bad entry affects only itself', () => {
  it.each([
    ['an alias bomb', (p: string) => writeFileSync(p, `${manifest('bomb')}x:\n${['a: &a [x,x,x,x,x,x,x,x,x]', ...'bcdef'.split('').map((l, i) => `${l}: &${l} [${Array(9).fill(`*${'abcdef'[i]}`).join(',')}]`)].map((l) => `  ${l}`).join('\n')}\n`), /aliases expand/],
    ['an unresolved alias', (p: string) => writeFileSync(p, 'a: *undefined\n'), /alias without an anchor/],
    ['a file holding only a comment', (p: string) => writeFileSync(p, '# nothing\n'), /holds no object/],
    ['a symbolic link loop', (p: string) => symlinkSync(p, p), /symbolic link loop/],
    ['a dangling symbolic link', (p: string) => symlinkSync(`${p}.nowhere`, p), /dangling symbolic link/],
    ['a FIFO', (p: string) => execFileSync('mkfifo', [p]), /FIFO/],
    ['a file over 10 MB', (p: string) => (writeFileSync(p, ''), truncateSync(p, 10 * 1024 * 1024 + 1)), /larger than the 10 MB limit/],
  ])('%s: logged once with its path; a manifest sorting after it starts, a deleted one stops', async (_kind, make, reason) => {
    const t = tempDir();
    atStop(() => t.cleanup());
    t.write('a-first.yaml', manifest('first'));
    t.write('z-gone.yaml', manifest('gone'));
    const bad = join(t.dir, 'm-bad.yaml');
    make(bad);
    const s = await start(t.dir);
    await s.until(() => s.errorsFor(bad).length > 0, 'the bad entry to be reported');
    expect(s.names()).toEqual(['first', 'gone']);
    t.write('z-late.yaml', manifest('late'));
    rmSync(join(t.dir, 'z-gone.yaml'));
    await s.until(() => s.names().join() === 'first,late', 'the new pod and the removal');
    expect(s.errorsFor(bad)).toHaveLength(1);
    expect(String(s.errorsFor(bad)[0]!.fields['err'])).toMatch(reason);
    expect(s.records.filter((r) => r.msg.includes('scan failed'))).toEqual([]);
  });

  it('a socket is skipped with one line too', async () => {
    const t = tempDir();
    atStop(() => t.cleanup());
    const sock = join(t.dir, 'sock.yaml');
    const server: Server = createServer();
    await new Promise<void>((r) => server.listen(sock, r));
    atStop(() => new Promise<void>((r) => server.close(() => r())));
    t.write('ok.yaml', manifest('ok'));
    const s = await start(t.dir);
    await s.until(() => s.errorsFor(sock).length > 0, 'the socket to be reported');
    expect(String(s.errorsFor(sock)[0]!.fields['err'])).toMatch(/a socket, not a manifest file/);
    expect(s.names()).toEqual(['ok']);
  });

  it('a file caught between `cp` truncating and writing it is not reported as empty, and its pod stays', async () => {
    const t = tempDir();
    atStop(() => t.cleanup());
    const p = t.write('web.yaml', manifest('web'));
    const s = await start(t.dir);
    expect(s.names()).toEqual(['web']);
    const before = s.sets.length;
    writeFileSync(p, ''); // what cp does first
    await s.until(() => s.sets.length > before, 'the scan of the truncated file');
    expect(s.names()).toEqual(['web']);
    writeFileSync(p, manifest('web').replace('busybox:1', 'busybox:2'));
    await s.until(() => s.sets.at(-1)?.[0]?.spec.containers[0]?.image === 'localhost/busybox:2', 'the new content');
    expect(s.sets.every((set) => set.length === 1)).toBe(true);
    expect(s.records.filter((r) => r.level === 'error')).toEqual([]);
  });

  it('a file left empty is reported once it has settled', async () => {
    const t = tempDir();
    atStop(() => t.cleanup());
    const s = await start(t.dir);
    const p = t.write('empty.yaml', '');
    await s.until(() => s.errorsFor(p).length > 0, 'the empty file to be reported');
    expect(String(s.errorsFor(p)[0]!.fields['err'])).toMatch(/the manifest is empty/);
  });
});

describe('file source: parsing', () => {
  it('a large file still in the parser holds back no other change; its pod comes when its answer does', async () => {
    const t = tempDir();
    atStop(() => t.cleanup());
    t.write('a.yaml', manifest('a'));
    let release: (() => void) | undefined;
    const s = await start(t.dir, (real) => ({
      ...real,
      // The real parser's worker reads and parses the large file; only its answer is held back.
      parseFile: (path, maxBytes, ctx) => {
        const answer = real.parseFile(path, maxBytes, ctx);
        return new Promise<FileParse>((r) => (release = () => r(answer)));
      },
    }));
    t.write('big.yaml', `${manifest('big')}# ${'x'.repeat(200_000)}\n`);
    await s.until(() => release !== undefined, 'the large file to reach the parser');
    t.write('b.yaml', manifest('b'));
    await s.until(() => s.names().join() === 'a,b', 'the small file while the large one is parsed');
    release!();
    await s.until(() => s.names().join() === 'a,b,big', "the large file's pod");
  });

  it('a bad file still settling is parsed once, however many scans see it', async () => {
    const t = tempDir();
    atStop(() => t.cleanup());
    const parsed: string[] = [];
    const s = await start(t.dir, (real) => ({
      ...real,
      parse: (kind, bytes, ctx): Promise<ManifestResult> => {
        parsed.push(ctx.location);
        return real.parse(kind, bytes, ctx);
      },
    }));
    const bad = t.write('bad.yaml', 'a: *nowhere\n');
    // Other files' events make scans while bad.yaml settles.
    for (let i = 0; i < 5; i++) t.write(`ok${i}.yaml`, manifest(`ok${i}`));
    await s.until(() => s.errorsFor(bad).length > 0, 'the bad file to be reported');
    expect(parsed.filter((p) => p === bad)).toHaveLength(1);
  });
});

describe('file source: the watch survives its directory', () => {
  // [how, change, whether a.yaml is still there afterwards]
  const cases: Array<[string, (dir: string, aside: string) => void, boolean]> = [
    ['removed and created again', (dir) => (rmSync(dir, { recursive: true }), mkdirSync(dir)), false],
    ['renamed away and back', (dir, aside) => (renameSync(dir, aside), renameSync(aside, dir)), true],
    ['replaced by a new directory renamed into place', (dir, aside) => (mkdirSync(aside), rmSync(dir, { recursive: true }), renameSync(aside, dir)), false],
    [
      'turned into a symbolic link and back',
      (dir, aside) => {
        mkdirSync(aside);
        rmSync(dir, { recursive: true });
        symlinkSync(aside, dir);
      },
      false,
    ],
  ];
  it.each(cases)('%s: new manifests are seen through the watch', async (_how, change, kept) => {
    const t = tempDir();
    atStop(() => t.cleanup());
    const dir = join(t.dir, 'manifests');
    const aside = join(t.dir, 'aside');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.yaml'), manifest('a'));
    const s = await start(dir);
    expect(s.names()).toEqual(['a']);
    change(dir, aside);
    if (!kept) await s.until(() => s.names().length === 0, 'the old pods to go with the old directory');
    else rmSync(join(dir, 'a.yaml'));
    await s.until(() => s.names().length === 0, 'a.yaml to be gone');
    writeFileSync(join(dir, 'b.yaml'), manifest('b'));
    await s.until(() => s.names().join() === 'b', 'a manifest written into the new directory');
    writeFileSync(join(dir, 'c.yaml'), manifest('c'));
    await s.until(() => s.names().join() === 'b,c', 'a second one');
    rmSync(join(dir, 'b.yaml'));
    await s.until(() => s.names().join() === 'c', 'a removal');
  });

  it('removed and created again five times in a row (the new directory may get the old inode back)', async () => {
    const t = tempDir();
    atStop(() => t.cleanup());
    const dir = join(t.dir, 'manifests');
    mkdirSync(dir);
    const s = await start(dir);
    for (let i = 0; i < 5; i++) {
      rmSync(dir, { recursive: true });
      mkdirSync(dir);
      writeFileSync(join(dir, `p${i}.yaml`), manifest(`p${i}`));
      await s.until(() => s.names().join() === `p${i}`, `p${i} in directory number ${i + 2}`);
    }
  });

  it('a symbolic link turned back into a directory', async () => {
    const t = tempDir();
    atStop(() => t.cleanup());
    const dir = join(t.dir, 'manifests');
    const real = join(t.dir, 'real');
    mkdirSync(real);
    writeFileSync(join(real, 'a.yaml'), manifest('a'));
    symlinkSync(real, dir);
    const s = await start(dir);
    expect(s.names()).toEqual(['a']);
    rmSync(dir);
    mkdirSync(dir);
    await s.until(() => s.names().length === 0, 'the link to go');
    writeFileSync(join(dir, 'b.yaml'), manifest('b'));
    await s.until(() => s.names().join() === 'b', 'a manifest in the new directory');
  });
});
