import { describe, expect, it } from 'vitest';
import { bufferSource, orderRotated, tailStart } from '../../../../src/server/logs/files.js';

describe('orderRotated', () => {
  it.each([
    [['0.log'], []],
    [['0.log', '0.log.20240102-030405', '0.log.20240101-000000.gz'], [{ name: '0.log.20240101-000000.gz', gz: true }, { name: '0.log.20240102-030405', gz: false }]],
    // A compression that finished but did not remove its source: the plain file is read once.
    [['0.log.20240102-030405', '0.log.20240102-030405.gz'], [{ name: '0.log.20240102-030405', gz: false }]],
    [['0.log.20240102-030405.gz.tmp', '1.log.20240102-030405', '0.log.bak', '0.log.20240102-0304'], []],
  ])('%j', (names, want) => expect(orderRotated('0.log', names)).toEqual(want));
});

const T = '2024-01-02T03:04:05.000000000Z';
const rec = (tag: 'P' | 'F', s: string): string => `${T} stdout ${tag} ${s}\n`;

describe('tailStart', () => {
  const file = [rec('F', 'a'), rec('P', 'b1'), rec('F', 'b2'), rec('F', 'c'), 'garbage\n', rec('F', 'd')].join('');
  const from = (offset: number): string => file.slice(offset);

  it.each([
    [0, '', 4],
    [1, 'garbage\n' + rec('F', 'd'), 4],
    [2, rec('F', 'c') + 'garbage\n' + rec('F', 'd'), 4],
    [3, rec('P', 'b1') + rec('F', 'b2') + rec('F', 'c') + 'garbage\n' + rec('F', 'd'), 4],
  ])('last %i lines', async (n, want) => {
    const r = await tailStart(bufferSource(Buffer.from(file)), n);
    expect(from(r.offset)).toBe(want);
    expect(r.found).toBe(n);
  });

  it('reports fewer when the file has fewer, from its start', async () => {
    expect(await tailStart(bufferSource(Buffer.from(file)), 4)).toEqual({ offset: 0, found: 4 });
    expect(await tailStart(bufferSource(Buffer.from(file)), 10)).toEqual({ offset: 0, found: 4 });
    expect(await tailStart(bufferSource(Buffer.alloc(0)), 3)).toEqual({ offset: 0, found: 0 });
  });

  it('does not count a record still being written, but keeps it to read', async () => {
    const growing = file + `${T} stdout F unfinis`;
    const r = await tailStart(bufferSource(Buffer.from(growing)), 1);
    expect(growing.slice(r.offset)).toBe('garbage\n' + rec('F', 'd') + `${T} stdout F unfinis`);
  });

  it('scans across read chunks', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => rec('F', `line ${i}`)).join('');
    const r = await tailStart(bufferSource(Buffer.from(many)), 3000);
    expect(many.slice(r.offset).split('\n')[0]).toBe(rec('F', 'line 2000').trimEnd());
  });
});
