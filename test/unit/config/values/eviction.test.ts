import { describe, expect, it } from 'vitest';
import { buildThresholds, defaultEvictionHard, parseEvictionFlag, type ThresholdInput } from '../../../../src/config/values/eviction.js';
import { ValueError } from '../../../../src/errors.js';

const SIGNALS_HELP =
  'use memory.available, allocatableMemory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available';

describe('parseEvictionFlag', () => {
  it.each([
    ['', {}],
    ['memory.available<100Mi,nodefs.available<10%', { 'memory.available': '100Mi', 'nodefs.available': '10%' }],
    [' pid.available < 5% ', { 'pid.available': '5%' }],
    ['imagefs.inodesFree<5%,imagefs.inodesFree<6%', { 'imagefs.inodesFree': '6%' }],
  ])('parses %j', (text, map) => {
    expect(parseEvictionFlag(text)).toEqual(map);
  });

  it.each([
    ['memory.available>100Mi', 'malformed pair "memory.available>100Mi": expected key<value (only the < operator is supported, e.g. memory.available<100Mi)'],
    ['memory.available=100Mi', 'malformed pair "memory.available=100Mi": expected key<value'],
    ['memory.available<=100Mi', 'invalid threshold "memory.available<=100Mi": only the < operator is supported'],
    ['cpu.available<1', `unknown eviction signal "cpu.available" (${SIGNALS_HELP})`],
    ['<1Gi', 'malformed pair "<1Gi": empty key'],
  ])('rejects %j', (text, message) => {
    expect(() => parseEvictionFlag(text)).toThrow(ValueError);
    expect(() => parseEvictionFlag(text)).toThrow(message);
  });
});

const none: ThresholdInput = { hard: {}, soft: {}, softGracePeriod: {}, minimumReclaim: {}, enforceNodeAllocatable: [] };

describe('buildThresholds', () => {
  it('builds the default hard thresholds', () => {
    const r = buildThresholds({ ...none, hard: defaultEvictionHard });
    expect(r.problems).toEqual([]);
    expect(r.thresholds).toEqual([
      { signal: 'imagefs.available', operator: 'LessThan', value: { percentage: 0.15 }, gracePeriodMs: 0 },
      { signal: 'memory.available', operator: 'LessThan', value: { quantity: { text: '100Mi', value: 104857600 } }, gracePeriodMs: 0 },
      { signal: 'nodefs.available', operator: 'LessThan', value: { percentage: 0.1 }, gracePeriodMs: 0 },
      { signal: 'nodefs.inodesFree', operator: 'LessThan', value: { percentage: 0.05 }, gracePeriodMs: 0 },
    ]);
  });

  it('pairs soft thresholds with grace periods and attaches minimum reclaim', () => {
    const r = buildThresholds({
      ...none,
      soft: { 'memory.available': '1Gi' },
      softGracePeriod: { 'memory.available': '1m30s' },
      minimumReclaim: { 'memory.available': '500Mi', 'nodefs.available': '5%' },
      hard: { 'nodefs.available': '1Gi' },
    });
    expect(r.problems).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.thresholds).toEqual([
      {
        signal: 'nodefs.available',
        operator: 'LessThan',
        value: { quantity: { text: '1Gi', value: 2 ** 30 } },
        gracePeriodMs: 0,
        minReclaim: { percentage: 0.05 },
      },
      {
        signal: 'memory.available',
        operator: 'LessThan',
        value: { quantity: { text: '1Gi', value: 2 ** 30 } },
        gracePeriodMs: 90_000,
        minReclaim: { quantity: { text: '500Mi', value: 500 * 2 ** 20 } },
      },
    ]);
  });

  it.each([['0%'], ['100%']])('ignores %j thresholds', (v) => {
    const r = buildThresholds({ ...none, hard: { 'nodefs.available': v }, soft: { 'memory.available': v } });
    expect(r).toEqual({ thresholds: [], problems: [], warnings: [] });
  });

  it('copies hard memory thresholds to allocatableMemory.available when pods are enforced', () => {
    const r = buildThresholds({
      ...none,
      hard: { 'memory.available': '100Mi' },
      soft: { 'memory.available': '1Gi' },
      softGracePeriod: { 'memory.available': '1m' },
      minimumReclaim: { 'memory.available': '10Mi' },
      enforceNodeAllocatable: ['pods', 'system-reserved'],
    });
    expect(r.problems).toEqual([]);
    expect(r.thresholds.map((t) => [t.signal, t.value.quantity?.text, t.gracePeriodMs, t.minReclaim?.quantity?.text])).toEqual([
      ['memory.available', '100Mi', 0, '10Mi'],
      ['memory.available', '1Gi', 60_000, '10Mi'],
      ['allocatableMemory.available', '100Mi', 0, '10Mi'],
    ]);
  });

  it('does not copy without pods enforcement', () => {
    const r = buildThresholds({ ...none, hard: { 'memory.available': '100Mi' }, enforceNodeAllocatable: ['none'] });
    expect(r.thresholds.map((t) => t.signal)).toEqual(['memory.available']);
  });

  it.each<[Partial<ThresholdInput>, string[]]>([
    [{ hard: { 'memory.available': '0' } }, ['evictionHard[memory.available]: threshold must be positive: "0"']],
    [{ hard: { 'memory.available': '-1Gi' } }, ['evictionHard[memory.available]: threshold must be positive: "-1Gi"']],
    [{ hard: { 'memory.available': '1K' } }, ['evictionHard[memory.available]: invalid quantity "1K": unknown suffix "K" (use Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E, or an exponent such as e3)']],
    [{ hard: { 'nodefs.available': '101%' } }, ['evictionHard[nodefs.available]: percentage must be <= 100%: "101%"']],
    [{ hard: { 'nodefs.available': '-1%' } }, ['evictionHard[nodefs.available]: percentage must be >= 0%: "-1%"']],
    [{ hard: { 'nodefs.available': 'x%' } }, ['evictionHard[nodefs.available]: invalid percentage "x%"']],
    [{ hard: { 'cpu.available': '1' } }, [`evictionHard[cpu.available]: unsupported eviction signal (${SIGNALS_HELP})`]],
    [{ soft: { 'memory.available': '1Gi' } }, ['evictionSoft[memory.available]: grace period must be specified (set evictionSoftGracePeriod[memory.available])']],
    [
      { soft: { 'memory.available': '1Gi' }, softGracePeriod: { 'memory.available': '-1s' } },
      [
        'evictionSoftGracePeriod[memory.available]: grace period must not be negative: "-1s"',
        'evictionSoft[memory.available]: grace period must be specified (set evictionSoftGracePeriod[memory.available])',
      ],
    ],
    [
      { soft: { 'memory.available': '1Gi' }, softGracePeriod: { 'memory.available': '90' } },
      [
        'evictionSoftGracePeriod[memory.available]: invalid duration "90": missing unit (use ns, us, ms, s, m, h)',
        'evictionSoft[memory.available]: grace period must be specified (set evictionSoftGracePeriod[memory.available])',
      ],
    ],
    [{ softGracePeriod: { foo: '1m' } }, [`evictionSoftGracePeriod[foo]: unsupported eviction signal (${SIGNALS_HELP})`]],
    [{ minimumReclaim: { 'memory.available': '-1Mi' } }, ['evictionMinimumReclaim[memory.available]: minimum reclaim must not be negative: "-1Mi"']],
    [{ minimumReclaim: { 'nodefs.available': '0%' } }, ['evictionMinimumReclaim[nodefs.available]: percentage must be positive: "0%"']],
    [{ minimumReclaim: { bar: '1Gi' } }, [`evictionMinimumReclaim[bar]: unsupported eviction signal (${SIGNALS_HELP})`]],
    // ParseFloat's range error: an overflowing percentage once became an infinite minimum reclaim.
    [{ minimumReclaim: { 'memory.available': '1e309%' } }, ['evictionMinimumReclaim[memory.available]: invalid percentage "1e309%"']],
    [{ hard: { 'memory.available': '-1e309%' } }, ['evictionHard[memory.available]: invalid percentage "-1e309%"']],
  ])('reports %j', (input, problems) => {
    expect(buildThresholds({ ...none, ...input }).problems).toEqual(problems);
  });

  it('accepts zero grace periods and zero minimum reclaim quantities', () => {
    const r = buildThresholds({
      ...none,
      soft: { 'pid.available': '10%' },
      softGracePeriod: { 'pid.available': '0s' },
      minimumReclaim: { 'pid.available': '0' },
    });
    expect(r.problems).toEqual([]);
    expect(r.thresholds).toEqual([
      { signal: 'pid.available', operator: 'LessThan', value: { percentage: 0.1 }, gracePeriodMs: 0, minReclaim: { quantity: { text: '0', value: 0 } } },
    ]);
  });

  it('warns about grace periods and minimum reclaims that apply to nothing', () => {
    const r = buildThresholds({ ...none, softGracePeriod: { 'nodefs.available': '1m' }, minimumReclaim: { 'imagefs.available': '1Gi' } });
    expect(r.problems).toEqual([]);
    expect(r.warnings).toEqual([
      'evictionSoftGracePeriod[nodefs.available]: ignored, there is no soft threshold for this signal',
      'evictionMinimumReclaim[imagefs.available]: ignored, there is no threshold for this signal',
    ]);
  });
});
