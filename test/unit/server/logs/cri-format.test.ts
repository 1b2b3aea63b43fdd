import { describe, expect, it } from 'vitest';
import { formatLogTime, LineAssembler, parseCriRecord, parseLogTime, renderLine } from '../../../../src/server/logs/cri-format.js';

describe('parseLogTime', () => {
  it.each([
    ['2024-01-02T03:04:05.123456789Z', { sec: Date.UTC(2024, 0, 2, 3, 4, 5) / 1000, nsec: 123456789 }],
    ['2024-01-02T03:04:05Z', { sec: Date.UTC(2024, 0, 2, 3, 4, 5) / 1000, nsec: 0 }],
    ['2024-01-02T03:04:05.5Z', { sec: Date.UTC(2024, 0, 2, 3, 4, 5) / 1000, nsec: 500000000 }],
    ['2024-01-02T05:04:05.000000001+02:00', { sec: Date.UTC(2024, 0, 2, 3, 4, 5) / 1000, nsec: 1, offsetMin: 120 }],
    ['2024-01-02T00:04:05-03:00', { sec: Date.UTC(2024, 0, 2, 3, 4, 5) / 1000, nsec: 0, offsetMin: -180 }],
    ['2024-01-02T03:04:05+00:00', { sec: Date.UTC(2024, 0, 2, 3, 4, 5) / 1000, nsec: 0, offsetMin: 0 }],
  ])('%s', (s, want) => expect(parseLogTime(s)).toEqual(want));

  it.each(['', 'yesterday', '2024-01-02 03:04:05Z', '2024-13-02T03:04:05Z', '2024-01-02T03:04:05.1234567890Z', '2024-01-02T03:04:05'])('rejects %j', (s) => {
    expect(parseLogTime(s)).toBeUndefined();
  });

  it.each([
    ['2024-01-02T05:04:05.5+02:00', '2024-01-02T05:04:05.500000000+02:00'],
    ['2024-01-01T23:30:00.123-05:30', '2024-01-01T23:30:00.123000000-05:30'],
    ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000000000Z'],
    ['2024-01-02T03:04:05+00:00', '2024-01-02T03:04:05.000000000Z'],
  ])('formats %s with nine fraction digits in its own zone, as the kubelet', (s, want) => {
    expect(formatLogTime(parseLogTime(s)!)).toBe(want);
  });
});

describe('parseCriRecord', () => {
  const T = '2024-01-02T03:04:05.000000001Z';
  it.each([
    [`${T} stdout F hello world`, { stream: 'stdout', partial: false, content: 'hello world' }],
    [`${T} stderr P part`, { stream: 'stderr', partial: true, content: 'part' }],
    [`${T} stdout F `, { stream: 'stdout', partial: false, content: '' }],
    [`${T} stdout F`, { stream: 'stdout', partial: false, content: '' }],
    [`${T} stdout F:x spaces  kept `, { stream: 'stdout', partial: false, content: 'spaces  kept ' }],
  ])('%j', (line, want) => {
    const r = parseCriRecord(Buffer.from(line));
    expect(r && { stream: r.stream, partial: r.partial, content: r.content.toString() }).toEqual(want);
  });

  it.each(['', 'plain text', `${T} stdin F x`, `${T} stdout X x`, `${T}`, 'notatime stdout F x', '{"log":"docker json\\n"}'])('rejects %j', (line) => {
    expect(parseCriRecord(Buffer.from(line))).toBeUndefined();
  });
});

describe('LineAssembler', () => {
  const rec = (ts: string, stream: 'stdout' | 'stderr', tag: string, content: string) => parseCriRecord(Buffer.from(`2024-01-02T03:04:0${ts}Z ${stream} ${tag} ${content}`))!;

  it('joins partial records per stream, stamped with the first one', () => {
    const a = new LineAssembler();
    expect(a.push(rec('1', 'stdout', 'P', 'hel'))).toBeUndefined();
    const err = a.push(rec('2', 'stderr', 'F', 'oops'));
    expect(err?.content.toString()).toBe('oops\n');
    const out = a.push(rec('3', 'stdout', 'F', 'lo'));
    expect(out?.content.toString()).toBe('hello\n');
    expect(formatLogTime(out!.time)).toBe('2024-01-02T03:04:01.000000000Z');
    expect(renderLine(out!, true).toString()).toBe('2024-01-02T03:04:01.000000000Z hello\n');
    expect(a.flush()).toEqual([]);
  });

  it('flushes unfinished lines without a newline', () => {
    const a = new LineAssembler();
    a.push(rec('2', 'stderr', 'P', 'b'));
    a.push(rec('1', 'stdout', 'P', 'a'));
    expect(a.flush().map((l) => l.content.toString())).toEqual(['a', 'b']);
  });
});
