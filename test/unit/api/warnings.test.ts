import { describe, expect, it } from 'vitest';
import { WarningCollector, formatWarning, parseWarnings } from '../../../src/api/warnings.js';

describe('formatWarning', () => {
  it.each([
    ['unknown field "spec.foo"', '299 - "unknown field \\"spec.foo\\""'],
    ['a\\b', '299 - "a\\\\b"'],
    ['', '299 - ""'],
    ['ünïcode', '299 - "ünïcode"'],
  ])('%j', (text, header) => expect(formatWarning(text)).toBe(header));
  it('pads the code and refuses bad agents or codes', () => {
    expect(formatWarning('x', 7, 'agent')).toBe('007 agent "x"');
    expect(() => formatWarning('x', 1000)).toThrow(TypeError);
    expect(() => formatWarning('x', 299, 'a b')).toThrow(TypeError);
  });
});

describe('WarningCollector', () => {
  it('drops duplicates and empty texts, keeps order', () => {
    const c = new WarningCollector();
    for (const t of ['b', 'a', 'b', '', 'a']) c.add(t);
    expect(c.headers()).toEqual(['299 - "b"', '299 - "a"']);
  });
  it('switches to truncation past the rune budget, replaying earlier warnings truncated', () => {
    const c = new WarningCollector(100, 5);
    c.add('x'.repeat(40));
    c.add('y'.repeat(60)); // exactly 100 runes: still fits
    expect(c.headers()).toEqual([`299 - "${'x'.repeat(40)}"`, `299 - "${'y'.repeat(60)}"`]);
    c.add('z'.repeat(40)); // would be 140: truncate everything to 5 runes
    expect(c.headers()).toEqual(['299 - "xxxxx"', '299 - "yyyyy"', '299 - "zzzzz"']);
    c.add('ééééééé', 'agent');
    expect(c.headers().at(-1)).toBe('299 agent "ééééé"');
  });
  it('with the defaults: 4 Ki runes, then 256 runes each until 4 Ki again, then nothing', () => {
    const c = new WarningCollector();
    for (let i = 0; i < 200; i++) c.add(`${String(i).padStart(3, '0')} ${'w'.repeat(296)}`);
    const hs = c.headers();
    // 13 warnings of 300 runes fit in 4096; the 14th starts truncation; 16 × 256 = 4096 stops it.
    expect(hs.length).toBe(16);
    expect(hs.every((h) => h.length === '299 - ""'.length + 256)).toBe(true);
    expect(hs[15]!.startsWith('299 - "015 ')).toBe(true);
  });
});

describe('parseWarnings', () => {
  it('reads what formatWarning writes, several per value, with dates', () => {
    const { warnings, errors } = parseWarnings([formatWarning('a "q" \\ b'), '299 - "one", 199 agent "two" "Wed, 21 Oct 2015 07:28:00 GMT"']);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([
      { code: 299, agent: '-', text: 'a "q" \\ b' },
      { code: 299, agent: '-', text: 'one' },
      { code: 199, agent: 'agent', text: 'two' },
    ]);
  });
  it.each(['garbage', '299 - "open', '299 - "a" junk'])('reports %j', (v) => {
    expect(parseWarnings([v]).errors).toHaveLength(1);
  });
});
