// The manifest parser: small manifests inline, large ones in a worker thread
// with a deadline and a heap cap; a failure of the worker is a failure of that
// one manifest. Needs the worker script that `npm run build` writes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readBounded } from '../../../src/sources/file-read.js';
import { MAX_MANIFEST_BYTES, podFromFile } from '../../../src/sources/manifest.js';
import { createManifestParser, workerScript, type ManifestParser } from '../../../src/sources/parser.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

const ctx = { node: 'n', source: 'file' as const, location: '/m/a.yaml', now: new Date('2026-11-22T00:00:00Z') };
const pod = (pad: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', padding: pad }, spec: { containers: [{ name: 'c', image: 'i:1' }] } });
/** A 1.2 MB YAML file with a syntax error near its end (what once stalled the agent's event loop for 2.5 s). */
const malformed = (): string => {
  let t = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  annotations:\n';
  for (let i = 0; t.length < 1_200_000; i++) t += `    k${i}: "value ${i}"\n`;
  return `${t}    bad: [a, {b: c, d: [e, f}, "g\n`;
};

const parsers: ManifestParser[] = [];
afterEach(async () => {
  for (const p of parsers.splice(0)) await p.close();
});
function parser(opts: { timeoutMs?: number; heapMb?: number; workerScript?: null } = {}) {
  const records: LogRecord[] = [];
  const p = createManifestParser({ log: testLogger(records), ...opts });
  parsers.push(p);
  return { p, records };
}

/** Event-loop turns (setImmediate callbacks) that run while `work` is pending. */
async function turnsDuring<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const spin = (): void => {
    if (done) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  const value = await work;
  done = true;
  return { value, turns };
}

describe('manifest parser', () => {
  it('finds its worker script (npm run build writes it)', () => {
    expect(workerScript(), 'dist/sources/parse-worker.js is missing: run `npm run build`').toBeDefined();
  });

  it('parses a large malformed manifest in the worker: the event loop keeps turning, the answer names the line', async () => {
    const { p } = parser();
    const text = malformed();
    const { value, turns } = await turnsDuring(p.parse('file', Buffer.from(text), ctx));
    expect(value).toEqual({ ok: false, error: expect.stringMatching(/^YAML syntax error at line \d+, column \d+: /) as string });
    expect(value).toEqual(podFromFile(text, ctx));
    expect(turns).toBeGreaterThan(1);
  });

  it('gives the same pods as an inline parse for a large valid manifest', async () => {
    const { p } = parser();
    const text = JSON.stringify(pod('x'.repeat(2_000_000)));
    const r = await p.parse('file', Buffer.from(text), ctx);
    expect(r).toEqual(podFromFile(text, ctx));
    expect(r.ok).toBe(true);
  });

  it('a parse past its deadline fails that manifest alone; the next one is parsed', async () => {
    const { p } = parser({ timeoutMs: 1 });
    const r = await p.parse('file', Buffer.from(malformed()), ctx);
    expect(r).toEqual({ ok: false, error: 'the manifest could not be parsed within 0 s' });
    const small = await p.parse('file', Buffer.from(JSON.stringify(pod(''))), ctx);
    expect(small.ok).toBe(true);
  });

  it('a manifest that needs more than the heap cap fails alone', async () => {
    const { p } = parser({ heapMb: 16 });
    const items = JSON.stringify({ ...pod(''), metadata: { name: 'web', padding: Array.from({ length: 600_000 }, (_, i) => ({ i })) } });
    const r = await p.parse('file', Buffer.from(items), ctx);
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/needs more than 16 MB of memory|could not be parsed/) as string });
    const next = await p.parse('file', Buffer.from(JSON.stringify(pod('y'.repeat(100_000)))), ctx);
    expect(next.ok).toBe(true);
  });

  it('reads and parses a large file in the worker: the same pods and stamp as reading it here', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parser-'));
    try {
      const { p } = parser();
      const file = join(dir, 'big.yaml');
      const text = JSON.stringify(pod('x'.repeat(2_000_000)));
      writeFileSync(file, text);
      const read = readBounded(file, MAX_MANIFEST_BYTES);
      const got = await p.parseFile(file, MAX_MANIFEST_BYTES, ctx);
      expect(got).toEqual({ stamp: 'stamp' in read ? read.stamp : '', mtimeMs: 'mtimeMs' in read ? read.mtimeMs : 0, result: podFromFile(text, ctx) });
      writeFileSync(file, malformed());
      expect(await p.parseFile(file, MAX_MANIFEST_BYTES, ctx)).toEqual(expect.objectContaining({ result: { ok: false, error: expect.stringMatching(/^YAML syntax error at line \d+/) as string } }));
      expect(await p.parseFile(file, 1000, ctx)).toEqual({ problem: expect.stringMatching(/larger than the .* limit/) as string });
      expect(await p.parseFile(join(dir, 'gone.yaml'), MAX_MANIFEST_BYTES, ctx)).toEqual({ problem: expect.stringMatching(/ENOENT|does not exist|no such/i) as string });
      const inline = parser({ workerScript: null }).p;
      expect(await inline.parseFile(file, MAX_MANIFEST_BYTES, ctx)).toEqual(await p.parseFile(file, MAX_MANIFEST_BYTES, ctx));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without a worker everything is parsed inline', async () => {
    const { p } = parser({ workerScript: null });
    const text = malformed();
    expect(await p.parse('file', Buffer.from(text), ctx)).toEqual(podFromFile(text, ctx));
  });

  it('close() answers queued parses and later ones with an error, and is idempotent', async () => {
    const { p } = parser();
    const pending = [p.parse('file', Buffer.from(malformed()), ctx), p.parse('file', Buffer.from(malformed()), ctx)];
    await p.close();
    await p.close();
    expect(await Promise.all(pending)).toEqual([
      { ok: false, error: 'the agent is stopping' },
      { ok: false, error: 'the agent is stopping' },
    ]);
    expect(await p.parse('file', Buffer.from('x'), ctx)).toEqual({ ok: false, error: 'the agent is stopping' });
  });
});
