import { describe, expect, test } from 'vitest';
import { MAX_TRACKED, PodStartTracker } from '../../../src/metrics/pod-start.js';
import type { PodStartPhase } from '../../../src/metrics/index.js';

const pod = { uid: 'u1', namespace: 'ns', name: 'web' };

function run(marks: ReadonlyArray<readonly [PodStartPhase, number]>, t = new PodStartTracker()) {
  let last;
  for (const [phase, at] of marks) last = t.mark(pod, phase, at) ?? last;
  return last;
}

describe('PodStartTracker', () => {
  test.each([
    ['a full start', [['seen', 0], ['admitted', 5], ['sandbox', 100], ['images', 1100], ['containers', 1200], ['running', 2200]], { totalSeconds: 2.2, sliSeconds: 1.2, steps: { admission: 0.005, sandbox: 0.095, images: 1, containers: 0.1, running: 1 } }],
    ['images and containers move with each container; the rest keep their first mark', [['seen', 0], ['admitted', 5], ['admitted', 50], ['sandbox', 100], ['images', 200], ['containers', 300], ['images', 400], ['containers', 500], ['sandbox', 600], ['running', 1000]], { totalSeconds: 1, sliSeconds: 0.7, steps: { admission: 0.005, sandbox: 0.095, images: 0.3, containers: 0.1, running: 0.5 } }],
    ['no image step (every container failed before its image): the steps skip it', [['seen', 0], ['admitted', 0], ['sandbox', 100], ['running', 300]], { totalSeconds: 0.3, sliSeconds: 0.3, steps: { admission: 0, sandbox: 0.1, running: 0.2 } }],
  ] as const)('%s', (_n, marks, want) => {
    expect(run(marks)).toEqual({ pod, ...want });
  });

  test.each([
    ['running without a sandbox this agent created (found after a restart)', [['seen', 0], ['admitted', 1], ['running', 10]]],
    ['never seen by a source', [['sandbox', 0], ['running', 10]]],
    ['not running yet', [['seen', 0], ['sandbox', 1], ['containers', 2]]],
  ] as const)('nothing when %s', (_n, marks) => {
    expect(run(marks)).toBeUndefined();
  });

  test('each pod reports once, until it is forgotten', () => {
    const t = new PodStartTracker();
    const full = [['seen', 0], ['sandbox', 1], ['running', 2]] as const;
    expect(run(full, t)).toBeDefined();
    expect(t.mark(pod, 'running', 5)).toBeUndefined();
    expect(run(full, t)).toBeUndefined();
    t.forget(pod.uid);
    expect(run(full, t)).toBeDefined();
  });

  test('memory is bounded: the oldest unfinished start is forgotten', () => {
    const t = new PodStartTracker();
    for (let i = 0; i <= MAX_TRACKED; i++) t.mark({ uid: `u${i}`, namespace: 'ns', name: `p${i}` }, 'seen', i);
    expect(t.size).toBe(MAX_TRACKED);
    expect(t.mark({ uid: 'u0', namespace: 'ns', name: 'p0' }, 'sandbox', 1)).toBeUndefined();
  });
});
