// The rotation decision for one log, as a table (the kubelet's rotateLog).
import { describe, expect, it } from 'vitest';
import { planRotation, rotationTimestamp } from '../../../src/container-logs/plan.js';

const L = '/var/log/pods/ns_p_u/c/0.log';
const NOW = new Date(Date.UTC(2026, 10, 24, 5, 6, 7));
const T = `${L}.20261124-050607`;
const r = (ts: string, gz = true): string => `${L}.${ts}${gz ? '.gz' : ''}`;

describe('rotation plan', () => {
  it('the timestamp is Go\'s 20060102-150405 in UTC', () => expect(rotationTimestamp(NOW)).toBe('20261124-050607'));

  it.each<[string, { size: number; maxSize?: number; maxFiles?: number; rotated?: string[] }, ReturnType<typeof planRotation>]>([
    ['below the limit: nothing', { size: 99 }, undefined],
    ['rotation off (max size 0)', { size: 1e9, maxSize: 0 }, undefined],
    ['at the limit, nothing rotated yet', { size: 100 }, { remove: [], compress: [], rotateTo: T }],
    ['the newest rotated file gets compressed now', { size: 150, rotated: [r('20261124-050000', false)] }, { remove: [], compress: [r('20261124-050000', false)], rotateTo: T }],
    [
      'max files 3: one compressed file stays, the oldest goes',
      { size: 100, maxFiles: 3, rotated: [r('20261124-040000'), r('20261124-045000', false)] },
      { remove: [r('20261124-040000')], compress: [r('20261124-045000', false)], rotateTo: T },
    ],
    [
      'max files 5: three older files stay',
      { size: 100, maxFiles: 5, rotated: [r('20261124-010000'), r('20261124-020000'), r('20261124-030000'), r('20261124-040000', false)] },
      { remove: [r('20261124-010000')], compress: [r('20261124-040000', false)], rotateTo: T },
    ],
    [
      'max files 2: every rotated file goes before the new rotation',
      { size: 100, maxFiles: 2, rotated: [r('20261124-030000'), r('20261124-040000', false)] },
      { remove: [r('20261124-030000'), r('20261124-040000', false)], compress: [], rotateTo: T },
    ],
    [
      'leftovers: a .tmp and a plain file whose .gz exists are removed first',
      { size: 100, maxFiles: 5, rotated: [`${r('20261124-030000')}.tmp`, r('20261124-020000', false), r('20261124-020000')] },
      { remove: [`${r('20261124-030000')}.tmp`, r('20261124-020000', false)], compress: [], rotateTo: T },
    ],
    ['files of another log are not touched', { size: 100, rotated: ['/var/log/pods/ns_p_u/c/1.log.20261124-010000.gz', r('20261124-040000', false)] }, { remove: [], compress: [r('20261124-040000', false)], rotateTo: T }],
  ])('%s', (_what, inp, want) => {
    expect(planRotation({ log: L, maxSize: 100, maxFiles: 5, rotated: [], now: NOW, ...inp })).toEqual(want);
  });
});
