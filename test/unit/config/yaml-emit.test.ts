import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { emitYaml, isPlainSafe } from '../../../src/config/yaml-emit.js';

const none = () => undefined;
const readBack = (text: string, version: '1.1' | '1.2') => parse(text, { version }) as unknown;

describe('emitYaml', () => {
  // Strings a YAML reader could take for something else, and ordinary ones.
  const strings = [
    '', ' ', 'a b', 'yes', 'No', 'on', 'OFF', 'y', 'n', 'true', 'False', 'null', '~', 'Null',
    '0', '-1', '+1', '1_000', '010', '0o17', '0x1F', '0b101', '1:20', '1:20.5', '1.5', '.5', '1.', '1e3', '1.5E-3', '.inf', '-.Inf', '.NaN',
    '2001-12-14', '2001-12-14t21:59:43.10-05:00', '<<', '=', '-', '- a', '? x', ': x', 'a: b', 'a #b', '#x', '&a', '*a', '!t', '|', '>', "'q'", '"q"', '%x', '@x', '`x',
    'key:', 'a\nb', 'tab\there', 'nel\u0085', 'ls\u2028', 'é', '\u0000', '[a]', '{a}', 'a,b',
    '1m0s', '10Mi', '100m', '10%', '127.0.0.1', '10.244.0.0/24', 'unix:///run/containerd/containerd.sock', 'memory.available<100Mi', 'platform.io/os', 'NodeSwap', '::1', '::',
  ];

  it.each(strings.map((s) => [s]))('round-trips the string %j as a string under YAML 1.1 and 1.2', (s) => {
    const text = emitYaml({ v: s, [s === '' ? 'empty' : s]: 'key' }, none);
    for (const version of ['1.1', '1.2'] as const) {
      expect(readBack(text, version)).toEqual({ v: s, [s === '' ? 'empty' : s]: 'key' });
    }
  });

  it('writes ordinary values plain, as an operator reads them', () => {
    for (const s of ['1m0s', '10Mi', '127.0.0.1', '10.244.0.0/24', 'unix:///run/x.sock', 'memory.available', 'promiscuous-bridge', 'application/vnd.platform.protobuf']) expect(isPlainSafe(s), s).toBe(true);
    for (const s of ['', '0', 'yes', '1.5', '1e3', '- a', 'a b', '2001-12-14']) expect(isPlainSafe(s), s).toBe(false);
  });

  it('writes nested maps, lists of maps, lists of lists, empty collections and comments', () => {
    const doc = {
      a: 1,
      b: { c: true, d: [], e: {} },
      f: [{ key: 'k', effect: 'NoSchedule' }, { numaNode: 0, limits: { memory: '1Gi' } }],
      g: [['x', 'w'], [], 'z', null],
      h: { 'X-A': ['one', 'two'] },
      i: 0.9,
      skipped: undefined,
    };
    const notes: Record<string, { trailing?: string; before?: string }> = {
      a: { trailing: ' default' },
      'b.c': { trailing: ' flag --c', before: ' note\n second line' },
      'b.d': { trailing: ' default' },
      f: { before: ' drop-in x.conf' },
    };
    const text = emitYaml(doc, (keys) => notes[keys.join('.')], ' Title\n line two');
    expect(text).toBe(
      [
        '# Title',
        '# line two',
        '',
        'a: 1 # default',
        'b:',
        '  # note',
        '  # second line',
        '  c: true # flag --c',
        '  d: [] # default',
        '  e: {}',
        '# drop-in x.conf',
        'f:',
        '  - key: k',
        '    effect: NoSchedule',
        '  - numaNode: 0',
        '    limits:',
        '      memory: 1Gi',
        'g:',
        '  -',
        '    - x',
        '    - w',
        '  - []',
        '  - z',
        '  - null',
        'h:',
        '  X-A:',
        '    - one',
        '    - two',
        'i: 0.9',
        '',
      ].join('\n'),
    );
    const { skipped: _, ...rest } = doc;
    expect(readBack(text, '1.1')).toEqual(rest);
  });
});
