// The preStop hook and the stop share the grace period: the table of what the stop gets.
import { describe, expect, it } from 'vitest';
import { MIN_STOP_SECONDS, preStopBudgetMs, stopSecondsAfterHook } from '../../../src/hooks/budget.js';

describe('preStop budget', () => {
  it.each([
    [30, 30_000],
    [1, 1_000],
    [0, 0],
  ])('grace %is: the hook may take %ims', (grace, budget) => {
    expect(preStopBudgetMs(grace)).toBe(budget);
  });

  it.each([
    ['a quick hook leaves the whole grace period', 30, 120, 30],
    ['whole seconds are taken off (truncated)', 30, 4_999, 26],
    ['a hook that used it all leaves the minimum', 30, 30_000, MIN_STOP_SECONDS],
    ['a hook past the grace period still leaves the minimum', 5, 9_000, MIN_STOP_SECONDS],
    ['a short grace period is raised to the minimum', 1, 0, MIN_STOP_SECONDS],
    ['3 of 10 seconds used', 10, 3_000, 7],
  ])('%s', (_, grace, elapsed, stop) => {
    expect(stopSecondsAfterHook(grace, elapsed)).toBe(stop);
  });
});
