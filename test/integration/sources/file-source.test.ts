// The file source on a real directory: chokidar events, rescans, bad files.
import { rmSync, writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/pod-types.js';
import { createFileSource } from '../../../src/sources/file.js';
import { createManifestParser } from '../../../src/sources/parser.js';
import { tempDir } from '../../helpers/agent-process.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

const manifest = (name: string, image = 'localhost/busybox:1') => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n  - name: c\n    image: ${image}\n`;

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

async function start(path: string, checkFrequencyMs = 60_000) {
  const sets: Pod[][] = [];
  const records: LogRecord[] = [];
  const waiters: Array<() => void> = [];
  const parser = createManifestParser({ log: testLogger(records) });
  const src = createFileSource({
    path,
    node: 'node-a',
    checkFrequencyMs,
    log: testLogger(records),
    parser,
    onPods: (pods) => {
      sets.push(pods);
      for (const w of waiters.splice(0)) w();
    },
  });
  const ac = new AbortController();
  const done = src.run(ac.signal);
  await src.ready;
  stops.push(async () => {
    ac.abort();
    await done;
    await parser.close();
  });
  /** Waits (bounded) until the latest set satisfies `pred`. */
  const until = async (pred: (names: string[]) => boolean, ms = 5000): Promise<string[]> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const names = (sets.at(-1) ?? []).map((p) => p.metadata.name).sort();
      if (pred(names)) return names;
      if (Date.now() > deadline) throw new Error(`timed out; last set: ${JSON.stringify(names)}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 200).unref();
      });
    }
  };
  return { sets, records, until };
}

describe('file source', () => {
  it('reads a directory, ignores dot files and subdirectories, and follows changes', async () => {
    const t = tempDir();
    stops.push(async () => t.cleanup());
    t.write('a.yaml', manifest('a'));
    t.write('.hidden.yaml', manifest('hidden'));
    mkdirSync(join(t.dir, 'sub'));
    writeFileSync(join(t.dir, 'sub', 'c.yaml'), manifest('c'));
    const s = await start(t.dir);
    expect(await s.until((n) => n.length > 0)).toEqual(['a-node-a']);
    t.write('b.json', JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b' }, spec: { containers: [{ name: 'c', image: 'i:1' }] } }));
    expect(await s.until((n) => n.includes('b-node-a'))).toEqual(['a-node-a', 'b-node-a']);
    rmSync(join(t.dir, 'a.yaml'));
    expect(await s.until((n) => !n.includes('a-node-a'))).toEqual(['b-node-a']);
    expect(s.records.some((r) => r.msg === 'Not recursing into a subdirectory of the pod manifest path')).toBe(true);
  });

  it('a bad manifest is logged once with file and field, the others stay, and fixing it recovers', async () => {
    const t = tempDir();
    stops.push(async () => t.cleanup());
    t.write('good.yaml', manifest('good'));
    const bad = t.write('bad.yaml', manifest('bad', '""'));
    const s = await start(t.dir, 100);
    expect(await s.until((n) => n.length > 0)).toEqual(['good-node-a']);
    // Reported once the file has settled (SETTLE_MS after its last change), then never again.
    await s.until(() => s.records.some((r) => r.level === 'error'));
    const seen = s.sets.length;
    await s.until(() => s.sets.length >= seen + 3); // several rescans
    const errors = s.records.filter((r) => r.level === 'error');
    expect(errors).toEqual([{ level: 'error', component: 'test', msg: 'Could not process manifest file', fields: { path: bad, err: 'spec.containers[0].image: required value' } }]);
    t.write('bad.yaml', manifest('bad'));
    expect(await s.until((n) => n.length === 2)).toEqual(['bad-node-a', 'good-node-a']);
    expect(s.records.some((r) => r.msg === 'Manifest file is valid again')).toBe(true);
  });

  it('a rescan re-reads only changed files: the same pod object until the file changes, even at the same size', async () => {
    const t = tempDir();
    stops.push(async () => t.cleanup());
    t.write('a.yaml', manifest('a', 'localhost/busybox:1'));
    const s = await start(t.dir, 50);
    await s.until((n) => n.length > 0);
    const first = s.sets.at(-1)![0]!;
    await s.until(() => s.sets.length >= 4); // several rescans
    expect(s.sets.at(-1)![0]).toBe(first);
    t.write('a.yaml', manifest('a', 'localhost/busybox:2')); // same length, new content
    await s.until(() => s.sets.at(-1)![0]!.spec.containers[0]!.image === 'localhost/busybox:2');
    expect(s.sets.at(-1)![0]).not.toBe(first);
  });

  it('two files declaring the same pod: the first (by name) wins and the second is reported', async () => {
    const t = tempDir();
    stops.push(async () => t.cleanup());
    t.write('1.yaml', manifest('web'));
    const second = t.write('2.yaml', manifest('web', 'other:1'));
    const s = await start(t.dir);
    expect(await s.until((n) => n.length > 0)).toEqual(['web-node-a']);
    expect(s.sets.at(-1)![0]!.spec.containers[0]!.image).toBe('localhost/busybox:1');
    expect(s.records.find((r) => r.level === 'error')?.fields).toEqual({ path: second, err: `pod default/web-node-a is already declared by ${join(t.dir, '1.yaml')}; ignoring this file` });
  });

  it('a single file path, an atomic rename onto it, and a missing path (empty set, still "seen")', async () => {
    const t = tempDir();
    stops.push(async () => t.cleanup());
    const file = t.write('pod.yaml', manifest('one'));
    const s = await start(file);
    expect(await s.until((n) => n.length > 0)).toEqual(['one-node-a']);
    t.write('tmp.yaml.new', manifest('two'));
    renameSync(join(t.dir, 'tmp.yaml.new'), file);
    expect(await s.until((n) => n.includes('two-node-a'))).toEqual(['two-node-a']);

    const missing = await start(join(t.dir, 'nope'));
    expect(missing.sets).toEqual([[]]);
  });

  it('while many new manifests are parsed, hands on the pods so far (in file order), then the complete set', async () => {
    const t = tempDir();
    stops.push(async () => t.cleanup());
    // The directory appears with all its files at once (a rename), so one scan finds them all.
    const names = Array.from({ length: 300 }, (_, i) => `p${String(i).padStart(3, '0')}`);
    for (const n of names) t.write(`stage/${n}.yaml`, manifest(n));
    const h = await start(join(t.dir, 'm'), 100);
    expect(h.sets).toEqual([[]]);
    renameSync(join(t.dir, 'stage'), join(t.dir, 'm'));
    await h.until((n) => n.length === 300);
    const during = h.sets.slice(1, -1).map((set) => set.map((p) => p.metadata.name));
    expect(during.length).toBeGreaterThan(1);
    expect(during[0]!.length).toBeLessThan(100);
    for (const set of during) expect(set).toEqual(names.slice(0, set.length).map((n) => `${n}-node-a`));
  });

  it('the first scan hands on only the complete set: a partial one would make other pods look orphaned', async () => {
    const t = tempDir();
    stops.push(async () => t.cleanup());
    for (let i = 0; i < 300; i++) t.write(`p${i}.yaml`, manifest(`p${i}`));
    const h = await start(t.dir);
    expect(h.sets.map((s) => s.length)).toEqual([300]);
  });
});
